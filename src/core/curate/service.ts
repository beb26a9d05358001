// Curation for one vault: the one object the CLI, the host's protocol handlers (MCP tools, forwarded commands) and
// the plugin's panes and commands call for review, restructure (and merges and splits the user chose), maintain, apply
// and forget. Hosts give it ports; it returns typed results, and each caller formats them (the CLI prints, MCP renders
// short text, the panes draw).
import type { BackendName } from '../config';
import { EngramError, errorMessage } from '../errors';
import type { LlmBackend } from '../extract/backends/types';
import type { StateStore } from '../extract/state-store';
import type { Clock, VaultPort, Yield } from '../ports';
import { applyProposal, type ApplyResult, type CurateContext } from './apply';
import { loadCatalog, type NoteCatalog } from './catalog';
import { chosenMerge, chosenReview, chosenSplit } from './chosen';
import { conflictProposals, findConflicts, type SyncConflict } from './conflicts';
import { duplicateAsMerge, isDuplicateId, listDuplicates, type DuplicateRecord } from './duplicates';
import { archiveProposals, forgetNote, orphanNotes, possibleDuplicates, staleNotes, type StaleNote } from './maintain';
import { curatable, type NoteVectors } from './merge-candidates';
import { makeProposal, pruneExpired, type Proposal } from './proposals';
import { planRestructure } from './restructure';
import { dueFromMetas, planReview, type DueNote } from './review';
import type { NoteMeta } from '../note/meta';
import { privateZoneOf, type PrivateZones } from '../note/private-zone';
import { isoDate } from '../day';
import { templatesFolders } from './templates-folder';
import type { CurateSettings } from './settings';
import { loadVocabulary } from '../note/vocabulary';
import { TimeSlicer } from '../time-slice';
import type { IndexNoteVectors } from '../index/note-vectors';
import { curateStateNames, RecallStatsStore, RejectedStore, rejectionKey, StateProposalStore } from './stores';

/** Note vectors and what they are, for the user ("embeddings from the index (model, n notes)"). */
export interface VectorSource {
  vectors: NoteVectors;
  kind: string;
}

/** What the user is told "close in meaning" was measured with, for the index's note vectors. */
export function describeIndexVectors(v: IndexNoteVectors | null | undefined): VectorSource | undefined {
  return v ? { vectors: v, kind: `embeddings from the index (${v.modelId ?? 'unknown model'}, ${v.count} notes)` } : undefined;
}

export interface CurationOptions {
  vault: VaultPort;
  state: StateStore;
  vaultKey: string;
  settings: CurateSettings;
  clock: Clock;
  yieldNow?: Yield;
  /** The LLM backend for review proposals, by name (undefined: the configured one); `rules` proposes extend only. */
  backend?: (name?: BackendName) => LlmBackend;
  /** Note vectors from the index when it has embeddings (a host: the live index; the CLI: the snapshot). */
  vectors?: () => VectorSource | undefined;
  /** Called after each durable step of an apply: the host's crash switch (real-crash tests). */
  fault?: () => void;
  /** Every note's metadata as the host holds it (the engine's): a review plan finds due notes there. */
  metas?: () => ReadonlyMap<string, NoteMeta> | undefined;
  /** Obsidian's config folder (Vault#configDir), where its Templates and Templater settings are; unset: not read. */
  configDir?: string;
  /** Private folders, tags and projects: their notes never reach review's or restructure's model calls. */
  privateZones?: PrivateZones;
}

/** Who acts, for the vault's Engram log (`cli`, `mcp`, `plugin`). */
export interface Actor {
  actor?: string;
}

export interface ReviewRequest extends Actor {
  /** Notes due on or before today plus this many days (default 7). */
  dueWithinDays?: number;
  /** Backend for this plan (default: the configured one). */
  backend?: BackendName;
}

export interface ReviewPlanResult {
  horizonDays: number;
  due: DueNote[];
  groups: string[][];
  proposals: Proposal[];
  problems: string[];
  /** Copies a sync tool left beside notes, each with its proposals (keep mine, keep theirs, merge both). */
  conflicts: SyncConflict[];
}

