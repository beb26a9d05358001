// What the panes and commands call: the engine's typed operations (the same table the daemon serves to the CLI and
// MCP, src/core/operations.ts), typed, with the plugin as the actor in the vault's Engram log. Nothing here touches
// Obsidian or Node, so the panes run in headless Chromium over the in-memory vault in tests.
import type { Engine, FlaggedNote, QueryAnswer } from '../../core/engine';
import type { Operation, OperationTable } from '../../core/operations';
import type { Method, Params, Result } from '../../core/protocol';
import type { SearchHit, SearchOptions } from '../../core/index/types';
import type { ApplyOutcome, ForgetResult, MaintainRequest, MaintainResult, ProposalEdit, RestructurePlanResult, RestructureRequest, ReviewPlanResult, ReviewRequest } from '../../core/curate/service';
import type { RememberInput, RememberResult } from '../../core/memory/remember';
import type { Proposal } from '../../core/curate/proposals';
import { editFrontmatter, type FrontmatterValue } from '../../core/note/frontmatter-edit';
import { EngramError } from '../../core/errors';
import type { StatsResult } from '../../core/activity/stats';
import type { ActivityResult } from '../../core/activity/record';

/** Who the vault's Engram log names for what the panes and commands change. */
export const PLUGIN_ACTOR = 'plugin';

export interface EngramApi {
  /** The live engine (the related pane reads notes' metadata and the index through it). */
  readonly engine: Engine;
  reviewPlan(p?: Omit<ReviewRequest, 'actor'>): Promise<ReviewPlanResult>;
  restructurePlan(p?: Omit<RestructureRequest, 'actor'>): Promise<RestructurePlanResult>;
  maintain(p?: Omit<MaintainRequest, 'actor'>): Promise<MaintainResult>;
  /**
   * Applies proposals by id, in order; each outcome says whether it applied (a stale proposal is refused). `edits`: the
   * user's text for a note a proposal creates (a promotion edited before approving), applied instead of the planned one.
   */
  apply(ids: string[], edits?: ProposalEdit[]): Promise<ApplyOutcome[]>;
  /** Remembers rejected proposals: the same notes, unchanged, are not proposed again. */
  reject(ids: string[]): Promise<string[]>;
  /** The one search road (filters, date phrases, why each hit matched), as MCP recall and `engram search` take it. */
  search(query: string, filters?: SearchOptions): Promise<QueryAnswer>;
  /** The notes closest to a note (meaning with a model, words otherwise) and the notes that cite it (Engine.related). */
  related(path: string, limit?: number): Promise<{ similar: SearchHit[]; citing: string[] }>;
  read(ref: string): Promise<{ path: string; title: string; text: string }>;
  remember(p: RememberInput): Promise<RememberResult>;
  forget(ref: string): Promise<ForgetResult>;
  /** A merge of the notes the user chose, with the exact text it would write (stored; `apply([id])` applies it). */
  proposeMerge(paths: string[]): Promise<Proposal>;
  /** Extends or deletes the chosen working-memory notes whatever the plan proposed (stored; `apply([id])` applies it). */
  proposeReview(paths: string[], action: 'extend' | 'delete'): Promise<Proposal>;
  /** A split of one note at its top-level headings, with every text it would write (stored; `apply([id])` applies it). */
  proposeSplit(path: string): Promise<Proposal>;
  /**
   * Sets top-level frontmatter keys of one note (`null` removes the key), splicing only those lines; refuses a note
   * whose frontmatter does not parse (`invalid-yaml`) or that changed while it was edited.
   */
  setFrontmatter(path: string, changes: Record<string, unknown>): Promise<void>;
  /** Drops and rebuilds the index from the vault. */
  reindex(): Promise<{ notes: number }>;
  /** The dashboard's figures over the last `days` (the activity record and the notes). */
  stats(days: number): Promise<StatsResult>;
  /** The activity record's entries and sessions (`since`: a span such as `7d`, or a date), as `engram activity` reads them. */
  activity(q: Params<'activity'>): Promise<ActivityResult>;
  /** Notes holding text addressed to an AI, with where and what (Engine.flagged). */
  flagged(): Promise<FlaggedNote[]>;
}

