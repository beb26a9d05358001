// The index of one vault, owned by the engine: build, load a snapshot, follow changes, embed, search, save.
import { EngramError, errorMessage } from '../errors.js';
import { type VaultChange, type VaultFile, type VaultFileInfo } from '../ports.js';
import { embeddingText, parseDoc, textHash } from './note-doc.js';
import { allowList, filterKey } from './filters.js';
import { buildGraph } from './graph.js';
import { runSearch, type IndexSearchOptions, type SearchResult } from './search.js';
import { type IndexedNote } from './text-index.js';
import type { NoteMeta } from '../note/meta.js';
import { meanNoteVectors, type IndexNoteVectors } from './note-vectors.js';
import { IndexStore } from './index-store.js';

export type { IndexProgress, VaultIndexOptions } from './index-store.js';

/** File reads kept in flight ahead of indexing. */
const READ_AHEAD = 32;

/**
 * A note as the index read it from the vault, handed to whoever else needs it (the engine), so it is read once; with
 * its metadata and body as searched (`ParsedDoc.body`) when the index parsed it (a note whose text is unchanged is not
 * parsed).
 */
export interface NoteRead {
  path: string;
  text: string;
  mtime: number;
  size: number;
  /** The note as the index parsed it, and its distinct terms (title, summary, tags, passages) as the index cut them. */
  parsed?: { meta: NoteMeta; body: string; terms?: string[] };
}

/** Who else is told what the index reads on its way up: the vault's listing, then each note read. */
export interface ReadHooks {
  listed?(files: VaultFileInfo[]): void;
  read?(note: NoteRead): void;
}

export interface SyncReport {
  scanned: number;
  indexed: number;
  unchanged: number;
  removed: number;
  /** Notes that could not be read: skipped, never fatal. */
  skipped: { path: string; reason: string }[];
  /** Notes indexed by their text although their frontmatter is invalid. */
  problems: { path: string; reason: string }[];
  embedded: number;
  ms: number;
}

export interface OpenReport extends SyncReport {
  /** The snapshot was used; when not, why (missing, damaged, foreign, other format). */
  loaded: boolean;
  reason?: string;
  /** The model changed since the snapshot: every vector is recomputed. */
  reembedAll: boolean;
}

export interface IndexStats {
  notes: number;
  chunks: number;
  terms: number;
  vectors: number;
  pendingEmbeddings: number;
  model: string | null;
  dimension: number;
  mode: 'hybrid' | 'bm25';
}

export class VaultIndex extends IndexStore {
  /** Loads a snapshot when it is sound, then brings it up to date with the vault; rebuilds otherwise. */
  async open(snapshot: Uint8Array | null, hooks: ReadHooks = {}): Promise<OpenReport> {
    let reason: string | undefined;
    let loaded = false;
    let reembedAll = false;
    if (snapshot && snapshot.length > 0) {
      try {
        this.onProgress?.({ phase: 'load', done: 0, total: 1 });
        await this.loadSnapshotAsync(snapshot);
        loaded = true;
        reembedAll = this.embedder !== undefined && this.pending.size > 0 && this.pending.size === this.text.liveNotes;
      } catch (e) {
        reason = errorMessage(e);
        this.reset();
      }
    } else {
      reason = 'no snapshot yet';
    }
    const report = await this.sync(hooks);
    return { ...report, loaded, reason, reembedAll };
  }

  /** Rebuilds from nothing. */
  async build(): Promise<SyncReport> {
    this.reset();
    return this.sync();
  }

