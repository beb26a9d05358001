// The working-memory review pane: the notes due within a chosen horizon, grouped by project and cluster, with
// curation's proposals (promote, extend, delete) to approve (with the promotion's text edited first, if wanted) or
// reject, one by one or in batch, by mouse or keyboard. Every change goes through the engine's API on the user's click.
// A plan may ask a model once per group of notes: the pane plans when opened, when the horizon changes and on Refresh,
// and after an approval drops what was applied instead of asking the model about every remaining group again.
// Above the list, notes holding text addressed to an AI (issue 32): what was found and where, with Open and Mark as
// mine (`engram_trust: user`, written only on that click).
import { ItemView, MarkdownRenderer, type WorkspaceLeaf } from 'obsidian';
import type { Proposal } from '../../core/curate/proposals';
import type { ProposalEdit, ReviewPlanResult } from '../../core/curate/service';
import type { EngramApi, PaneContext } from './api';
import type { ConflictChoice, SyncConflict } from '../../core/curate/conflicts';
import { FlaggedSection } from './review-flagged';
import { clusterSteps, orderedSections, renderConflicts, renderEmpty, renderItem, type ReviewItemHost } from './review-items';
import { drawTeamBox } from './team-review';

export const VIEW_TYPE_REVIEW = 'engram-review';

