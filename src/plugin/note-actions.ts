// What the commands and the file and editor menus do to notes: merge, split, lock, working memory, file a selection
// as memory, reindex, status. Each goes through the panes' API (the engine's typed operations); a merge or split is
// previewed and written only on the user's "Apply"; where it cannot act it says why in a notice and changes nothing.
import { Notice, type App } from 'obsidian';
import { errorMessage, isEngramError } from '../core/errors';
import type { Proposal } from '../core/curate/proposals';
import { isoDate } from '../core/day';
import { DEFAULT_REVIEW_DAYS } from '../core/extract/note-writer';
import { loadVocabulary } from '../core/note/vocabulary';
import type { EngramApi, PaneContext } from './views/api';
import { chooseBeatType } from './modals/beat-type-modal';
import { pickNotes } from './modals/note-picker-modal';
import { confirmProposal } from './modals/proposal-preview-modal';
import { StatusModal } from './modals/status-modal';
import { count } from '../core/plural';

export const NOT_HOSTED = 'Engram is not hosting this vault yet (it is starting, or the Engram daemon hosts it); try again in a moment.';

/** How often the reindex notice counts the notes read so far. */
const PROGRESS_MS = 250;

function tell(message: string, ms?: number): Notice {
  return new Notice(message, ms);
}

/** An engine refusal as the user reads it (its hint, when there is one, says what to do). */
function why(e: unknown): string {
  if (!isEngramError(e)) throw e;
  return `${errorMessage(e)}${e.hint ? ` (${e.hint})` : ''}`;
}

/** What the plugin knows that the panes' API does not. */
export interface PluginFacts {
  /** The host's own account of its state (the status bar's tooltip). */
  hostText?: () => string;
  /** Days until a note made working memory is due (the `review_after_days` setting). */
  reviewDays?: () => number | undefined;
}

export class NoteActions {
  constructor(
    private readonly app: App,
    private readonly ctx: PaneContext,
    private readonly plugin: PluginFacts = {},
  ) {}

  /** The API while hosted; otherwise says so. */
  private hosted(): EngramApi | undefined {
    const api = this.ctx.api();
    if (!api) tell(NOT_HOSTED);
    return api;
  }

  isLocked(path: string): boolean {
    return this.ctx.api()?.engine.meta(path)?.locked ?? false;
  }

  private refuseLocked(api: EngramApi, path: string, what: string): boolean {
    if (!api.engine.meta(path)?.locked) return false;
    tell(`${path} is locked: Engram does not ${what} it. Unlock it first.`);
    return true;
  }

  /** Opens the picker (with `initial` chosen), then previews and applies the merge. */
  async pickAndMerge(initial: string[]): Promise<void> {
    if (!this.hosted()) return;
    const all = this.app.vault.getMarkdownFiles().map((f) => f.path).sort();
    const chosen = await pickNotes(this.app, all, initial);
    if (chosen) await this.merge(chosen);
  }

  async merge(paths: string[]): Promise<void> {
    const api = this.hosted();
    if (!api) return;
    if (new Set(paths).size < 2) {
      tell('Choose two or more notes to merge.');
      return;
    }
    await this.previewAndApply('merge', () => api.proposeMerge(paths), api);
  }

  async split(path: string): Promise<void> {
    const api = this.hosted();
    if (!api || this.refuseLocked(api, path, 'split')) return;
    await this.previewAndApply('split', () => api.proposeSplit(path), api);
  }

  private async previewAndApply(verb: 'merge' | 'split', propose: () => Promise<Proposal>, api: EngramApi): Promise<void> {
    let proposal: Proposal;
    // A proposal reads the whole vault for exact texts and links (a few hundred ms on 13,000 notes): say so meanwhile.
    const preparing = tell(`Preparing the ${verb} preview…`, 0);
    try {
      proposal = await propose();
    } catch (e) {
      tell(`Engram cannot ${verb} this: ${why(e)}`);
      return;
    } finally {
      preparing.hide();
    }
    if (!(await confirmProposal(this.app, proposal, verb))) return;
    const [outcome] = await api.apply([proposal.id]);
    if (!outcome?.ok) {
      tell(`Engram did not ${verb}: ${outcome?.error ?? 'no answer'}`);
      return;
    }
    const written = proposal.writes.map((w) => w.path);
    tell(verb === 'merge' ? `Merged ${count(proposal.sources.length, 'note')} into ${written[0]}.` : `Split ${written[0]} into ${count(written.length - 1, 'note')}.`);
  }

