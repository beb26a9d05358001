// The Dashboard pane: what Engram did over the last days, in figures a person would rather look at than read (from
// the activity record, src/core/activity/stats.ts): injected tokens per day and per session against the session
// budget, the share of injected notes later read or cited (usage.ts), captures and notes filed per day, notes by type
// and project, the review backlog, secrets redacted, failures. Charts are plain
// SVG coloured by Obsidian's CSS variables, so they follow the light and dark themes.
import type { WorkspaceLeaf } from 'obsidian';
import { budgetLegend, type StatsResult } from '../../core/activity/stats';
import { budgetSteps } from '../../core/activity/stats-html';
import type { EngramApi, PaneContext } from './api';
import { RecordPane } from './record-pane';

export const VIEW_TYPE_DASHBOARD = 'engram-dashboard';

export const DASHBOARD_SPANS: ReadonlyArray<{ days: number; label: string }> = [
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
];

const SVG = 'http://www.w3.org/2000/svg';

function svgEl<K extends keyof SVGElementTagNameMap>(parent: Element, tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  parent.appendChild(el);
  return el;
}

const numbers = new Intl.NumberFormat('en-US');
const num = (n: number) => numbers.format(n);

/**
 * A bar chart of one figure per label; `limit`: a dashed line (the session budget), when given; `budget`: a dashed step
 * line of one ceiling per bar (the day's budget), said in words under the title.
 */
function barChart(parent: HTMLElement, opts: { title: string; cls: string; bars: { label: string; value: number; tip: string; budget?: number }[]; limit?: number; budget?: string; unit: string }): void {
  const box = parent.createDiv({ cls: `engram-dash-chart ${opts.cls}` });
  box.createEl('h5', { text: opts.title });
  if (!opts.bars.some((b) => b.value > 0)) {
    box.createDiv({ cls: 'engram-dash-empty', text: 'Nothing yet.' });
    return;
  }
  const budgets = opts.budget ? opts.bars.map((b) => b.budget ?? 0) : [];
  if (opts.budget && budgets.some((b) => b > 0)) box.createDiv({ cls: 'engram-dash-legend', text: opts.budget });
  const w = 600;
  const h = 140;
  const max = Math.max(...opts.bars.map((b) => b.value), ...budgets, opts.limit ?? 0) || 1;
  const svg = svgEl(box, 'svg', { viewBox: `0 0 ${w} ${h + 18}`, role: 'img', 'aria-label': opts.title, class: 'engram-dash-svg' });
  const step = w / opts.bars.length;
  opts.bars.forEach((b, i) => {
    const bh = Math.max(b.value ? 2 : 0, (b.value / max) * h);
    const rect = svgEl(svg, 'rect', { x: i * step + step * 0.15, y: h - bh, width: step * 0.7, height: bh, class: 'engram-dash-bar', 'data-label': b.label, 'data-value': b.value });
    svgEl(rect, 'title', {}).textContent = b.tip;
  });
  if (budgets.some((b) => b > 0)) {
    // A step a bar: flat over each day, so a bar above it is a day over its budget.
    svgEl(svg, 'polyline', { points: budgetSteps(budgets, max, step, h), class: 'engram-dash-budget', 'data-values': budgets.join(',') });
  }
  if (opts.limit) {
    const y = h - (opts.limit / max) * h;
    svgEl(svg, 'line', { x1: 0, x2: w, y1: y, y2: y, class: 'engram-dash-limit' });
    const t = svgEl(svg, 'text', { x: w - 4, y: Math.max(10, y - 3), 'text-anchor': 'end', class: 'engram-dash-limit-label' });
    t.textContent = `budget ~${num(opts.limit)} ${opts.unit}`;
  }
  const first = svgEl(svg, 'text', { x: 0, y: h + 14, class: 'engram-dash-axis' });
  first.textContent = opts.bars[0].label;
  const last = svgEl(svg, 'text', { x: w, y: h + 14, 'text-anchor': 'end', class: 'engram-dash-axis' });
  last.textContent = opts.bars[opts.bars.length - 1].label;
}

/** Counts as horizontal bars (notes by type, by project). */
function countList(parent: HTMLElement, title: string, cls: string, counts: Record<string, number>): void {
  const box = parent.createDiv({ cls: `engram-dash-chart ${cls}` });
  box.createEl('h5', { text: title });
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, 10);
  if (!rows.length) {
    box.createDiv({ cls: 'engram-dash-empty', text: 'None.' });
    return;
  }
  const max = rows[0][1];
  for (const [name, n] of rows) {
    const row = box.createDiv({ cls: 'engram-dash-row' });
    row.createSpan({ cls: 'engram-dash-row-name', text: name });
    const track = row.createDiv({ cls: 'engram-dash-row-track' });
    track.createDiv({ cls: 'engram-dash-row-fill', attr: { style: `width: ${Math.max(2, Math.round((n / max) * 100))}%` } });
    row.createSpan({ cls: 'engram-dash-row-count', text: String(n) });
  }
}

export class DashboardView extends RecordPane<StatsResult> {
  private days = 30;

