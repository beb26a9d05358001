// What the panes and commands call: the engine's typed operations (the same table the daemon serves to the CLI and
// MCP, src/core/operations.ts), typed, with the plugin as the actor in the vault's Engram log. Nothing here touches
// Obsidian or Node, so the panes run in headless Chromium over the in-memory vault in tests.
import type { Engine, QueryAnswer } from '../../core/engine';
import type { OperationTable } from '../../core/operations';
import type { SearchHit, SearchOptions } from '../../core/index/types';
import type { ApplyOutcome, ForgetResult, MaintainRequest, MaintainResult, RestructurePlanResult, RestructureRequest, ReviewPlanResult, ReviewRequest } from '../../core/curate/service';
import type { RememberInput, RememberResult } from '../../core/memory/remember';
import { EngramError } from '../../core/errors';
import { editFrontmatter, type FrontmatterValue } from '../../core/note/frontmatter-edit';

/** Who the vault's Engram log names for what the panes and commands change. */
export const PLUGIN_ACTOR = 'plugin';

export interface EngramApi {
  /** The live engine (the related pane reads notes' metadata and the index through it). */
  readonly engine: Engine;
  reviewPlan(p?: Omit<ReviewRequest, 'actor'>): Promise<ReviewPlanResult>;
  restructurePlan(p?: Omit<RestructureRequest, 'actor'>): Promise<RestructurePlanResult>;
  maintain(p?: Omit<MaintainRequest, 'actor'>): Promise<MaintainResult>;
  /** Applies proposals by id, in order; each outcome says whether it applied (a stale proposal is refused). */
  apply(ids: string[]): Promise<ApplyOutcome[]>;
  /** The one search road (filters, date phrases, why each hit matched), as MCP recall and `engram search` take it. */
  search(query: string, filters?: SearchOptions): Promise<QueryAnswer>;
  /** The notes closest to a note (meaning with a model, words otherwise) and the notes that cite it (Engine.related). */
  related(path: string, limit?: number): Promise<{ similar: SearchHit[]; citing: string[] }>;
  read(ref: string): Promise<{ path: string; title: string; text: string }>;
  remember(p: RememberInput): Promise<RememberResult>;
  forget(ref: string): Promise<ForgetResult>;
  /**
   * Sets frontmatter keys of one note (null removes the key) through the note layer's splice editor: only those keys
   * change, and the write is refused if the note changed meanwhile. A note with invalid YAML is refused, never rewritten.
   */
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- `| null` says what null means (remove the key)
  setFrontmatter(path: string, changes: Record<string, unknown | null>): Promise<void>;
}

/** The typed face of an operation table (the plugin host's, or a test's over the in-memory vault). */
export function operationsApi(engine: Engine, ops: OperationTable): EngramApi {
  const call = async <T>(method: keyof OperationTable, params: unknown): Promise<T> => {
    const op = ops[method];
    if (!op) throw new EngramError('refused', `this host does not answer ${method}`);
    return (await op(params)) as T;
  };
  return {
    engine,
    reviewPlan: (p = {}) => call('review.plan', { ...p, actor: PLUGIN_ACTOR }),
    restructurePlan: (p = {}) => call('restructure.plan', { ...p, actor: PLUGIN_ACTOR }),
    maintain: (p = {}) => call('maintain.run', { ...p, actor: PLUGIN_ACTOR }),
    apply: async (ids) => (await call<{ applied: ApplyOutcome[] }>('curate.apply', { ids, actor: PLUGIN_ACTOR })).applied,
    search: (query, filters = {}) => call('search', { ...filters, query }),
    // Not an operation of the protocol: the pane reads the live engine in process, once it has read the vault.
    related: async (path, limit) => {
      await engine.whenReady();
      return engine.related(path, limit);
    },
    read: (ref) => call('read', { ref }),
    remember: (p) => call('remember', p),
    forget: (ref) => call('forget', { ref, actor: PLUGIN_ACTOR, byUser: true }),
    setFrontmatter: async (path, changes) => {
      const vault = engine.ports.vault;
      const file = await vault.read(path);
      const set: Record<string, FrontmatterValue> = {};
      const remove: string[] = [];
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) remove.push(key);
        // Frontmatter values are YAML data; the editor refuses what it cannot write.
        else set[key] = value as FrontmatterValue;
      }
      const edited = editFrontmatter(file.text, { set, remove }, path);
      if (edited.changed) await vault.writeIfUnchanged(path, file.text, edited.text);
    },
  };
}

/** What a pane or command gets from the plugin: the API while the vault is hosted here, and a signal to refresh. */
export interface PaneContext {
  /** Undefined while the plugin does not host the vault (starting, or a daemon hosts): panes say so and wait. */
  api(): EngramApi | undefined;
  /** Called when hosting starts or stops, the index becomes ready, or the vault changed; returns an unsubscribe. */
  onChange(listener: () => void): () => void;
}
