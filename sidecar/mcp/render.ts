// What Engram's MCP tools hand an agent: readable text sized for a model's context (Claude Code takes about 25k
// tokens from one tool). Every answer stays under MAX_TOOL_CHARS; a long list says what it left out and how to see it.
import type { Proposal } from '../../src/core/curate/proposals.js';
import type { Result, StatusResult } from '../../src/core/protocol/index.js';

export const MAX_TOOL_CHARS = 20_000;

/** Joins lines until the next one would pass `max`; then says how many were left out and how to see them. */
export function capLines(lines: string[], more: (left: number) => string, max = MAX_TOOL_CHARS): string {
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const next = `${out}${out ? '\n' : ''}${lines[i]}`;
    const tail = `\n${more(lines.length - i)}`;
    if (next.length + tail.length > max) return `${out}${tail}`;
    out = next;
  }
  return out;
}

/** Cuts one long text at `max` characters on a line boundary, saying so. */
export function capText(text: string, max: number, how: string): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const at = cut.lastIndexOf('\n');
  return `${at > max / 2 ? cut.slice(0, at) : cut}\n… (${text.length - (at > max / 2 ? at : max)} more characters: ${how})`;
}

function oneLine(s: string, max = 240): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A proposal as a few lines: id, kind, title, reason, what it writes, trashes and moves, how many links it rewrites. */
export function proposalSummary(p: Proposal): string[] {
  const lines = [`- ${p.id} · ${p.kind} · ${oneLine(p.title, 160)}`, `  why: ${oneLine(p.reason)}`];
  for (const w of p.writes.slice(0, 6)) lines.push(`  ${w.replaces ? 'rewrites' : 'writes'} ${w.path} (${w.text.length} chars)`);
  if (p.writes.length > 6) lines.push(`  … and ${p.writes.length - 6} more notes`);
  if (p.trash.length) lines.push(`  trashes ${p.trash.slice(0, 6).join(', ')}${p.trash.length > 6 ? `, … (${p.trash.length})` : ''}`);
  for (const [a, b] of p.moves.slice(0, 3)) lines.push(`  moves ${a} → ${b}`);
  const edits = p.linkRewrites.reduce((n, r) => n + r.edits.length, 0);
  if (edits) lines.push(`  rewrites ${edits} link${edits === 1 ? '' : 's'} in ${p.linkRewrites.length} note${p.linkRewrites.length === 1 ? '' : 's'}`);
  return lines;
}

/** One proposal in full: everything it would write, the notes it removes, the links it rewrites. */
export function proposalDetail(p: Proposal): string {
  const head = [`Proposal ${p.id} (${p.kind}): ${p.title}`, `Why: ${p.reason}`, `Expires: ${p.expiresAt}`];
  if (p.trash.length) head.push(`Moves to the trash: ${p.trash.join(', ')}`);
  for (const [a, b] of p.moves) head.push(`Moves: ${a} → ${b}`);
  if (p.linkRewrites.length) {
    head.push(`Rewrites links in: ${p.linkRewrites.slice(0, 30).map((r) => `${r.path} (${r.edits.length})`).join(', ')}${p.linkRewrites.length > 30 ? `, … (${p.linkRewrites.length} notes)` : ''}`);
  }
  const budget = MAX_TOOL_CHARS - head.join('\n').length - 200;
  const per = Math.max(1000, Math.floor(budget / Math.max(1, p.writes.length)));
  const writes = p.writes.map((w) => `\n--- ${w.replaces ? 'rewrites' : 'writes'} ${w.path} ---\n${capText(w.text, per, 'the whole text is in `engram restructure --json` or `engram review --json`')}`);
  return capText(`${head.join('\n')}${writes.join('\n')}`, MAX_TOOL_CHARS, 'cut to fit a tool answer');
}

interface CurationList {
  proposals?: Proposal[];
  due?: unknown[];
  groups?: unknown[];
  problems?: string[];
  duplicates?: { id: string; notes: { path: string }[]; reason?: string }[];
  applied?: { id: string; ok: boolean; error?: string; result?: { kind: string; title: string; wrote: string[]; trashed: string[]; moved: [string, string][]; relinked: string[]; logPath: string } }[];
  notesConsidered?: number;
  pairsCompared?: number;
  vectors?: string;
}

