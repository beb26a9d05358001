// `engram stats --html`: the dashboard's figures as one self-contained HTML file (inline CSS and SVG, no script, no
// network), light or dark after the reader's system setting. The same figures as `engram stats` and the Dashboard pane.
import { budgetLegend, type StatsResult } from './stats.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const num = (n: number) => n.toLocaleString('en-US');

/**
 * The points of a dashed step line of one ceiling a bar (the day's budget), flat over each bar's slot, so a bar above
 * it is a day over its budget: for a chart `h` high whose bars are `step` wide and whose top is `max`.
 */
export function budgetSteps(budgets: number[], max: number, step: number, h: number): string {
  return budgets.flatMap((b, i) => {
    const y = (h - (b / max) * h).toFixed(1);
    return [`${(i * step).toFixed(1)},${y}`, `${((i + 1) * step).toFixed(1)},${y}`];
  }).join(' ');
}

/**
 * A bar chart as inline SVG: one bar per value; an optional dashed limit line; an optional dashed step line of each
 * bar's `budget`, said in words (`budget`) under the title.
 */
function bars(title: string, items: { label: string; value: number; tip: string; budget?: number }[], limit?: { value: number; label: string }, budget?: string): string {
  if (!items.some((b) => b.value > 0)) return `<section><h2>${esc(title)}</h2><p class="empty">Nothing yet.</p></section>`;
  const w = 720;
  const h = 150;
  const budgets = budget ? items.map((b) => b.budget ?? 0) : [];
  const drawn = budgets.some((b) => b > 0);
  const max = Math.max(...items.map((b) => b.value), ...budgets, limit?.value ?? 0) || 1;
  const step = w / items.length;
  const rects = items.map((b, i) => {
    const bh = Math.max(b.value ? 2 : 0, (b.value / max) * h);
    return `<rect class="bar" x="${(i * step + step * 0.15).toFixed(1)}" y="${(h - bh).toFixed(1)}" width="${(step * 0.7).toFixed(1)}" height="${bh.toFixed(1)}"><title>${esc(b.tip)}</title></rect>`;
  });
  let line = drawn ? `<polyline class="budget" points="${budgetSteps(budgets, max, step, h)}" data-values="${budgets.join(',')}"/>` : '';
  if (limit?.value) {
    const y = (h - (limit.value / max) * h).toFixed(1);
    line += `<line class="limit" x1="0" x2="${w}" y1="${y}" y2="${y}"/><text class="limit-label" x="${w - 4}" y="${Math.max(10, Number(y) - 3)}" text-anchor="end">${esc(limit.label)}</text>`;
  }
  const axis = `<text class="axis" x="0" y="${h + 14}">${esc(items[0].label)}</text><text class="axis" x="${w}" y="${h + 14}" text-anchor="end">${esc(items[items.length - 1].label)}</text>`;
  const legend = drawn ? `<p class="sub legend">${esc(budget!)}</p>` : '';
  return `<section><h2>${esc(title)}</h2>${legend}<svg viewBox="0 0 ${w} ${h + 18}" role="img" aria-label="${esc(title)}">${rects.join('')}${line}${axis}</svg></section>`;
}

function counts(title: string, c: Record<string, number>): string {
  const rows = Object.entries(c).sort((a, b) => b[1] - a[1]).slice(0, 12);
  if (!rows.length) return `<section><h2>${esc(title)}</h2><p class="empty">None.</p></section>`;
  const max = rows[0][1];
  const trs = rows.map(([k, n]) => `<tr><td>${esc(k)}</td><td class="track"><div style="width:${Math.max(2, Math.round((n / max) * 100))}%"></div></td><td class="n">${num(n)}</td></tr>`);
  return `<section><h2>${esc(title)}</h2><table>${trs.join('')}</table></section>`;
}

const pct = (n: number, of: number) => (of ? `${Math.round((n / of) * 100)}%` : '–');

const CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #222222; --muted: #6b6b6b; --line: #e3e3e3; --bar: #7c5cff; --limit: #d9480f; --tile: #f6f6f8; }
@media (prefers-color-scheme: dark) { :root { --bg: #1e1e1e; --fg: #dcddde; --muted: #9a9a9a; --line: #363636; --bar: #a58bff; --limit: #ff8a5b; --tile: #262626; } }
body { background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 780px; padding: 0 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 .2rem; } h2 { font-size: 1rem; margin: 1.6rem 0 .4rem; } .sub, .empty, .axis { color: var(--muted); fill: var(--muted); font-size: 12px; }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: .6rem; margin-top: 1rem; }
.tile { background: var(--tile); border-radius: 8px; padding: .6rem .8rem; } .tile b { display: block; font-size: 1.3rem; } .tile span { color: var(--muted); font-size: 12px; }
.tile.warn b { color: var(--limit); }
svg { width: 100%; height: auto; } .bar { fill: var(--bar); } .limit { stroke: var(--limit); stroke-dasharray: 6 4; }
.budget { fill: none; stroke: var(--limit); stroke-width: 1.5; stroke-dasharray: 6 4; } .legend { margin: 0 0 .3rem; } .limit-label { fill: var(--limit); font-size: 12px; }
table { width: 100%; border-collapse: collapse; } td { padding: 2px 6px 2px 0; } td.n { text-align: right; width: 4rem; } td.track { width: 60%; }
td.track div { background: var(--bar); height: 10px; border-radius: 3px; }
footer { color: var(--muted); font-size: 12px; margin-top: 2rem; border-top: 1px solid var(--line); padding-top: .6rem; }
`;

/** The whole page, as one string (UTF-8), for `days` ending at `generated` (ISO). */
export function statsHtml(s: StatsResult, generated: string): string {
  const t = s.totals;
  const u = s.use;
  const tile = (label: string, value: string, warn = false) => `<div class="tile${warn ? ' warn' : ''}"><b>${esc(value)}</b><span>${esc(label)}</span></div>`;
  const short = (d: string) => d.slice(5);
  const sessions = [...s.sessions].reverse();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Engram stats since ${esc(s.since)}</title><style>${CSS}</style></head>
<body>
<h1>Engram: what it captured and injected</h1>
<p class="sub">${esc(s.since)} to ${esc(s.days[s.days.length - 1]?.day ?? s.since)} (${s.days.length} days), from the activity record. Generated ${esc(generated)}.</p>
<div class="tiles">
${tile('sessions', num(t.sessions))}
${tile('injected tokens', `~${num(t.injectedTokens)}`)}
${tile('injected notes read or cited', `${pct(u.used, u.injected)}`)}
${tile('notes filed', num(t.filed))}
${tile('held for review', num(t.proposed))}
${tile('review backlog', num(s.reviewBacklog))}
${tile('secrets redacted', num(t.redactions))}
${tile('failures', num(t.failures), t.failures > 0)}
</div>
<p class="sub">Of ${num(u.injected)} injected notes, ${num(u.read)} were read afterwards over MCP and ${num(u.cited)} were named in the assistant's text (${num(u.used)} either): a floor, since an agent may use a note without naming it.</p>
${bars('Injected tokens per day', s.days.map((d) => ({ label: short(d.day), value: d.injectedTokens, budget: d.budgetTokens, tip: `${d.day}: ~${d.injectedTokens} tokens in ${d.injections} injections${d.budgetTokens ? `; budget ~${num(d.budgetTokens)}` : ''}` })), undefined, s.caps ? budgetLegend(s.caps) : undefined)}
${bars('Injected tokens per session', sessions.map((x) => ({ label: x.last.slice(5, 10), value: x.injectedTokens, tip: `${x.session.slice(0, 8)}${x.project ? ` (${x.project})` : ''}: ~${x.injectedTokens} tokens` })), s.sessionBudgetTokens ? { value: s.sessionBudgetTokens, label: `budget ~${num(s.sessionBudgetTokens)} tokens a session` } : undefined)}
${bars('Notes filed per day', s.days.map((d) => ({ label: short(d.day), value: d.filed + d.proposed, tip: `${d.day}: ${d.filed} filed, ${d.proposed} held for review` })))}
${bars('Failures and redactions per day', s.days.map((d) => ({ label: short(d.day), value: d.failures + d.redactions, tip: `${d.day}: ${d.failures} failures, ${d.redactions} secrets redacted` })))}
${counts(`Notes by type (${num(s.notes.total)})`, s.notes.byType)}
${counts('Notes by project', s.notes.byProject)}
<footer>Engram · ${num(s.notes.engram)} of ${num(s.notes.total)} notes written by Engram · ${num(t.mcpCalls)} MCP calls · ~${num(t.captureTokens)} LLM tokens on capture</footer>
</body></html>
`;
}