  async toggleLock(path: string): Promise<void> {
    const api = this.hosted();
    if (!api) return;
    const locked = this.isLocked(path);
    // `cb_lock` is the older spelling the note layer still reads; unlocking clears both.
    if (await this.edit(api, path, locked ? { locked: null, cb_lock: null } : { locked: true })) {
      tell(locked ? `Unlocked ${path}: curation may propose changes to it again.` : `Locked ${path}: curation never changes it.`);
    }
  }

  isNoInject(path: string): boolean {
    return this.ctx.api()?.engine.meta(path)?.noInject ?? false;
  }

  /** `inject: false` in the note's frontmatter: hooks never inject it (search and MCP recall still find it). */
  async toggleNoInject(path: string): Promise<void> {
    const api = this.hosted();
    if (!api) return;
    const off = this.isNoInject(path);
    if (await this.edit(api, path, { inject: off ? null : false })) {
      tell(off ? `${path} may be injected again.` : `${path} is never injected by a hook (inject: false); search and recall still find it.`);
    }
  }

  /** Moves the note into the archive (out of recall, recoverable, logged in the vault's Engram log). */
  async forget(path: string): Promise<boolean> {
    const api = this.hosted();
    if (!api || this.refuseLocked(api, path, 'forget')) return false;
    try {
      const r = await api.forget(path);
      tell(`Forgot ${r.path}: moved to ${r.archivedTo}.`);
      return true;
    } catch (e) {
      tell(`Engram cannot forget ${path}: ${why(e)}`);
      return false;
    }
  }

  async toggleWorkingMemory(path: string): Promise<void> {
    const api = this.hosted();
    if (!api || this.refuseLocked(api, path, 'change')) return;
    const due = api.engine.meta(path)?.reviewAfter;
    if (due) {
      if (await this.edit(api, path, { review_after: null, cb_review_after: null })) tell(`${path} is no longer working memory.`);
      return;
    }
    const days = this.plugin.reviewDays?.() ?? DEFAULT_REVIEW_DAYS;
    const next = isoDate(api.engine.ports.clock.now() + days * 86_400_000);
    if (await this.edit(api, path, { review_after: next })) tell(`${path} is working memory, due for review on ${next}.`);
  }

  private async edit(api: EngramApi, path: string, changes: Record<string, unknown>): Promise<boolean> {
    try {
      await api.setFrontmatter(path, changes);
      return true;
    } catch (e) {
      tell(`Engram cannot change ${path}: ${why(e)}`);
      return false;
    }
  }

  /** The editor's selection becomes a beat (a note of the chosen type), as `remember` writes it. */
  async fileSelection(selection: string): Promise<void> {
    const text = selection.trim();
    if (!text) {
      tell('Select the text to file as memory first.');
      return;
    }
    const api = this.hosted();
    if (!api) return;
    const types = (await loadVocabulary(api.engine.ports.vault)).types.map((t) => t.name);
    const choice = await chooseBeatType(this.app, text, types);
    if (!choice) return;
    try {
      const r = await api.remember({ text, ...choice });
      tell(r.existed ? `Already remembered in ${r.path}.` : `Filed as memory: ${r.path}.`);
    } catch (e) {
      tell(`Engram cannot file this: ${why(e)}`);
    }
  }

  async reindex(): Promise<void> {
    const api = this.hosted();
    if (!api) return;
    const total = api.engine.noteCount();
    const progress = tell('Reindexing the vault…', 0);
    const timer = window.setInterval(() => progress.setMessage(`Reindexing the vault: ${api.engine.noteCount()} of about ${total} notes`), PROGRESS_MS);
    try {
      const { notes } = await api.reindex();
      tell(`Reindexed the vault: ${count(notes, 'note')}.`);
    } catch (e) {
      tell(`Reindexing failed: ${why(e)}`);
    } finally {
      window.clearInterval(timer);
      progress.hide();
    }
  }

  status(): void {
    const api = this.ctx.api();
    const rows: Array<[string, string]> = [];
    const host = this.plugin.hostText?.();
    if (!api) rows.push(['Host', host ?? NOT_HOSTED]);
    else {
      const e = api.engine;
      rows.push(['Host', host ?? 'This Obsidian window hosts the vault.'], ['Index', e.ready ? e.index.mode : 'loading'], ['Notes', String(e.noteCount())]);
      rows.push(['Working memory due today', String(e.dueCount(isoDate(e.ports.clock.now())))]);
      if (e.backlog > 0) rows.push(['Changes waiting', String(e.backlog)]);
    }
    new StatusModal(this.app, rows).open();
  }
}