/** The horizons offered: due today, within a week, within a month. */
export const REVIEW_HORIZONS: ReadonlyArray<{ days: number; label: string }> = [
  { days: 0, label: 'Due today' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
];

/** Items drawn per turn (about a screenful). */
const DRAW_CHUNK = 20;

export class ReviewView extends ItemView {
  private horizon = 7;
  private plan: ReviewPlanResult | null = null;
  private status = '';
  private busy = false;
  private readonly selected = new Set<string>();
  /** Rejected this session: hidden until the pane is opened again (the plan proposes them again later). */
  private readonly rejected = new Set<string>();
  private readonly edits = new Map<string, string>();
  private focused = 0;
  /** Whether the last draw had the API (hosting starting or stopping plans again). */
  private hosted = false;
  private unsubscribe?: () => void;
  /** Resolves when the pane has planned and drawn its first screenful. */
  rendered: Promise<void> = Promise.resolve();
  /** Resolves when every item of the latest draw is in the DOM. */
  drawn: Promise<void> = Promise.resolve();
  private generation = 0;
  private statusEl?: HTMLElement;
  /** Notes holding text addressed to an AI, above the list (review-flagged.ts). */
  private readonly flagged = new FlaggedSection({ open: (path) => void this.app.workspace.openLinkText(path, '', false), say: (text) => this.setStatus(text) });
  /** Resolves when the flagged notes are read and drawn. */
  flaggedShown: Promise<void> = Promise.resolve();

  constructor(leaf: WorkspaceLeaf, private readonly ctx: PaneContext) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE_REVIEW;
  }

  getDisplayText(): string {
    return 'Working-memory review';
  }

  getIcon(): string {
    return 'list-checks';
  }

  async onOpen(): Promise<void> {
    this.contentEl.addClass('engram-review-view');
    this.registerDomEvent(this.contentEl, 'keydown', (e) => this.onKey(e));
    // Vault changes do not re-plan (a plan may ask the model again); a stale proposal is refused when applied.
    this.unsubscribe = this.ctx.onChange(() => {
      if (!this.busy && (this.ctx.api() !== undefined) !== this.hosted) void this.refresh();
    });
    await this.refresh();
  }

  onClose(): Promise<void> {
    this.unsubscribe?.();
    return Promise.resolve();
  }

  /** Plans again (the proposals as the vault is now) and redraws. */
  refresh(): Promise<void> {
    this.rendered = this.loadPlan();
    return this.rendered;
  }

  private async loadPlan(): Promise<void> {
    const api = this.ctx.api();
    this.hosted = api !== undefined;
    if (!api) {
      this.plan = null;
      this.draw(undefined);
      return;
    }
    // Read beside the plan (a first read of a large vault takes a moment), drawn into its own box when ready.
    this.flaggedShown = this.flagged.load(api);
    // A plan reads the vault and may ask the model about each group of notes: say so while it runs.
    const loading = this.contentEl.createDiv({ cls: 'engram-review-loading', text: 'Planning the review…' });
    try {
      this.plan = await api.reviewPlan({ dueWithinDays: this.horizon });
    } catch (e) {
      this.plan = null;
      this.status = `Could not plan the review: ${(e as Error).message}`;
    }
    const live = new Set(this.plan?.proposals.map((p) => p.id) ?? []);
    for (const id of [...this.selected]) if (!live.has(id)) this.selected.delete(id);
    for (const id of [...this.edits.keys()]) if (!live.has(id)) this.edits.delete(id);
    loading.remove();
    this.draw(api);
  }

  private visible(): Proposal[] {
    return this.plan?.proposals.filter((p) => !this.rejected.has(p.id)) ?? [];
  }

  private itemHost(api: EngramApi): ReviewItemHost {
    const host: ReviewItemHost = {
      meta: (path) => api.engine.meta(path),
      now: api.engine.ports.clock.now(),
      isSelected: (id) => this.selected.has(id),
      editedText: (id) => this.edits.get(id),
      toggleSelected: (id, on) => {
        if (on) this.selected.add(id);
        else this.selected.delete(id);
        this.updateCounts();
      },
      approve: (p) => void this.approve([p]),
      startEdit: (p) => {
        this.edits.set(p.id, p.writes.find((w) => !w.replaces)?.text ?? '');
        // Only this item is drawn again, so the list keeps its scroll position.
        const old = this.itemEl(p.id);
        if (!old) return;
        const fresh = renderItem(createDiv(), p, host);
        fresh.setAttr('tabindex', old.getAttr('tabindex') ?? '-1');
        old.replaceWith(fresh);
        fresh.querySelector('textarea')?.focus();
      },
      editText: (id, text) => this.edits.set(id, text),
      renderMarkdown: (el, markdown, sourcePath) => void MarkdownRenderer.render(this.app, markdown, el, sourcePath, this),
      reject: (p) => {
        this.rejected.add(p.id);
        this.selected.delete(p.id);
        if (p.kind === 'capture') {
          // A held beat that is rejected is dropped for good: nothing was written, and nothing will be.
          void api.reject([p.id]).then(
            () => this.setStatus(`Discarded: ${p.title}. Nothing was written.`),
            (e: Error) => this.setStatus(`Could not discard ${p.title}: ${e.message}`),
          );
        } else this.setStatus(`Rejected: ${p.title}. Nothing changed; it will be proposed again at a later review.`);
        this.removeItems([p.id]);
      },
      open: (path) => void this.app.workspace.openLinkText(path, '', false),
    };
    return host;
  }

  private itemEl(id: string): HTMLElement | undefined {
    return this.items().find((el) => el.dataset.id === id);
  }

  private setStatus(text: string): void {
    this.status = text;
    this.statusEl?.setText(text);
  }

  /** Takes items out of the list in place (keeping the scroll position), or draws the empty state when none is left. */
  private removeItems(ids: string[]): void {
    const before = this.items();
    const next = before.slice(this.focused + 1).find((el) => !ids.includes(el.dataset.id ?? ''));
    for (const id of ids) {
      const el = this.itemEl(id);
      const cluster = el?.parentElement;
      el?.remove();
      if (cluster && !cluster.querySelector('.engram-review-item')) {
        const section = cluster.parentElement;
        cluster.remove();
        if (section && !section.querySelector('.engram-review-item')) section.remove();
      }
    }
    const all = this.items();
    if (!all.length) {
      this.draw(this.ctx.api());
      return;
    }
    this.focused = next ? all.indexOf(next) : all.length - 1;
    for (const [i, el] of all.entries()) el.setAttr('tabindex', i === this.focused ? '0' : '-1');
    this.updateCounts();
  }

  private draw(api: EngramApi | undefined): void {
    this.generation++;
    this.drawn = Promise.resolve();
    const el = this.contentEl;
    el.empty();
    this.drawBar(el, api);
    this.statusEl = el.createDiv({ cls: 'engram-review-status', text: this.status, attr: { role: 'status' } });
    this.flagged.attach(el.createDiv({ cls: 'engram-review-flagged-box' }), api);
    if (api?.team) void drawTeamBox(el.createDiv({ cls: 'engram-review-team-box' }), api.team, (p) => void this.app.workspace.openLinkText(p, ''));
    if (!api) {
      el.createDiv({ cls: 'engram-review-empty', text: 'Engram is not hosting this vault yet. The review appears once the engine has started.' });
      return;
    }
    renderConflicts(el, this.plan?.conflicts ?? [], { resolve: (c, choice) => void this.resolve(api, c, choice), open: (path) => void this.app.workspace.openLinkText(path, '', false) });
    const items = this.visible();
    if (!items.length && this.plan?.due.length) {
      const n = this.plan.due.length;
      el.createDiv({ cls: 'engram-review-empty', text: `Nothing left to decide: the ${n} note${n === 1 ? '' : 's'} still due ${n === 1 ? 'was' : 'were'} rejected for now. Refresh plans ${n === 1 ? 'it' : 'them'} again.` });
      return;
    }
    if (!items.length) {
      renderEmpty(el, REVIEW_HORIZONS.find((h) => h.days === this.horizon)?.label.toLowerCase() ?? `${this.horizon} days`, this.horizon);
      return;
    }
    const batch = el.createDiv({ cls: 'engram-review-batch' });
    batch.createSpan({ cls: 'engram-review-count' });
    this.updateCounts();
    batch.createEl('button', { cls: 'engram-review-approve-selected', text: 'Approve selected' }).addEventListener('click', () => {
      void this.approve(this.visible().filter((p) => this.selected.has(p.id)));
    });
    this.updateCounts();
    for (const problem of this.plan!.problems) el.createDiv({ cls: 'engram-review-problem', text: problem });
    const host = this.itemHost(api);
    const list = el.createDiv({ cls: 'engram-review-list', attr: { role: 'list' } });
    this.drawn = this.drawInTurns(clusterSteps(list, orderedSections(this.plan!, (path) => api.engine.meta(path), this.rejected), host));
  }

  /** The heading, the horizons and Refresh. */
  private drawBar(el: HTMLElement, api: EngramApi | undefined): void {
    const bar = el.createDiv({ cls: 'engram-review-bar' });
    bar.createEl('h4', { cls: 'engram-review-heading', text: 'Working-memory review' });
    const horizons = bar.createDiv({ cls: 'engram-review-horizons', attr: { role: 'group', 'aria-label': 'Due within' } });
    for (const h of REVIEW_HORIZONS) {
      const b = horizons.createEl('button', { text: h.label, cls: 'engram-review-horizon', attr: { 'aria-pressed': String(h.days === this.horizon) } });
      if (h.days === this.horizon) b.addClass('is-active');
      b.addEventListener('click', () => {
        this.horizon = h.days;
        this.status = '';
        void this.refresh();
      });
    }
    if (api) {
      const again = bar.createEl('button', { cls: 'engram-review-refresh', text: 'Refresh', attr: { 'aria-label': 'Plan the review again' } });
      again.addEventListener('click', () => {
        this.status = '';
        void this.refresh();
      });
    }
  }

  /**
   * Clusters are drawn a screenful at a time, the rest in later turns: hundreds of due notes never block the UI.
   * Resolves when all are drawn, or when a newer draw took over.
   */
  private drawInTurns(steps: Array<() => number>): Promise<void> {
    const generation = this.generation;
    return new Promise<void>((resolve) => {
      const chunk = () => {
        if (generation !== this.generation) return resolve();
        for (let n = 0; n < DRAW_CHUNK && steps.length; ) n += steps.shift()!();
        const all = this.items();
        this.focused = Math.min(this.focused, all.length - 1);
        all[this.focused]?.setAttr('tabindex', '0');
        if (steps.length) window.setTimeout(chunk, 0);
        else resolve();
      };
      chunk();
    });
  }

  private items(): HTMLElement[] {
    return Array.from(this.contentEl.querySelectorAll<HTMLElement>('.engram-review-item:not(.engram-review-conflict)'));
  }

  /** Applies one choice for a sync conflict, then takes the conflict out of the list. */
  private async resolve(api: EngramApi, c: SyncConflict, choice: ConflictChoice): Promise<void> {
    const p = c.proposals[choice];
    if (!p || this.busy) return;
    this.busy = true;
    try {
      const [outcome] = await api.apply([p.id]);
      if (!outcome?.ok) {
        this.setStatus(`Not applied: ${outcome?.error ?? p.id}`);
        return;
      }
      this.setStatus(`Resolved ${c.original}: ${choice === 'mine' ? 'kept mine' : choice === 'theirs' ? 'kept theirs' : 'merged both'}; ${c.path} is in the trash.`);
      if (this.plan) this.plan = { ...this.plan, conflicts: this.plan.conflicts.filter((x) => x.path !== c.path) };
      const el = Array.from(this.contentEl.querySelectorAll<HTMLElement>('.engram-review-conflict')).find((x) => x.dataset.path === c.path);
      const box = el?.parentElement;
      el?.remove();
      if (box && !box.querySelector('.engram-review-conflict')) box.remove();
      else box?.querySelector('h5')?.setText(`Sync conflicts (${this.plan?.conflicts.length ?? 0})`);
    } catch (e) {
      this.setStatus(`Could not resolve: ${(e as Error).message}`);
    } finally {
      this.busy = false;
      this.updateCounts();
    }
  }

  /** The counts line and the batch button, as the plan and the selection are now. */
  private updateCounts(): void {
    const due = this.plan?.due.length ?? 0;
    const shown = this.visible().length;
    this.contentEl.querySelector('.engram-review-count')?.setText(`${due} note${due === 1 ? '' : 's'} due, ${shown} proposal${shown === 1 ? '' : 's'}`);
    const b = this.contentEl.querySelector<HTMLButtonElement>('.engram-review-approve-selected');
    if (!b) return;
    const n = this.visible().filter((p) => this.selected.has(p.id)).length;
    b.disabled = n === 0 || this.busy;
    b.setText(n ? `Approve selected (${n})` : 'Approve selected');
  }

  /** Applies the proposals (with the user's text where edited), then plans again. */
  private async approve(ps: Proposal[]): Promise<void> {
    const api = this.ctx.api();
    if (!api || !ps.length || this.busy) return;
    this.busy = true;
    const edits: ProposalEdit[] = [];
    for (const p of ps) {
      const text = this.edits.get(p.id);
      const w = p.writes.find((x) => !x.replaces);
      if (text !== undefined && w && text !== w.text) edits.push({ id: p.id, path: w.path, text });
    }
    try {
      const outcomes = await api.apply(ps.map((p) => p.id), edits);
      const failed = outcomes.filter((o) => !o.ok);
      const done = outcomes.length - failed.length;
      this.setStatus([done ? `Applied ${done} proposal${done === 1 ? '' : 's'}.` : '', ...failed.map((o) => `Not applied: ${o.error ?? o.id}`)].filter(Boolean).join(' '));
      const hadFocus = this.contentEl.contains(document.activeElement);
      this.removeItems(this.dropApplied(ps.filter((p) => outcomes.some((o) => o.ok && o.id === p.id))));
      if (hadFocus) this.items()[this.focused]?.focus();
    } catch (e) {
      this.setStatus(`Could not apply: ${(e as Error).message}`);
    } finally {
      this.busy = false;
      this.updateCounts();
    }
  }

  /** Extends or deletes the item's notes: its own proposal when it proposes that, else a proposal made for them now. */
  private async instead(p: Proposal, action: 'extend' | 'delete'): Promise<void> {
    if (p.kind === action) return this.approve([p]);
    const api = this.ctx.api();
    if (!api || this.busy) return;
    let chosen: Proposal;
    try {
      chosen = await api.proposeReview(p.sources.map((s) => s.path), action);
    } catch (e) {
      this.setStatus(`Could not ${action}: ${(e as Error).message}`);
      return;
    }
    // The plan's own proposal for these notes goes with them once the chosen one is applied (dropApplied).
    await this.approve([{ ...chosen, sources: p.sources }]);
  }

  /** Takes applied proposals out of the plan, with any other proposal about the same notes (now stale); returns their ids. */
  private dropApplied(applied: Proposal[]): string[] {
    if (!this.plan || !applied.length) return [];
    const gone = new Set(applied.flatMap((p) => p.sources.map((s) => s.path)));
    const dropped = this.plan.proposals.filter((p) => p.sources.some((s) => gone.has(s.path))).map((p) => p.id);
    const proposals = this.plan.proposals.filter((p) => !dropped.includes(p.id));
    for (const p of applied) {
      this.selected.delete(p.id);
      this.edits.delete(p.id);
    }
    this.plan = { ...this.plan, proposals, due: this.plan.due.filter((d) => !gone.has(d.path)), groups: this.plan.groups.map((g) => g.filter((x) => !gone.has(x))).filter((g) => g.length) };
    return dropped;
  }

  private onKey(e: KeyboardEvent): void {
    const t = e.target as HTMLElement;
    if (t.closest('textarea, input[type="text"]') || e.metaKey || e.ctrlKey || e.altKey) return;
    const all = this.items();
    if (!all.length) return;
    const current = t.closest<HTMLElement>('.engram-review-item');
    if (current) this.focused = Math.max(0, all.indexOf(current));
    const p = this.visible().find((x) => x.id === all[this.focused]?.dataset.id);
    const move = (to: number) => {
      all[this.focused]?.setAttr('tabindex', '-1');
      this.focused = Math.max(0, Math.min(all.length - 1, to));
      all[this.focused].setAttr('tabindex', '0');
      all[this.focused].focus();
      all[this.focused].scrollIntoView({ block: 'nearest' });
    };
    const key = e.key;
    if (key === 'ArrowDown' || key === 'ArrowUp') move(current ? this.focused + (key === 'ArrowDown' ? 1 : -1) : this.focused);
    else if (key === 'Enter' && current === t && p) void this.app.workspace.openLinkText(p.sources[0].path, '', false);
    else if (key === 'a' && p) void this.approve([p]);
    else if ((key === 'e' || key === 'd') && p) void this.instead(p, key === 'e' ? 'extend' : 'delete');
    else return;
    e.preventDefault();
  }
}