/** The answer of the `review` or `restructure` tool: applied outcomes, one proposal in full (`show`), or a short list. */
export function renderCuration(kind: 'review' | 'restructure', answer: Result<'review.plan'> | Result<'restructure.plan'> | Result<'curate.apply'>, show?: string): string {
  // Read through the fields any of the three answers has.
  const r: CurationList = answer;
  if (r.applied) {
    return capLines(
      r.applied.map((o) =>
        o.ok && o.result
          ? `Applied ${o.id} (${o.result.kind}: ${oneLine(o.result.title, 160)}): wrote ${o.result.wrote.join(', ') || 'nothing'}; trashed ${o.result.trashed.join(', ') || 'nothing'}${o.result.moved.length ? `; moved ${o.result.moved.map(([a, b]) => `${a} → ${b}`).join(', ')}` : ''}; rewrote links in ${o.result.relinked.length} notes; logged in ${o.result.logPath}.`
          : `Not applied ${o.id}: ${o.error ?? 'refused'}`,
      ),
      (left) => `… ${left} more outcomes`,
    );
  }
  const proposals = r.proposals ?? [];
  if (show) {
    const p = proposals.find((x) => x.id === show);
    if (p) return proposalDetail(p);
    const dup = r.duplicates?.find((d) => d.id === show);
    if (dup) return `Possible duplicate ${dup.id} (from extraction): ${dup.notes.map((n) => n.path).join(' ↔ ')}${dup.reason ? ` (${dup.reason})` : ''}. Applying it merges them.`;
    return `No current ${kind} proposal has id ${show}. Ask again without \`show\` for the list (proposals change when their notes change).`;
  }
  const lines: string[] = [];
  if (kind === 'review') {
    const due = r.due?.length ?? 0;
    lines.push(due === 0 ? 'No working-memory notes are due for review.' : `${due} working-memory note${due === 1 ? '' : 's'} due, ${proposals.length} proposal${proposals.length === 1 ? '' : 's'}. Nothing was changed.`);
  } else {
    lines.push(`${r.notesConsidered ?? 0} notes considered (${r.vectors ?? 'word'} vectors), ${proposals.length} proposal${proposals.length === 1 ? '' : 's'}${r.duplicates?.length ? ` and ${r.duplicates.length} possible duplicate${r.duplicates.length === 1 ? '' : 's'}` : ''}. Nothing was changed.`);
  }
  for (const p of proposals) lines.push(...proposalSummary(p));
  for (const d of r.duplicates ?? []) lines.push(`- ${d.id} · duplicate · ${d.notes.map((n) => n.path).join(' ↔ ')}${d.reason ? `  why: ${oneLine(d.reason)}` : ''}`);
  for (const problem of r.problems ?? []) lines.push(`note: ${oneLine(problem)}`);
  if (proposals.length || r.duplicates?.length) {
    lines.push(`To see one in full: ${kind} with show "<id>". To apply one, only when the user asked: ${kind} with apply "<id>".`);
  }
  return capLines(lines, (left) => `… ${left} more lines not shown. Ask for one proposal with show "<id>", or run \`engram ${kind}\` in a terminal for the whole list.`);
}

/** `status` as a few readable lines. */
export function renderStatus(s: StatusResult): string {
  const lines = [
    `Vault: ${s.vault}`,
    `Host: ${s.host} (pid ${s.pid}, up ${Math.round(s.uptimeMs / 1000)} s)`,
    `Index: ${s.index.notes} notes, ${s.index.ready ? 'ready' : 'loading'}, ${s.index.mode === 'hybrid' ? 'keywords and meaning' : 'keywords only (no embedding model)'}`,
    `Queue: ${s.queue.pending} pending${s.queue.running ? `, running ${s.queue.running}` : ''}, ${s.queue.done} done, ${s.queue.failed} failed, ${s.queue.spooled} hook events waiting${s.queue.deferred ? `, ${s.queue.deferred} deferred (budget)` : ''}${s.queue.failedEvents ? `, ${s.queue.failedEvents} set aside after failures (see \`engram doctor\`)` : ''}`,
  ];
  const runs = s.lastRuns ?? [];
  if (runs.length) lines.push('Last extraction runs:', ...runs.slice(-5).map((r) => `- ${r.at} ${r.sessionId}: ${r.outcome}, ${r.notes} note${r.notes === 1 ? '' : 's'}`));
  return capText(lines.join('\n'), MAX_TOOL_CHARS, 'run `engram status` in a terminal');
}