/** Curation work in the host's one curation queue (the same the operation table uses: never beside an apply). */
async function exclusive<T>(engine: Engine, fn: (c: NonNullable<Engine['curation']>) => Promise<T>): Promise<T> {
  const c = engine.curation;
  if (!c) throw new EngramError('refused', 'curation needs a state store, which this host did not give the engine');
  return c.exclusive(() => fn(c));
}

/** The typed face of an operation table (the plugin host's, or a test's over the in-memory vault). */
export function operationsApi(engine: Engine, ops: OperationTable): EngramApi {
  const call = async <M extends Method>(method: M, params: Params<M>): Promise<Result<M>> => {
    const op: Operation<M> | undefined = ops[method];
    if (!op) throw new EngramError('refused', `this host does not answer ${method}`);
    return op(params);
  };
  return {
    engine,
    reviewPlan: (p = {}) => call('review.plan', { ...p, actor: PLUGIN_ACTOR }),
    restructurePlan: (p = {}) => call('restructure.plan', { ...p, actor: PLUGIN_ACTOR }),
    maintain: (p = {}) => call('maintain.run', { ...p, actor: PLUGIN_ACTOR }),
    apply: async (ids, edits) => (await call('curate.apply', { ids, actor: PLUGIN_ACTOR, ...(edits?.length ? { edits } : {}) })).applied,
    reject: async (ids) => (await call('curate.reject', { ids, actor: PLUGIN_ACTOR })).rejected,
    search: (query, filters = {}) => call('search', { ...filters, query }),
    // Not an operation of the protocol: the pane reads the live engine in process, once it has read the vault.
    related: async (path, limit) => {
      await engine.whenReady();
      return engine.related(path, limit);
    },
    read: (ref) => call('read', { ref }),
    stats: (days) => call('stats', { days }),
    activity: (q) => call('activity', q),
    remember: (p) => call('remember', p),
    forget: (ref) => call('forget', { ref, actor: PLUGIN_ACTOR, byUser: true }),
    // Plans for chosen notes change nothing; applying them goes through `curate.apply` like every proposal.
    proposeMerge: (paths) => exclusive(engine, (c) => c.proposeMerge(paths)),
    proposeSplit: (path) => exclusive(engine, (c) => c.proposeSplit(path)),
    proposeReview: (paths, action) => exclusive(engine, (c) => c.proposeReview(paths, action)),
    setFrontmatter: async (path, changes) => {
      const vault = engine.ports.vault;
      const before = (await vault.read(path)).text;
      const set: Record<string, FrontmatterValue> = {};
      const remove: string[] = [];
      for (const [k, v] of Object.entries(changes)) {
        if (v === null || v === undefined) remove.push(k);
        else set[k] = v as FrontmatterValue;
      }
      const { text, changed } = editFrontmatter(before, { set, remove }, path);
      if (!changed) return;
      await vault.writeIfUnchanged(path, before, text);
      // The index sees the change before the promise settles (a search or a due count right after includes it).
      engine.applyChange({ kind: 'modify', path });
      await engine.settled();
    },
    reindex: () => call('reindex', {}),
    flagged: async () => (await call('flagged', {})).notes,
  };
}

/** What a pane or command gets from the plugin: the API while the vault is hosted here, and a signal to refresh. */
export interface PaneContext {
  /** Undefined while the plugin does not host the vault (starting, or a daemon hosts): panes say so and wait. */
  api(): EngramApi | undefined;
  /** Called when hosting starts or stops, the index becomes ready, or the vault changed; returns an unsubscribe. */
  onChange(listener: () => void): () => void;
}
