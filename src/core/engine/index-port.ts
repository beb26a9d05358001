// How the engine reaches a search index: what it needs of one (EngineIndex), the one adapter of the VaultIndex to it
// for every host (IndexedVault: snapshot, catch-up, the notes it reads handed on so each is read once), and the one
// reading of a query's filters (recallScope).
import type { SearchOptions } from '../index/types.js';
import type { MarkedHit } from '../recall/vet.js';
import type { IndexNoteVectors } from '../index/note-vectors.js';
import type { NoteMeta } from '../note/meta.js';
import type { VaultIndex, ReadHooks } from '../index/vault-index.js';

export type EngineLog = (level: 'info' | 'warn' | 'error', message: string) => void;

/** One query's answer: the hits, and what the user should know (BM25 only, a time phrase read as a date…). */
export interface QueryAnswer {
  /** `engram search` and the Search pane get them marked (Engine.mark); the hooks and recall read the marks themselves. */
  hits: MarkedHit[];
  notices: string[];
  mode: string;
  timeFilter?: { phrase: string; since?: number; until?: number };
}

/**
 * The one reading of a query's filters, for `engram search`, `recall`, the hooks and the panes alike: the archive is
 * out unless folders are asked for, and a project means that project plus general notes and notes of no project
 * (docs/configuration.md, which project).
 */
export function recallScope(opts: SearchOptions, ...outFolders: string[]): SearchOptions {
  return {
    ...opts,
    excludeFolders: opts.folders?.length ? opts.excludeFolders : [...(opts.excludeFolders ?? []), ...outFolders],
    generalToo: opts.projects?.length ? true : opts.generalToo,
  };
}

/** What the engine needs of a search index (IndexedVault below adapts the VaultIndex for every host). */
export interface EngineIndex {
  readonly mode: string;
  size(): number;
  /** Called with every note's text at start and on each change. */
  upsert(path: string, text: string, meta: NoteMeta): Promise<void>;
  remove(path: string): Promise<void>;
  search(query: string, opts: SearchOptions): Promise<QueryAnswer>;
  /** Persist (snapshot) before exit or handover. */
  save?(): Promise<void>;
  /**
   * An index that loads and syncs itself (snapshot + catch-up) instead of being fed every note at start; `hooks` are
   * told the listing and each note it reads on the way, so the engine lists and reads none of them a second time.
   */
  open?(hooks?: ReadHooks): Promise<void>;
  /**
   * With `open`: loads what the last run saved (the snapshot) without looking at the vault, so recall answers from it
   * while `open` catches up. False when nothing usable was saved (then `open` builds the index).
   */
  load?(): Promise<boolean>;
  /** Each note's vector (mean of its chunks), when the index has embeddings: curation's "close in meaning". */
  noteVectors?(): IndexNoteVectors | null;
  /** The notes that link to a note (body wikilinks or `related:`), from the index's link graph. */
  linksTo?(path: string): string[];
}

/** Where an index keeps its snapshot between runs (the daemon: a file under $ENGRAM_HOME, written atomically). */
export interface SnapshotStore {
  read(): Promise<Uint8Array | null>;
  write(bytes: Uint8Array): Promise<void>;
}

/**
 * The one adapter of the VaultIndex to the engine, for every host: with a snapshot store it opens from the snapshot
 * and catches up with the vault; without one (the built-in fallback, tests) it is fed every note at start.
 */
export class IndexedVault implements EngineIndex {
  constructor(
    readonly index: VaultIndex,
    /** `afterOpen`: once the text index is up (the host attaches its embedder then: recall works on BM25 at once). */
    private readonly opts: { snapshot?: SnapshotStore; log?: EngineLog; label?: string; afterOpen?: () => void } = {},
  ) {
    if (opts.snapshot) {
      this.open = (hooks) => this.openSnapshot(opts.snapshot!, hooks);
      this.load = () => this.loadSnapshot(opts.snapshot!);
    }
  }

  /** Only with a snapshot store (the engine feeds every note otherwise). */
  open?: (hooks?: ReadHooks) => Promise<void>;
  load?: () => Promise<boolean>;
  /** Set once `load` took the snapshot: `open` then only catches up with the vault. */
  private loaded = false;

  get mode(): string {
    return this.opts.label ?? this.index.stats().mode;
  }
  size(): number {
    return this.index.stats().notes;
  }
  private async loadSnapshot(store: SnapshotStore): Promise<boolean> {
    const bytes = await store.read().catch(() => null);
    if (!bytes?.length) return false;
    try {
      await this.index.loadSnapshotAsync(bytes);
      this.loaded = true;
    } catch {
      // Damaged or foreign: `open` reads it again, says why and builds the index.
    }
    return this.loaded;
  }
  private async openSnapshot(store: SnapshotStore, hooks?: ReadHooks): Promise<void> {
    const report = this.loaded ? { ...(await this.index.sync(hooks)), loaded: true, reason: undefined } : await this.index.open(await store.read().catch(() => null), hooks);
    this.opts.log?.('info', `index open: snapshot ${report.loaded ? 'loaded' : `not used (${report.reason})`}, ${report.indexed} indexed, ${report.unchanged} unchanged, ${report.removed} removed in ${report.ms} ms`);
    this.opts.afterOpen?.();
  }
  upsert(path: string, text: string): Promise<void> {
    this.index.updateText(path, text);
    return Promise.resolve();
  }
  remove(path: string): Promise<void> {
    this.index.remove(path);
    return Promise.resolve();
  }
  async search(query: string, opts: SearchOptions): Promise<QueryAnswer> {
    const { hits, notices, mode, timeFilter } = await this.index.search(query, opts);
    return { hits, notices, mode: this.opts.label ?? mode, timeFilter };
  }
  noteVectors(): IndexNoteVectors | null {
    return this.index.noteVectors();
  }
  linksTo(path: string): string[] {
    return this.index.linksTo(path);
  }
  async save(): Promise<void> {
    if (this.opts.snapshot) await this.opts.snapshot.write(await this.index.snapshotAsync());
  }
}