  /**
   * Re-indexes what changed in the vault since the index last saw it; drops what is gone; embeds what lacks vectors.
   * `hooks` are told the listing and each note read from the vault.
   */
  async sync(hooks: ReadHooks = {}): Promise<SyncReport> {
    const t0 = this.clock.now();
    const files = await this.vault.list();
    hooks.listed?.(files);
    const report: SyncReport = { scanned: files.length, indexed: 0, unchanged: 0, removed: 0, skipped: [], problems: [], embedded: 0, ms: 0 };
    const present = new Set(files.map((f) => f.path));
    const carried = new Map<string, Float32Array>();
    for (const n of this.text.notes) {
      if (n && !present.has(n.path)) {
        this.keepVectors(n, carried);
        this.clearVectors(n);
        this.text.remove(n.path);
        this.pending.delete(n.path);
        report.removed++;
      }
    }
    if (report.removed > 0) this.changed();
    let done = 0;
    // Reads run a few at a time ahead of the indexing (a host's file reads are slow one by one, fast together).
    const reads = new Map<string, Promise<VaultFile>>();
    const toRead = files.filter((f) => {
      const slot = this.text.slotOf.get(f.path);
      const old = slot === undefined ? null : this.text.notes[slot];
      return !(old && old.mtime === f.mtime && old.size === f.size);
    });
    let ahead = 0;
    const readAhead = (upTo: number): void => {
      for (; ahead < Math.min(upTo, toRead.length); ahead++) {
        const p = this.vault.read(toRead[ahead].path);
        p.catch(() => undefined);
        reads.set(toRead[ahead].path, p);
      }
    };
    let next = 0;
    const slicer = this.slicer();
    let sinceYield = 0;
    for (const f of files) {
      const slot = this.text.slotOf.get(f.path);
      const old = slot === undefined ? null : this.text.notes[slot];
      if (next < toRead.length && toRead[next] === f) {
        next++;
        readAhead(next + READ_AHEAD);
        try {
          const file = await reads.get(f.path)!;
          reads.delete(f.path);
          const read = { path: f.path, text: file.text, mtime: file.mtime, size: file.size };
          if (old && old.hash === textHash(file.text)) {
            old.mtime = file.mtime;
            old.size = file.size;
            report.unchanged++;
            hooks.read?.(read);
          } else {
            const doc = { ...parseDoc(f.path, file.text, file.mtime, file.size), terms: hooks.read ? new Set<string>() : undefined };
            // A drawing or a pasted log can take tens of ms to parse and as long again to index: two tasks then.
            if (slicer.due()) await slicer.yield();
            const problem = this.indexDoc(f.path, doc, carried);
            hooks.read?.({ ...read, parsed: { meta: doc.meta, body: doc.body, terms: doc.terms ? [...doc.terms] : undefined } });
            if (problem) report.problems.push({ path: f.path, reason: problem });
            report.indexed++;
          }
        } catch (e) {
          reads.delete(f.path);
          report.skipped.push({ path: f.path, reason: errorMessage(e) });
        }
      } else {
        report.unchanged++;
      }
      if (++done % this.batch === 0) this.onProgress?.({ phase: 'index', done, total: files.length });
      if (++sinceYield >= this.batch || slicer.due()) {
        sinceYield = 0;
        await slicer.yield();
      }
    }
    this.onProgress?.({ phase: 'index', done, total: files.length });
    if (this.text.needsCompaction()) this.compact();
    if (report.indexed > this.batch) for (const f of Object.values(this.text.fields)) await slicer.run(f.trim());
    report.embedded = await this.embedPending();
    report.ms = this.clock.now() - t0;
    return report;
  }

  /** Re-reads one note from the vault and indexes it (a file save). Returns false when it cannot be read. */
  async update(path: string): Promise<boolean> {
    let file;
    try {
      file = await this.vault.read(path);
    } catch (e) {
      if (!(await this.vault.exists(path).catch(() => false))) this.remove(path);
      if (e instanceof EngramError && e.code === 'not-found') return false;
      return false;
    }
    this.updateText(path, file.text, file.mtime, file.size);
    return true;
  }

  /**
   * Indexes a note from text the caller already has. Searchable (BM25) on return; vectors follow in `embedPending`.
   * `title` replaces the file name as the title (documents that are not notes: evaluation sets).
   */
  updateText(path: string, text: string, mtime = this.clock.now(), size = text.length, title?: string): void {
    const slot = this.text.slotOf.get(path);
    const old = slot === undefined ? null : this.text.notes[slot];
    // Hosts replay every note at start-up: a note the snapshot already holds costs one hash, not a re-index.
    if (old && old.hash === textHash(text)) {
      old.mtime = mtime;
      old.size = size;
      return;
    }
    this.indexText(path, text, mtime, size, undefined, title);
    if (this.autoEmbed && this.pending.has(path)) this.embedSoon();
    if (this.text.deadNotes > 1024 && this.text.deadNotes > this.text.notes.length / 2) this.compact();
  }

  remove(path: string): boolean {
    this.pending.delete(path);
    this.changed();
    const slot = this.text.slotOf.get(path);
    if (slot !== undefined) this.clearVectors(this.text.notes[slot]!);
    return this.text.remove(path);
  }

  async rename(from: string, to: string): Promise<void> {
    this.remove(from);
    await this.update(to);
  }

