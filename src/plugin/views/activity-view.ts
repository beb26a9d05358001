// The Activity pane: what Engram saw, captured and injected, as a timeline by day and session (the activity record,
// src/core/activity/timeline.ts), filtered by project and client. A session opens to its entries; each note an entry
// names (injected, withheld, filed, proposed, cited, read) links to it, with what the user may do from there: open,
// edit, lock, never inject, forget (each through NoteActions, the one road the commands take).
import type { WorkspaceLeaf } from 'obsidian';
import type { ActivityEntry, ActivityResult } from '../../core/activity/record';
import { entryNotes, entrySummary, timeline, type TimelineDay, type TimelineSession } from '../../core/activity/timeline';
import { NoteActions } from '../note-actions';
import { errorMessage } from '../../core/errors';
import { TimeSlicer } from '../../core/time-slice';
import { count } from '../../core/plural';
import type { EngramApi, PaneContext } from './api';
import { RecordPane } from './record-pane';

export const VIEW_TYPE_ACTIVITY = 'engram-activity';

export const ACTIVITY_SPANS: ReadonlyArray<{ since: string; label: string }> = [
  { since: '1d', label: 'Today' },
  { since: '7d', label: '7 days' },
  { since: '30d', label: '30 days' },
  { since: '90d', label: '90 days' },
];

const CLIENTS: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex' };

/** Days drawn at first; older ones wait behind a button (months of sessions stay quick to open). */
const DAYS_SHOWN = 14;

const clock = (t: string) => t.slice(11, 16);
// One formatter for the pane: toLocaleString builds a new one per call (a week's figures took 10 ms of it).
const numbers = new Intl.NumberFormat('en-US');
const num = (n: number) => numbers.format(n);

export class ActivityView extends RecordPane<ActivityResult> {
  private since = '7d';
  private project: string | undefined;
  private agent: string | undefined;
  private daysShown = DAYS_SHOWN;
  /** Counts the pane's draws: older days still being appended stop when it is drawn again. */
  private drawing = 0;
  private readonly open = new Set<string>();
  /** Each opened session's entries in the span (the record is read as a summary: a session's entries when it opens). */
  private readonly loaded = new Map<string, Promise<ActivityEntry[]>>();
  private readonly actions: NoteActions;

  constructor(leaf: WorkspaceLeaf, ctx: PaneContext) {
    super(leaf, ctx, 'engram-activity');
    this.actions = new NoteActions(this.app, ctx);
  }

  getViewType(): string {
    return VIEW_TYPE_ACTIVITY;
  }

  getDisplayText(): string {
    return 'Engram activity';
  }

  getIcon(): string {
    return 'history';
  }

  protected fetchFigures(api: EngramApi): Promise<ActivityResult> {
    this.loaded.clear();
    return api.activity({ since: this.since, summary: true });
  }

  /** A session's entries in the span, read once per refresh. */
  private sessionEntries(session: string): Promise<ActivityEntry[]> {
    let p = this.loaded.get(session);
    if (!p) {
      const api = this.ctx.api();
      p = api ? api.activity({ session, since: this.since }).then((r) => r.entries) : Promise.resolve([]);
      this.loaded.set(session, p);
      p.catch(() => this.loaded.delete(session));
    }
    return p;
  }

  protected draw(hosted: boolean): void {
    const el = this.contentEl;
    el.empty();
    const top = el.createDiv({ cls: 'engram-act-top' });
    top.createEl('h4', { text: 'Engram activity' });
    const spans = top.createDiv({ cls: 'engram-act-spans', attr: { role: 'group', 'aria-label': 'Span' } });
    for (const s of ACTIVITY_SPANS) {
      const b = spans.createEl('button', { text: s.label, cls: 'engram-act-span', attr: { 'aria-pressed': String(s.since === this.since) } });
      if (s.since === this.since) b.addClass('is-active');
      b.addEventListener('click', () => {
        this.since = s.since;
        this.daysShown = DAYS_SHOWN;
        void this.refresh();
      });
    }
    if (!hosted) {
      el.createDiv({ cls: 'engram-act-empty', text: 'Engram is not hosting this vault yet. The activity appears once the engine has started.' });
      return;
    }
    if (this.problem || !this.data) {
      el.createDiv({ cls: 'engram-act-problem', text: this.problem || 'No activity yet.' });
      return;
    }
    const t = timeline(this.data, { project: this.project, agent: this.agent });
    const filters = top.createDiv({ cls: 'engram-act-filters' });
    this.select(filters, 'engram-act-project', 'Project', 'All projects', t.projects.map((p) => [p, p]), this.project, (v) => (this.project = v));
    this.select(filters, 'engram-act-client', 'Client', 'All clients', [...new Set([...Object.keys(CLIENTS), ...t.agents])].map((a) => [a, CLIENTS[a] ?? a]), this.agent, (v) => (this.agent = v));
    const list = el.createDiv({ cls: 'engram-act-days' });
    if (!t.days.length) {
      list.createDiv({ cls: 'engram-act-empty', text: this.project || this.agent ? 'Nothing for this filter in the span.' : 'Nothing recorded in the span.' });
      return;
    }
    const drawing = ++this.drawing;
    for (const d of t.days.slice(0, DAYS_SHOWN)) this.drawDay(list, d);
    // Older days the user asked for: drawn after the first screen, in time slices (months are hundreds of sessions).
    if (this.daysShown > DAYS_SHOWN) this.rendered = this.drawLater(list, t.days.slice(DAYS_SHOWN, this.daysShown), drawing);
    const left = t.days.length - this.daysShown;
    if (left > 0) {
      const more = list.createEl('button', { cls: 'engram-act-more', text: `Show ${left} older day${left === 1 ? '' : 's'}` });
      more.addEventListener('click', () => {
        more.remove();
        this.rendered = this.drawLater(list, t.days.slice(this.daysShown), drawing);
        this.daysShown = t.days.length;
      });
    }
  }

