// The restructure pane: merge, hub and split proposals from the engine's restructure plan, each with a diff of what it
// would write, the notes it removes and the links it rewrites; apply, skip, or lock a note so it is never proposed
// again. A proposal whose notes changed since the plan is never applied: the pane plans again and says so.
import { ItemView, type WorkspaceLeaf } from 'obsidian';
import type { Proposal } from '../../core/curate/proposals';
import type { RestructurePlanResult } from '../../core/curate/service';
import { errorMessage } from '../../core/errors';
import { sha256Hex } from '../../core/hash';
import { renderDiff, type DiffMode } from './diff-render';
import type { EngramApi, PaneContext } from './api';
import { count } from '../../core/plural';

export const VIEW_TYPE_RESTRUCTURE = 'engram-restructure';

const KIND_LABEL: Record<string, string> = { merge: 'Merge', split: 'Split', hub: 'Hub note' };

type Status = 'waiting' | 'planning' | 'ready' | 'failed';

export class RestructureView extends ItemView {
  private status: Status = 'waiting';
  private plan: RestructurePlanResult | null = null;
  /** Each source note's text as read after the plan (the "before" of the diffs). */
  private texts = new Map<string, string>();
  private message: { text: string; warn: boolean } | null = null;
  private mode: DiffMode = 'unified';
  /** Proposal ids skipped in this pane (an id stays the same while its notes do). */
  private readonly skipped = new Set<string>();
  private openId: string | null = null;
  /** `id\0path` of the diffs the user asked to see in full past the size guard. */
  private readonly fullDiffs = new Set<string>();
  private busy = false;
  /** Counts plans started: an answer to an older one (hosting stopped, or a newer plan began) is dropped. */
  private generation = 0;