  /** Follows one vault change event. */
  async apply(change: VaultChange): Promise<void> {
    if (change.kind === 'delete') this.remove(change.path);
    else if (change.kind === 'rename') await this.rename(change.oldPath, change.path);
    else await this.update(change.path);
  }

  private embedding: Promise<number> | null = null;

  /** Embeds pending notes after the host's event loop had a turn (one run at a time; errors stay pending). */
  private embedSoon(): void {
    this.embedding ??= this.yieldNow()
      .then(() => this.embedPending())
      .catch(() => 0)
      .finally(() => {
        this.embedding = null;
      });
  }

  /** Resolves when background embedding started by updates has finished. */
  async idle(): Promise<void> {
    while (this.embedding) await this.embedding;
  }

  /** Computes missing vectors in batches, yielding between them; returns how many chunks were embedded. */
  async embedPending(): Promise<number> {
    const embedder = this.embedder;
    if (!embedder || !this.vectors) return 0;
    this.vectors.reserve(this.text.chunkCount);
    let embedded = 0;
    const total = this.pending.size;
    let notesDone = 0;
    while (this.pending.size > 0) {
      const gen = this.generation;
      const work: { path: string; row: number; text: string; note: IndexedNote }[] = [];
      const taken: string[] = [];
      for (const path of this.pending) {
        taken.push(path);
        const slot = this.text.slotOf.get(path);
        const n = slot === undefined ? null : this.text.notes[slot];
        if (n) {
          for (let i = 0; i < n.chunkCount; i++) {
            const row = n.firstChunk + i;
            if (this.vectors.get(row)) continue;
            const et = embeddingText(n, { heading: this.text.chunkHeading[row], text: this.text.chunkText[row] }, i);
            if (et !== null) work.push({ path, row, text: et, note: n });
          }
        }
        if (work.length >= 32) break;
      }
      for (const p of taken) this.pending.delete(p);
      if (work.length > 0) {
        const vecs = await embedder.embed(work.map((w) => w.text));
        if (this.embedder !== embedder || !this.vectors) return embedded;
        work.forEach((w, i) => {
          // The note may have changed or been renumbered while the model ran: then it is pending again anyway.
          const slot = this.text.slotOf.get(w.path);
          if (gen === this.generation && slot !== undefined && this.text.notes[slot] === w.note) {
            this.vectors!.set(w.row, vecs[i]);
            embedded++;
          }
        });
      }
      notesDone += taken.length;
      this.onProgress?.({ phase: 'embed', done: notesDone, total });
      await this.yieldNow();
    }
    return embedded;
  }

  async search(query: string, opts: IndexSearchOptions = {}): Promise<SearchResult> {
    return runSearch(
      {
        text: this.text,
        vectors: this.vectors,
        embedder: this.embedder,
        vectorsUsable: this.vectors !== null && (this.embedder === undefined || this.vectorModel === this.embedder.modelId),
        clock: this.clock,
        ranking: this.ranking,
        graph: () => (this.graphCache ??= buildGraph(this.text)),
        allowed: (f) => {
          const key = filterKey(f);
          if (this.allowCache?.key !== key) this.allowCache = { key, list: allowList(this.text.notes, f) };
          return this.allowCache.list;
        },
      },
      query,
      opts,
    );
  }

  has(path: string): boolean {
    return this.text.slotOf.has(path);
  }

  /** The notes that link to `path` (a wikilink in the body or `related:`): the graph link expansion follows. */
  linksTo(path: string): string[] {
    const slot = this.text.slotOf.get(path);
    if (slot === undefined) return [];
    const graph = (this.graphCache ??= buildGraph(this.text));
    return graph.back(slot).flatMap((s) => this.text.notes[s]?.path ?? []);
  }

  /** Each note's vector as the index holds it now (curation's "close in meaning"); null without embeddings. */
  noteVectors(): IndexNoteVectors | null {
    return this.vectors ? meanNoteVectors(this.text, this.vectors, this.embedder?.modelId ?? this.vectorModel) : null;
  }

  stats(): IndexStats {
    let terms = 0;
    for (const f of Object.values(this.text.fields)) terms += f.terms.size;
    return {
      notes: this.text.liveNotes,
      chunks: this.text.chunkCount - this.text.deadChunks,
      terms,
      vectors: this.vectors?.count() ?? 0,
      pendingEmbeddings: this.pending.size,
      model: this.embedder?.modelId ?? this.vectorModel,
      dimension: this.vectors?.dimension ?? 0,
      mode: this.embedder && this.vectors ? 'hybrid' : 'bm25',
    };
  }
}