export interface RestructureRequest extends Actor {
  folder?: string;
  /** Similarity for merge candidates (0..1; default the settings' 0.88). */
  threshold?: number;
  /** Backend that writes each merge as one note, grounded in the notes (only when asked: a plan calls no model by default). */
  backend?: BackendName;
}

export interface RestructurePlanResult {
  /** What "close in meaning" was measured with. */
  vectors: string;
  pairsCompared: number;
  notesConsidered: number;
  ms: number;
  proposals: Proposal[];
  /** Possible duplicates extraction recorded; applying one merges the notes. */
  duplicates: DuplicateRecord[];
  /** Proposals left out because the user rejected them and their notes have not changed since. */
  rejected?: number;
}

export interface MaintainRequest extends Actor {
  /** Move the notes past forget_after into the archive (else only list them). */
  apply?: boolean;
  staleDays?: number;
}

export interface MaintainResult {
  staleDays: number;
  archive: Array<{ id: string; from: string; to: string; reason: string }>;
  /** Applied moves, `from → to`. */
  applied: string[];
  failed: string[];
  stale: StaleNote[];
  orphans: string[];
  duplicates: Array<{ why: string; notes: string[] }>;
}

export interface ApplyOutcome {
  id: string;
  ok: boolean;
  error?: string;
  result?: Omit<ApplyResult, 'proposal'> & { kind: string; title: string };
}

/** The user's own text for a note a proposal creates (a promotion edited before approving). */
export interface ProposalEdit {
  id: string;
  path: string;
  text: string;
}

/** Wraps one apply (the CLI lets an apply under way finish on Ctrl-C, and says which ids were left). */
export type ApplyGuard = (id: string, later: string[], run: () => Promise<ApplyResult>) => Promise<ApplyResult>;

export interface ForgetResult {
  path: string;
  archivedTo: string;
  relinked: string[];
  log: string;
}

