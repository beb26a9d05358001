// One object for a host (the daemon's MCP tools, the plugin's panes): review, restructure, maintain, forget and
// recall statistics for one vault, over the engine's ports. The CLI uses the same functions directly.
import type { LlmBackend } from '../extract/backends/types';
import type { StateStore } from '../extract/state-store';
import type { Clock, VaultPort, Yield } from '../ports';
import { applyProposal, type ApplyResult, type CurateContext } from './apply';
import { loadCatalog } from './catalog';
import { archiveProposals, forgetNote, orphanNotes, possibleDuplicates, staleNotes, type StaleNote } from './maintain';
import type { NoteVectors } from './merge-candidates';
import { pruneExpired, type Proposal } from './proposals';
import { planRestructure, type RestructurePlan } from './restructure';
import { planReview, type ReviewPlan } from './review';
import type { CurateSettings } from './settings';
import { loadVocabulary } from '../note/vocabulary';
import { curateStateNames, RecallStatsStore, StateProposalStore } from './stores';

export interface CurationOptions {
  vault: VaultPort;
  state: StateStore;
  vaultKey: string;
  settings: CurateSettings;
  clock: Clock;
  yieldNow?: Yield;
  /** The configured LLM backend (review); undefined or `rules` = extend only. */
  backend?: () => LlmBackend;
  /** Note vectors from the index, when it has embeddings. */
  vectors?: () => NoteVectors | undefined;
}

/** What a client needs to show a proposal (the full text stays in the stored proposal). */
export interface ProposalSummary {
  id: string;
  kind: string;
  title: string;
  reason: string;
  writes: Array<{ path: string; chars: number; replaces: boolean }>;
  trash: string[];
  moves: Array<[string, string]>;
  linkEdits: number;
  notesRelinked: number;
  expiresAt: string;
}

export function summarize(p: Proposal): ProposalSummary {
  return {
    id: p.id,
    kind: p.kind,
    title: p.title,
    reason: p.reason,
    writes: p.writes.map((w) => ({ path: w.path, chars: w.text.length, replaces: Boolean(w.replaces) })),
    trash: p.trash,
    moves: p.moves,
    linkEdits: p.linkRewrites.reduce((n, r) => n + r.edits.length, 0),
    notesRelinked: p.linkRewrites.length,
    expiresAt: p.expiresAt,
  };
}

export class Curation {
  readonly ctx: CurateContext;
  readonly recallStats: RecallStatsStore;

  constructor(private readonly opts: CurationOptions) {
    const names = curateStateNames(opts.vaultKey);
    this.ctx = { vault: opts.vault, store: new StateProposalStore(opts.state, names.proposals), settings: opts.settings, clock: opts.clock, yieldNow: opts.yieldNow };
    this.recallStats = new RecallStatsStore(opts.state, names.recallStats);
  }

  /** Called after every recall with the notes returned (stale-note detection; never written into notes). */
  recordRecall(paths: string[]): Promise<void> {
    return this.recallStats.record(paths, this.opts.clock.now());
  }

  apply(id: string): Promise<ApplyResult> {
    return applyProposal(this.ctx, id);
  }

  async review(horizonDays = 7): Promise<ReviewPlan> {
    const now = this.opts.clock.now();
    await pruneExpired(this.ctx.store, now);
    const catalog = await loadCatalog(this.opts.vault, { yieldNow: this.opts.yieldNow });
    const vocabulary = await loadVocabulary(this.opts.vault);
    const types = vocabulary.types.map((t) => t.name);
    return planReview(catalog, this.opts.settings, { backend: this.opts.backend?.(), vectors: this.opts.vectors?.(), store: this.ctx.store, now, horizonDays, types, preferences: vocabulary.preferences });
  }

  async restructure(folder?: string): Promise<RestructurePlan> {
    const now = this.opts.clock.now();
    await pruneExpired(this.ctx.store, now);
    const catalog = await loadCatalog(this.opts.vault, { yieldNow: this.opts.yieldNow });
    let vectors = this.opts.vectors?.();
    if (!vectors) {
      const { LexicalVectors } = await import('./lexical-vectors');
      vectors = new LexicalVectors(catalog, catalog.notes.keys());
    }
    return planRestructure(catalog, this.opts.settings, { vectors }, this.ctx.store, now, folder);
  }

  /** Archive proposals (stored, so they can be applied by id), and the lists for the user. */
  async maintain(): Promise<{ archive: Proposal[]; stale: StaleNote[]; orphans: string[]; duplicates: Array<{ why: string; notes: string[] }> }> {
    const now = this.opts.clock.now();
    const catalog = await loadCatalog(this.opts.vault, { yieldNow: this.opts.yieldNow });
    const archive = archiveProposals(catalog, this.opts.settings, now);
    for (const p of archive) await this.ctx.store.save(p);
    return {
      archive,
      stale: staleNotes(catalog, this.opts.settings, await this.recallStats.load(), now),
      orphans: orphanNotes(catalog, this.opts.settings),
      duplicates: possibleDuplicates(catalog, this.opts.settings),
    };
  }

  /** Moves a wrong note into the archive at once (out of recall, recoverable, logged). */
  async forget(ref: string, opts: { byUser?: boolean } = {}): Promise<ApplyResult> {
    const catalog = await loadCatalog(this.opts.vault, { yieldNow: this.opts.yieldNow });
    const r = await forgetNote(this.ctx, catalog, ref, this.opts.clock.now(), opts);
    for (const [from, to] of r.moved) await this.recallStats.move(from, to);
    return r;
  }
}