  constructor(leaf: WorkspaceLeaf, ctx: PaneContext) {
    super(leaf, ctx, 'engram-dashboard');
  }

  getViewType(): string {
    return VIEW_TYPE_DASHBOARD;
  }

  getDisplayText(): string {
    return 'Engram dashboard';
  }

  getIcon(): string {
    return 'bar-chart-3';
  }

  protected fetchFigures(api: EngramApi): Promise<StatsResult> {
    return api.stats(this.days);
  }

  protected draw(hosted: boolean): void {
    const el = this.contentEl;
    el.empty();
    const bar = el.createDiv({ cls: 'engram-dash-bar-top' });
    bar.createEl('h4', { text: 'Engram dashboard' });
    const spans = bar.createDiv({ cls: 'engram-dash-spans', attr: { role: 'group', 'aria-label': 'Span' } });
    for (const s of DASHBOARD_SPANS) {
      const b = spans.createEl('button', { text: s.label, cls: 'engram-dash-span', attr: { 'aria-pressed': String(s.days === this.days) } });
      if (s.days === this.days) b.addClass('is-active');
      b.addEventListener('click', () => {
        this.days = s.days;
        void this.refresh();
      });
    }
    if (!hosted) {
      el.createDiv({ cls: 'engram-dash-empty', text: 'Engram is not hosting this vault yet. The dashboard appears once the engine has started.' });
      return;
    }
    if (this.problem || !this.data) {
      el.createDiv({ cls: 'engram-dash-problem', text: this.problem || 'No figures yet.' });
      return;
    }
    const s = this.data;
    const t = s.totals;
    const tiles = el.createDiv({ cls: 'engram-dash-tiles' });
    const tile = (label: string, value: string, cls: string) => {
      const d = tiles.createDiv({ cls: `engram-dash-tile ${cls}` });
      d.createDiv({ cls: 'engram-dash-tile-value', text: value });
      d.createDiv({ cls: 'engram-dash-tile-label', text: label });
    };
    const u = s.use;
    tile('sessions', String(t.sessions), 'is-sessions');
    tile('injected tokens', `~${num(t.injectedTokens)}`, 'is-injected');
    tile('injected notes read or cited', u.injected ? `${Math.round((u.used / u.injected) * 100)}%` : '–', 'is-used');
    tile('notes filed', String(t.filed), 'is-filed');
    tile('held for review', String(t.proposed), 'is-proposed');
    tile('review backlog', String(s.reviewBacklog), 'is-backlog');
    tile('secrets redacted', String(t.redactions), 'is-redactions');
    tile('failures', String(t.failures), t.failures ? 'is-failures mod-warning' : 'is-failures');
    if (u.injected) {
      el.createDiv({
        cls: 'engram-dash-use',
        text: `Of ${num(u.injected)} notes injected, ${u.read} were read afterwards over MCP and ${u.cited} named in the assistant's reply (${u.used} either): a floor, since an agent may use a note without naming it.`,
      });
    }
    const short = (day: string) => day.slice(5);
    const c = s.caps;
    barChart(el, {
      title: 'Injected tokens per day',
      cls: 'engram-dash-injected',
      unit: 'tokens',
      budget: c ? budgetLegend(c) : undefined,
      bars: s.days.map((d) => ({ label: short(d.day), value: d.injectedTokens, budget: d.budgetTokens, tip: `${d.day}: ~${d.injectedTokens} tokens in ${d.injections} injections (${d.injectedNotes} notes, ${d.withheld} withheld)${d.budgetTokens ? `; budget ~${num(d.budgetTokens)}` : ''}` })),
    });
    const sessions = [...s.sessions].reverse();
    barChart(el, {
      title: 'Injected tokens per session',
      cls: 'engram-dash-sessions',
      unit: 'tokens',
      limit: s.sessionBudgetTokens || undefined,
      bars: sessions.map((x) => ({ label: x.last.slice(5, 10), value: x.injectedTokens, tip: `${x.session.slice(0, 8)}${x.project ? ` (${x.project})` : ''}: ~${x.injectedTokens} tokens in ${x.injections} injections` })),
    });
    barChart(el, {
      title: 'Notes filed per day',
      cls: 'engram-dash-filed',
      unit: 'notes',
      bars: s.days.map((d) => ({ label: short(d.day), value: d.filed + d.proposed, tip: `${d.day}: ${d.filed} filed, ${d.proposed} held for review, ${d.extractions} captures, ${d.failures} failures` })),
    });
    barChart(el, {
      title: 'Failures and secrets redacted per day',
      cls: 'engram-dash-failures',
      unit: '',
      bars: s.days.map((d) => ({ label: short(d.day), value: d.failures + d.redactions, tip: `${d.day}: ${d.failures} failures, ${d.redactions} secrets redacted` })),
    });
    const lists = el.createDiv({ cls: 'engram-dash-lists' });
    countList(lists, `Notes by type (${s.notes.total})`, 'engram-dash-types', s.notes.byType);
    countList(lists, 'Notes by project', 'engram-dash-projects', s.notes.byProject);
  }
}