export class Curation {
  readonly recallStats: RecallStatsStore;
  private readonly store: StateProposalStore;
  private readonly rejected: RejectedStore;
  private readonly proposalsDir: string;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: CurationOptions) {
    const names = curateStateNames(opts.vaultKey);
    this.proposalsDir = names.proposals;
    this.store = new StateProposalStore(opts.state, names.proposals);
    this.recallStats = new RecallStatsStore(opts.state, names.recallStats);
    this.rejected = new RejectedStore(opts.state, names.rejected);
  }

  /**
   * Remembers that the user rejected these proposals: the same notes, unchanged, are not proposed again (a change to
   * any of them lifts it). Returns the ids found.
   */
  async reject(ids: string[]): Promise<string[]> {
    const keys: string[] = [];
    const found: string[] = [];
    for (const id of ids) {
      const p = await this.store.load(id);
      if (!p) continue;
      keys.push(rejectionKey(p));
      found.push(id);
      await this.store.remove(id);
    }
    if (keys.length) await this.rejected.add(keys);
    return found;
  }

  /**
   * Runs curation work one request at a time, whoever asks (the host's operation table, the plugin's commands): two
   * applies never interleave, and a plan never reads a half-applied vault. Work inside must not call it again.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => {});
    return run;
  }

  get settings(): CurateSettings {
    return this.opts.settings;
  }

  /** The apply context for one request: the settings with its actor (and any overrides). */
  context(req: Actor = {}, overrides: Partial<CurateSettings> = {}): CurateContext {
    const settings = { ...this.opts.settings, ...overrides, ...(req.actor ? { actor: req.actor } : {}) };
    return { vault: this.opts.vault, store: this.store, settings, clock: this.opts.clock, yieldNow: this.opts.yieldNow, fault: this.opts.fault };
  }

  /** Called after every recall with the notes returned (stale-note detection; never written into notes). */
  recordRecall(paths: string[]): Promise<void> {
    return this.recallStats.record(paths, this.opts.clock.now());
  }

  /** The settings with the vault's templates folders from Obsidian's settings (unless the host gave them). */
  private async withTemplates(settings: CurateSettings): Promise<CurateSettings> {
    if (settings.templatesFolders || this.opts.configDir === undefined) return settings;
    return { ...settings, templatesFolders: await templatesFolders(this.opts.vault, this.opts.configDir) };
  }

  /** Why a catalog note is private (its folder, frontmatter or body tags, project), or undefined. */
  private privacy(catalog: NoteCatalog): (path: string) => string | undefined {
    const zones = this.opts.privateZones;
    if (!zones) return () => undefined;
    return (path) => {
      const n = catalog.get(path);
      return privateZoneOf({ path, tags: [...(n?.meta?.tags ?? []), ...(n?.tags ?? [])], project: n?.meta?.project }, zones);
    };
  }

  /** The vault read for curation, its frontmatter parsed in slices in a UI host (a plan reads every note's metadata). */
  private async catalog(): Promise<NoteCatalog> {
    const catalog = await loadCatalog(this.opts.vault, { yieldNow: this.opts.yieldNow });
    if (this.opts.yieldNow) {
      const slicer = new TimeSlicer(this.opts.clock, this.opts.yieldNow);
      for (const n of catalog.notes.values()) {
        void n.meta;
        await slicer.pause();
      }
    }
    return catalog;
  }

  /** Due working-memory notes, grouped, with one stored proposal per decision. Changes no note. */
  async reviewPlan(req: ReviewRequest = {}): Promise<ReviewPlanResult> {
    const horizonDays = req.dueWithinDays ?? 7;
    const now = this.opts.clock.now();
    await pruneExpired(this.store, now);
    const settings = await this.withTemplates(this.opts.settings);
    // The host's metadata says which notes are due: nothing due reads no note (sync conflicts are still looked for),
    // and otherwise only the due notes' frontmatter is parsed (the vault is still read whole for the links a delete
    // would leave).
    const metas = this.opts.metas?.();
    const due = metas ? dueFromMetas(metas.values(), settings, isoDate(now), horizonDays) : undefined;
    // Beats capture held for approval (capture.mode inbox) wait here too, whatever the horizon and whatever is due.
    const held = async (): Promise<Proposal[]> => (await this.store.list()).filter((p) => p.kind === 'capture' && !p.appliedAt).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
    if (due && due.length === 0) return { horizonDays, due: [], groups: [], proposals: await held(), problems: [], conflicts: await this.conflicts(now) };
    const catalog = due ? await loadCatalog(this.opts.vault, { yieldNow: this.opts.yieldNow }) : await this.catalog();
    const vocabulary = await loadVocabulary(this.opts.vault);
    // Related due notes are grouped by shared tags and links, and by meaning when the index has embeddings.
    const plan = await planReview(catalog, settings, {
      ...(due ? { due } : {}),
      backend: this.opts.backend?.(req.backend),
      vectors: this.opts.vectors?.()?.vectors,
      store: this.store,
      now,
      horizonDays,
      types: vocabulary.types.map((t) => t.name),
      preferences: vocabulary.preferences,
      yieldNow: this.opts.yieldNow,
      isPrivate: this.privacy(catalog),
    });
    return { horizonDays, ...plan, proposals: [...plan.proposals, ...(await held())], conflicts: await this.conflicts(now) };
  }

  /** The vault's sync conflicts, each with its proposals (stored; applied by id like any other). Changes no note. */
  async conflicts(now = this.opts.clock.now()): Promise<SyncConflict[]> {
    const out: SyncConflict[] = [];
    for (const c of await findConflicts(this.opts.vault)) {
      const proposals = conflictProposals(c, now, this.opts.settings.proposalDays);
      for (const p of Object.values(proposals)) await this.store.save(p);
      out.push({ ...c, proposals });
    }
    return out;
  }

  /** Merge, hub and split proposals (stored), and extraction's possible duplicates. Changes no note. */
  async restructurePlan(req: RestructureRequest = {}): Promise<RestructurePlanResult> {
    if (req.threshold !== undefined && !(req.threshold > 0 && req.threshold <= 1)) throw new EngramError('usage', 'the merge threshold must be between 0 and 1');
    const folder = req.folder?.replace(/^\/+|\/+$/g, '') || undefined;
    const settings = await this.withTemplates(req.threshold !== undefined ? { ...this.opts.settings, mergeThreshold: req.threshold } : this.opts.settings);
    const now = this.opts.clock.now();
    await pruneExpired(this.store, now);
    const started = this.opts.clock.now();
    const catalog = await this.catalog();
    if (folder !== undefined && ![...catalog.notes.keys()].some((p) => p.startsWith(`${folder}/`))) {
      throw new EngramError('not-found', `no notes in folder ${folder}`);
    }
    let source = this.opts.vectors?.();
    if (!source) {
      const { LexicalVectors } = await import('./lexical-vectors');
      source = { vectors: new LexicalVectors(catalog, curatable(catalog, settings, folder)), kind: 'word vectors (no embeddings in the index)' };
    }
    const rejected = await this.rejected.load();
    const writer = req.backend !== undefined ? this.opts.backend?.(req.backend) : undefined;
    const plan = await planRestructure(catalog, settings, { vectors: source.vectors }, this.store, now, folder, (d) => rejected.has(rejectionKey(d)), writer && writer.name !== 'rules' ? writer : undefined, this.privacy(catalog));
    const ms = this.opts.clock.now() - started;
    const duplicates = await listDuplicates(this.opts.state, this.proposalsDir, now);
    return { vectors: source.kind, pairsCompared: plan.pairsCompared, notesConsidered: plan.notesConsidered, ms, proposals: plan.proposals, duplicates, rejected: plan.rejected };
  }

  /** A merge of the notes the user chose (stored; applied by id). Changes no note. */
  async proposeMerge(paths: string[]): Promise<Proposal> {
    const now = this.opts.clock.now();
    const p = chosenMerge(await this.catalog(), paths, this.opts.settings, now);
    await this.store.save(p);
    return p;
  }

  /** A split of one note at its top-level headings (stored; applied by id). Changes no note. */
  async proposeSplit(path: string): Promise<Proposal> {
    const now = this.opts.clock.now();
    const p = chosenSplit(await this.catalog(), path, this.opts.settings, now);
    await this.store.save(p);
    return p;
  }

  /** Extend or delete the chosen notes, whatever the plan proposed (stored; applied by id). Changes no note. */
  async proposeReview(paths: string[], action: 'extend' | 'delete'): Promise<Proposal> {
    const p = chosenReview(await this.catalog(), paths, action, this.opts.settings, this.opts.clock.now());
    await this.store.save(p);
    return p;
  }

  /** The proposal with the user's text for notes it creates, stored under its own id (the original stays as planned). */
  private async edited(id: string, edits: ProposalEdit[]): Promise<string> {
    const p = await this.store.load(id);
    if (!p) throw new EngramError('not-found', `no proposal with id ${id}`, 'plan again to list current proposals');
    const writes = p.writes.map((w) => ({ ...w }));
    for (const e of edits) {
      const w = writes.find((x) => x.path === e.path && !x.replaces);
      if (!w) throw new EngramError('refused', `proposal ${id} creates no note at ${e.path}; only a new note's text can be edited`);
      if (e.text.trim() === '') throw new EngramError('refused', `the edited text for ${e.path} is empty`);
      w.text = e.text.endsWith('\n') ? e.text : `${e.text}\n`;
    }
    const { format: _f, id: _i, createdAt, expiresAt, ...draft } = p;
    const copy = { ...makeProposal({ ...draft, writes }, Date.parse(createdAt), 0), expiresAt };
    await this.store.save(copy);
    return copy.id;
  }

  /**
   * Applies each id in turn (a proposal, or a possible duplicate that becomes a merge now); one refusal stops none.
   * `edits`: the user's text for notes a proposal creates, applied instead of the planned text.
   */
  async apply(ids: string[], req: Actor & { edits?: ProposalEdit[] } = {}, guard?: ApplyGuard): Promise<ApplyOutcome[]> {
    const ctx = this.context(req);
    const outcomes: ApplyOutcome[] = [];
    let catalog: NoteCatalog | undefined;
    for (const [i, id] of ids.entries()) {
      try {
        let real = id;
        if (isDuplicateId(id)) {
          catalog ??= await this.catalog();
          const p = await duplicateAsMerge(this.opts.state, this.proposalsDir, id, catalog, ctx.settings, this.opts.clock.now());
          await this.store.save(p);
          real = p.id;
        }
        const mine = req.edits?.filter((e) => e.id === id) ?? [];
        if (mine.length) real = await this.edited(real, mine);
        const run = () => applyProposal(ctx, real);
        const { proposal, ...rest } = await (guard ? guard(id, ids.slice(i + 1), run) : run());
        outcomes.push({ id, ok: true, result: { ...rest, kind: proposal.kind, title: proposal.title } });
      } catch (e) {
        if (!(e instanceof EngramError)) throw e;
        outcomes.push({ id, ok: false, error: `${errorMessage(e)}${e.hint ? ` (${e.hint})` : ''}` });
      }
    }
    return outcomes;
  }

  /**
   * Applies that a crash interrupted (their journal is still in the proposal), each finished, or rolled back when a
   * note changed since: what a host does at its start, so a half-changed vault never waits for a person.
   */
  async resumeInterrupted(req: Actor = {}): Promise<ApplyOutcome[]> {
    const ids = (await this.store.list()).filter((p) => p.applying).map((p) => p.id);
    return ids.length ? this.apply(ids, req) : [];
  }

  /** Notes past forget_after (archived with `apply`), and the stale, orphan and possible-duplicate lists. */
  async maintain(req: MaintainRequest = {}): Promise<MaintainResult> {
    if (req.staleDays !== undefined && !(req.staleDays >= 0)) throw new EngramError('usage', 'stale days must be 0 or more');
    const ctx = this.context(req, req.staleDays !== undefined ? { staleDays: req.staleDays } : {});
    const now = this.opts.clock.now();
    const catalog = await this.catalog();
    const archive = archiveProposals(catalog, ctx.settings, now);
    const applied: string[] = [];
    const failed: string[] = [];
    if (req.apply) {
      for (const p of archive) {
        await this.store.save(p);
        try {
          const r = await applyProposal(ctx, p.id);
          applied.push(...r.moved.map(([a, b]) => `${a} → ${b}`));
          for (const [from, to] of r.moved) await this.recallStats.move(from, to);
        } catch (e) {
          if (!(e instanceof EngramError)) throw e;
          failed.push(`${p.moves[0][0]}: ${e.message}`);
        }
      }
    }
    return {
      staleDays: ctx.settings.staleDays,
      archive: archive.map((p) => ({ id: p.id, from: p.moves[0][0], to: p.moves[0][1], reason: p.reason })),
      applied,
      failed,
      stale: staleNotes(catalog, ctx.settings, await this.recallStats.load(), now),
      orphans: orphanNotes(catalog, ctx.settings),
      duplicates: possibleDuplicates(catalog, ctx.settings),
    };
  }

  /**
   * Moves a wrong note into the archive at once (out of recall, recoverable, logged). `byUser`: a person named it (a
   * terminal), so their own note may go when named by its exact path; an agent can archive only Engram's notes.
   */
  async forget(ref: string, opts: Actor & { byUser?: boolean } = {}): Promise<ForgetResult & { moved: Array<[string, string]> }> {
    const ctx = this.context(opts);
    const r = await forgetNote(ctx, await this.catalog(), ref, this.opts.clock.now(), opts);
    for (const [from, to] of r.moved) await this.recallStats.move(from, to);
    const [from, to] = r.moved[0] ?? [ref, ref];
    return { path: from, archivedTo: to, relinked: r.relinked, log: r.logPath, moved: r.moved };
  }
}