  constructor(leaf: WorkspaceLeaf, private readonly ctx: PaneContext) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE_RESTRUCTURE;
  }

  getDisplayText(): string {
    return 'Restructure';
  }

  getIcon(): string {
    return 'git-merge';
  }

  async onOpen(): Promise<void> {
    this.contentEl.addClass('engram-restructure');
    this.register(this.ctx.onChange(() => this.onContextChange()));
    await this.replan();
  }

  /** Hosting started or stopped: plan once the API is here; a vault change alone waits for the user's refresh. */
  private onContextChange(): void {
    if (!this.ctx.api()) {
      this.generation++;
      this.status = 'waiting';
      this.plan = null;
      this.render();
    } else if (this.status === 'waiting') {
      void this.replan();
    }
  }

  private async replan(message?: { text: string; warn: boolean } | null): Promise<void> {
    const api = this.ctx.api();
    if (message !== undefined) this.message = message;
    if (!api) {
      this.status = 'waiting';
      this.render();
      return;
    }
    this.status = 'planning';
    this.render();
    const mine = ++this.generation;
    try {
      const plan = await api.restructurePlan();
      const texts = await this.readSources(api, plan.proposals);
      if (mine !== this.generation || !this.ctx.api()) return;
      this.plan = plan;
      this.texts = texts;
      this.status = 'ready';
      const visible = this.visible();
      if (!visible.some((p) => p.id === this.openId)) this.openId = visible[0]?.id ?? null;
    } catch (e) {
      if (mine !== this.generation) return;
      this.status = 'failed';
      this.message = { text: `Could not plan: ${errorMessage(e)}`, warn: true };
    }
    this.render();
  }

  private async readSources(api: EngramApi, proposals: Proposal[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const p of proposals) {
      for (const s of p.sources) {
        if (out.has(s.path)) continue;
        const text = await api.engine.ports.vault.read(s.path).then((f) => f.text, () => null);
        if (text !== null) out.set(s.path, text);
      }
    }
    return out;
  }

  private visible(): Proposal[] {
    return (this.plan?.proposals ?? []).filter((p) => !this.skipped.has(p.id));
  }

  /** The first source of `p` that is not as it was when planned, or null. */
  private async changedSource(api: EngramApi, p: Proposal): Promise<string | null> {
    for (const s of p.sources) {
      const text = await api.engine.ports.vault.read(s.path).then((f) => f.text, () => null);
      if (text === null || sha256Hex(text) !== s.hash) return s.path;
    }
    return null;
  }

  /** Rejected for good: not proposed again until one of its notes changes (remembered by the engine). */
  private async reject(p: Proposal): Promise<void> {
    const api = this.ctx.api();
    if (!api || this.busy) return;
    try {
      await api.reject([p.id]);
      this.skipped.add(p.id);
      if (this.openId === p.id) this.openId = this.visible()[0]?.id ?? null;
      this.message = { text: `Rejected: ${p.title}. It is not proposed again unless one of its notes changes.`, warn: false };
    } catch (e) {
      this.message = { text: `Could not reject: ${errorMessage(e)}`, warn: true };
    }
    this.render();
  }

  private async apply(p: Proposal): Promise<void> {
    const api = this.ctx.api();
    if (!api || this.busy) return;
    this.busy = true;
    try {
      const changed = await this.changedSource(api, p);
      if (changed !== null) {
        await this.replan({ text: `${changed} changed since the plan, so nothing was applied. The proposals were refreshed: check them again.`, warn: true });
        return;
      }
      const [outcome] = await api.apply([p.id]);
      if (outcome?.ok && outcome.result) {
        const r = outcome.result;
        const links = r.relinked.length ? `; links rewritten in ${r.relinked.length} ${r.relinked.length === 1 ? 'note' : 'notes'}` : '';
        await this.replan({ text: `Applied: ${r.title}${links}.`, warn: false });
      } else {
        // Refused (stale: a note changed between the check above and the apply; or a note now exists where it would
        // write): the vault is unchanged, and a fresh plan replaces the proposal. The CLI's hint does not apply here.
        const why = (outcome?.error ?? 'no answer').replace(/ \(run the dry run again[^)]*\)$/, '');
        await this.replan({ text: `Not applied: ${why}. The proposals were refreshed.`, warn: true });
      }
    } catch (e) {
      this.message = { text: `Not applied: ${errorMessage(e)}`, warn: true };
      this.render();
    } finally {
      this.busy = false;
    }
  }

  private async lock(path: string): Promise<void> {
    const api = this.ctx.api();
    if (!api || this.busy) return;
    this.busy = true;
    try {
      await api.setFrontmatter(path, { locked: true });
      await this.replan({ text: `Locked ${path}: it will not be proposed again.`, warn: false });
    } catch (e) {
      this.message = { text: `Could not lock ${path}: ${errorMessage(e)}`, warn: true };
      this.render();
    } finally {
      this.busy = false;
    }
  }

  /** Redraws the pane; the button that had the focus (by its data-focus key) gets it back, so the keyboard stays in place. */
  private render(): void {
    const el = this.contentEl;
    const focused = el.ownerDocument.activeElement;
    const key = focused instanceof HTMLElement && el.contains(focused) ? focused.getAttribute('data-focus') : null;
    this.draw(el);
    if (key) el.querySelector<HTMLElement>(`[data-focus="${key}"]`)?.focus();
  }

  private draw(el: HTMLElement): void {
    el.empty();
    const head = el.createDiv({ cls: 'engram-restructure-head' });
    head.createEl('h4', { text: 'Restructure' });
    const bar = head.createDiv({ cls: 'engram-restructure-toolbar' });
    const refresh = bar.createEl('button', { text: 'Refresh', cls: 'engram-restructure-refresh', attr: { 'data-focus': 'refresh' } });
    refresh.disabled = this.status === 'planning' || this.status === 'waiting';
    refresh.addEventListener('click', () => void this.replan(null));
    const modes = bar.createDiv({ cls: 'engram-restructure-modes', attr: { role: 'group', 'aria-label': 'Diff layout' } });
    for (const [mode, label] of [['unified', 'Unified'], ['side-by-side', 'Side by side']] as const) {
      const b = modes.createEl('button', { text: label, attr: { 'aria-pressed': String(this.mode === mode), 'data-focus': `mode-${mode}` } });
      b.toggleClass('is-active', this.mode === mode);
      b.addEventListener('click', () => {
        this.mode = mode;
        this.render();
      });
    }
    if (this.message) el.createDiv({ cls: `engram-restructure-message${this.message.warn ? ' is-warning' : ''}`, text: this.message.text, attr: { role: 'status' } });

    if (this.status === 'waiting') {
      el.createDiv({ cls: 'engram-restructure-empty', text: 'Waiting for Engram to host this vault (it starts once Obsidian has loaded, or a daemon hosts it).' });
      return;
    }
    if (this.status === 'planning') {
      el.createDiv({ cls: 'engram-restructure-empty', text: 'Looking for notes to merge and split…' });
      return;
    }
    if (!this.plan) return;
    const plan = this.plan;
    el.createDiv({ cls: 'engram-restructure-summary', text: `${count(plan.notesConsidered, 'note')} considered, ${count(plan.pairsCompared, 'pair')} compared (${plan.vectors}). Nothing changes until you apply a proposal.` });
    const visible = this.visible();
    if (this.skipped.size) {
      const row = el.createDiv({ cls: 'engram-restructure-skipped' });
      row.createSpan({ text: `${this.skipped.size} skipped` });
      row.createEl('button', { text: 'Show skipped' }).addEventListener('click', () => {
        this.skipped.clear();
        this.render();
      });
    }
    if (visible.length === 0) {
      el.createDiv({
        cls: 'engram-restructure-empty',
        text: 'No notes to merge or split. Merges are proposed for notes that say the same thing and share a tag or link; splits for large notes with several sections.',
      });
      return;
    }
    const list = el.createDiv({ cls: 'engram-restructure-list' });
    for (const p of visible) this.card(list, p);
  }

  private card(parent: HTMLElement, p: Proposal): void {
    const open = p.id === this.openId;
    const card = parent.createDiv({ cls: 'engram-restructure-card', attr: { 'data-id': p.id, 'data-kind': p.kind } });
    card.toggleClass('is-open', open);
    const head = card.createEl('button', { cls: 'engram-restructure-card-head', attr: { 'aria-expanded': String(open), 'data-focus': `head-${p.id}` } });
    head.createSpan({ cls: 'engram-restructure-kind', text: KIND_LABEL[p.kind] ?? p.kind });
    head.createSpan({ cls: 'engram-restructure-title', text: p.title });
    head.addEventListener('click', () => {
      this.openId = open ? null : p.id;
      this.render();
    });
    card.createDiv({ cls: 'engram-restructure-reason', text: p.reason });
    if (!open) return;

    const body = card.createDiv({ cls: 'engram-restructure-body' });
    const notes = body.createDiv({ cls: 'engram-restructure-sources' });
    notes.createDiv({ cls: 'engram-restructure-label', text: p.sources.length === 1 ? 'Note' : 'Notes' });
    for (const s of p.sources) {
      const row = notes.createDiv({ cls: 'engram-restructure-source' });
      row.createSpan({ cls: 'engram-restructure-path', text: s.path });
      const lock = row.createEl('button', { text: 'Lock', attr: { 'aria-label': `Lock ${s.path} so it is never proposed again` } });
      lock.addEventListener('click', () => void this.lock(s.path));
    }

    const trashed = new Set(p.trash);
    for (const w of p.writes) {
      const file = body.createDiv({ cls: 'engram-restructure-file', attr: { 'data-path': w.path } });
      const before = this.texts.get(w.path);
      const label = before === undefined ? 'new note' : trashed.has(w.path) ? 'rewritten (the old text goes to the trash)' : 'rewritten';
      const title = file.createDiv({ cls: 'engram-restructure-file-head' });
      title.createSpan({ cls: 'engram-restructure-path', text: w.path });
      title.createSpan({ cls: 'engram-restructure-file-kind', text: label });
      const key = `${p.id}\0${w.path}`;
      renderDiff(file, before ?? '', w.text, {
        mode: this.mode,
        full: this.fullDiffs.has(key),
        onShowFull: () => {
          this.fullDiffs.add(key);
          this.render();
        },
      });
    }

    const written = new Set(p.writes.map((w) => w.path));
    const gone = p.trash.filter((t) => !written.has(t));
    if (gone.length) {
      const t = body.createDiv({ cls: 'engram-restructure-trash' });
      t.createDiv({ cls: 'engram-restructure-label', text: 'Moved to the trash' });
      for (const g of gone) t.createDiv({ cls: 'engram-restructure-path', text: g });
    }

    const links = body.createDiv({ cls: 'engram-restructure-links' });
    const count = p.linkRewrites.reduce((n, r) => n + r.edits.length, 0);
    links.createDiv({ cls: 'engram-restructure-label', text: count ? `Links rewritten: ${count} in ${p.linkRewrites.length} ${p.linkRewrites.length === 1 ? 'note' : 'notes'}` : 'No links to rewrite in other notes' });
    for (const r of p.linkRewrites) {
      const f = links.createDiv({ cls: 'engram-restructure-link-file' });
      f.createDiv({ cls: 'engram-restructure-path', text: r.path });
      for (const e of r.edits) {
        const row = f.createDiv({ cls: 'engram-restructure-link' });
        row.createEl('code', { text: e.before });
        row.createSpan({ text: ' → ' });
        row.createEl('code', { text: e.after });
      }
    }
    if (p.redirect) links.createDiv({ cls: 'engram-restructure-hint', text: 'Links are checked again when you apply, so links added since the plan follow too.' });

    const actions = body.createDiv({ cls: 'engram-restructure-actions' });
    const apply = actions.createEl('button', { text: 'Apply', cls: 'mod-cta' });
    apply.disabled = this.busy;
    apply.addEventListener('click', () => void this.apply(p));
    actions.createEl('button', { text: 'Reject' }).addEventListener('click', () => void this.reject(p));
    actions.createEl('button', { text: 'Skip' }).addEventListener('click', () => {
      this.skipped.add(p.id);
      if (this.openId === p.id) this.openId = this.visible()[0]?.id ?? null;
      this.render();
    });
  }
}