  /** Appends days to the list in the host's time slices, until the pane is drawn again. */
  private async drawLater(list: HTMLElement, days: TimelineDay[], drawing: number): Promise<void> {
    const ports = this.ctx.api()?.engine.ports;
    const slicer = ports ? new TimeSlicer(ports.clock, ports.yieldNow) : undefined;
    for (const d of days) {
      if (slicer?.due()) await slicer.yield();
      if (drawing !== this.drawing) return;
      this.drawDay(list, d);
    }
  }

  private select(parent: HTMLElement, cls: string, label: string, all: string, options: string[][], value: string | undefined, set: (v: string | undefined) => void): void {
    const sel = parent.createEl('select', { cls: `dropdown ${cls}`, attr: { 'aria-label': label } });
    sel.createEl('option', { text: all, value: '' });
    for (const [v, text] of options) sel.createEl('option', { text, value: v });
    sel.value = value ?? '';
    sel.addEventListener('change', () => {
      set(sel.value || undefined);
      this.draw(true);
    });
  }

  private drawDay(parent: HTMLElement, d: TimelineDay): void {
    const day = parent.createDiv({ cls: 'engram-act-day', attr: { 'data-day': d.day } });
    const head = day.createDiv({ cls: 'engram-act-day-head' });
    head.createSpan({ cls: 'engram-act-day-date', text: d.day });
    const bits = [count(d.sessions.length, 'session'), `~${num(d.totals.injectedTokens)} tokens injected`, `${d.totals.filed} filed`];
    if (d.totals.proposed) bits.push(`${d.totals.proposed} held`);
    if (d.totals.mcpCalls) bits.push(count(d.totals.mcpCalls, 'MCP call'));
    if (d.totals.failures) bits.push(`${d.totals.failures} failed`);
    head.createSpan({ cls: 'engram-act-day-figures', text: bits.join(' · ') });
    for (const s of d.sessions) this.drawSession(day, s);
    if (d.other.length) this.drawGroup(day, `other-${d.day}`, 'MCP requests and memory imports', count(d.other.length, 'entry', 'entries'), d.other, 'engram-act-other');
  }

  private drawSession(parent: HTMLElement, s: TimelineSession): void {
    const who = [s.project, s.agent ? (CLIENTS[s.agent] ?? s.agent) : undefined].filter(Boolean).join(' · ');
    const figures = [`${count(s.injectedNotes, 'note')} injected (~${num(s.injectedTokens)} tokens)`, `${s.filed} filed`];
    if (s.proposed) figures.push(`${s.proposed} held for review`);
    if (s.withheld) figures.push(`${s.withheld} withheld`);
    if (s.failures) figures.push(`${s.failures} failed`);
    this.drawGroup(parent, s.session, `${clock(s.first)}–${clock(s.last)}  ${s.session.slice(0, 8)}${who ? `  ${who}` : ''}`, figures.join(', '), s.entries ?? (() => this.sessionEntries(s.session)), 'engram-act-session');
  }

  /**
   * A collapsible group (a session, or a day's other entries); its entries are drawn when it opens (a session's are
   * read then: `aria-busy` while they are).
   */
  private drawGroup(parent: HTMLElement, key: string, title: string, figures: string, entries: ActivityEntry[] | (() => Promise<ActivityEntry[]>), cls: string): void {
    const box = parent.createDiv({ cls, attr: { 'data-session': key } });
    const head = box.createDiv({ cls: 'engram-act-group-head', attr: { role: 'button', tabindex: '0', 'aria-expanded': String(this.open.has(key)) } });
    head.createSpan({ cls: 'engram-act-group-title', text: title });
    head.createSpan({ cls: 'engram-act-group-figures', text: figures });
    const body = box.createDiv({ cls: 'engram-act-entries' });
    const draw = (list: ActivityEntry[]) => {
      body.empty();
      if (this.open.has(key)) for (const e of list) this.drawEntry(body, e);
    };
    const fill = () => {
      const open = this.open.has(key);
      head.setAttr('aria-expanded', String(open));
      box.toggleClass('is-open', open);
      if (!open || Array.isArray(entries)) {
        draw(Array.isArray(entries) ? entries : []);
        return;
      }
      body.empty();
      body.createDiv({ cls: 'engram-act-loading', text: 'Reading the session…' });
      box.setAttr('aria-busy', 'true');
      entries().then(
        (list) => draw(list),
        (e: unknown) => {
          body.empty();
          body.createDiv({ cls: 'engram-act-problem', text: `Could not read the session: ${errorMessage(e)}` });
        },
      ).finally(() => box.setAttr('aria-busy', 'false'));
    };
    const toggle = () => {
      if (this.open.has(key)) this.open.delete(key);
      else this.open.add(key);
      fill();
    };
    head.addEventListener('click', toggle);
    head.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        toggle();
      }
    });
    fill();
  }

  private drawEntry(parent: HTMLElement, e: ActivityEntry): void {
    const row = parent.createDiv({ cls: `engram-act-entry is-${e.kind}` });
    row.createSpan({ cls: 'engram-act-time', text: clock(e.t) });
    row.createSpan({ cls: 'engram-act-summary', text: entrySummary(e) });
    for (const n of entryNotes(e)) this.drawNote(row, n);
  }

  private drawNote(parent: HTMLElement, n: ReturnType<typeof entryNotes>[number]): void {
    const meta = this.ctx.api()?.engine.meta(n.path);
    const row = parent.createDiv({ cls: `engram-act-note is-${n.role}`, attr: { 'data-path': n.path } });
    row.createSpan({ cls: 'engram-act-role', text: n.role });
    // A team note a hook gave (team:<id>): in the team store, not the vault; nothing here to open.
    if (n.path.startsWith('team:')) {
      row.createSpan({ cls: 'engram-act-link', text: n.path });
      row.createSpan({ cls: 'engram-act-detail', text: n.detail });
      return;
    }
    const link = row.createEl('a', { cls: 'engram-act-link internal-link', text: meta?.title ?? n.path, attr: { href: '#', title: n.path } });
    link.addEventListener('click', (ev) => {
      ev.preventDefault();
      void this.app.workspace.openLinkText(n.path, '', false);
    });
    row.createSpan({ cls: 'engram-act-detail', text: n.detail });
    if (!meta) {
      row.createSpan({ cls: 'engram-act-gone', text: '(no longer in the vault)' });
      return;
    }
    const tools = row.createDiv({ cls: 'engram-act-tools' });
    const button = (text: string, cls: string, run: () => Promise<unknown>, pressed?: boolean) => {
      const b = tools.createEl('button', { text, cls: `engram-act-${cls}`, attr: pressed === undefined ? {} : { 'aria-pressed': String(pressed) } });
      b.addEventListener('click', () => {
        b.disabled = true;
        void run().finally(() => this.redrawNote(row, n));
      });
    };
    button('Open', 'open', () => this.app.workspace.openLinkText(n.path, '', false));
    button('Edit', 'edit', () => this.app.workspace.openLinkText(n.path, '', 'tab', { state: { mode: 'source' } }));
    button(meta.locked ? 'Unlock' : 'Lock', 'lock', () => this.actions.toggleLock(n.path), meta.locked);
    button(meta.noInject ? 'Allow injection' : 'Never inject', 'noinject', () => this.actions.toggleNoInject(n.path), meta.noInject === true);
    if (!meta.locked) button('Forget', 'forget', () => this.actions.forget(n.path));
  }

  /** Draws one note's row again after an action (its lock, injection or presence changed). */
  private redrawNote(row: HTMLElement, n: ReturnType<typeof entryNotes>[number]): void {
    const parent = row.parentElement;
    if (!parent) return;
    const holder = createDiv();
    this.drawNote(holder, n);
    const fresh = holder.firstElementChild;
    if (fresh) parent.replaceChild(fresh, row);
  }
}
