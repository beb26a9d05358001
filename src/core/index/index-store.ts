// The state of one vault's index and what keeps it whole: the text index and vectors, the embedder, the snapshot
// (load, adopt, write), compaction and indexing one parsed note. VaultIndex (vault-index.ts) builds on it: it reads the
// vault, follows changes, embeds and searches.
import { systemClock, yieldToEventLoop, type Clock, type Embedder, type VaultPort, type Yield } from '../ports.js';
import { embeddingText, parseDoc, textHash, type ParsedDoc } from './note-doc.js';
import { DEFAULT_RANKING, type RankingConfig } from './rank.js';
import type { LinkGraph } from './graph.js';
import { decodeSnapshot, encodeSnapshot, packSnapshot, runSync, unpackSnapshot, verifySnapshot, type SnapshotHeader } from './snapshot.js';
import { TextIndex, type IndexedNote } from './text-index.js';
import type { CjkMode } from './language.js';
import { VectorStore } from './vector-store.js';
import { TimeSlicer } from '../time-slice.js';

export interface IndexProgress {
  phase: 'scan' | 'index' | 'embed' | 'load';
  done: number;
  total: number;
}

export interface VaultIndexOptions {
  vault: VaultPort;
  embedder?: Embedder;
  clock?: Clock;
  yieldNow?: Yield;
  onProgress?: (p: IndexProgress) => void;
  ranking?: Partial<RankingConfig>;
  /** Stemming and word cutting (default on); off only to compare with plain BM25. */
  stemming?: boolean;
  /** How Chinese and Japanese are cut into terms (default: character pairs; see Tokenizer). */
  cjk?: CjkMode;
  /** Embed notes changed by `update`/`updateText` in the background (default true). */
  autoEmbed?: boolean;
  /** At most this many notes between two yields to the host's event loop (which come sooner: every few ms of work). */
  batchSize?: number;
}

export class IndexStore {
  protected text: TextIndex;
  protected readonly tokens: { stemming: boolean; cjk?: CjkMode };
  protected vectors: VectorStore | null = null;
  protected vectorModel: string | null = null;
  protected embedder?: Embedder;
  protected readonly vault: VaultPort;
  protected readonly clock: Clock;
  protected readonly yieldNow: Yield;
  protected readonly batch: number;
  protected readonly autoEmbed: boolean;
  protected readonly ranking: RankingConfig;
  protected readonly pending = new Set<string>();
  protected graphCache: LinkGraph | null = null;
  /** The last filter allow-list, reused while the index is unchanged (agents repeat the same filters). */
  protected allowCache: { key: string; list: Uint8Array | null } | null = null;
  /** Bumped when chunk ids are renumbered: embedding in flight must not write to stale rows. */
  protected generation = 0;
  /** Bumped by every change to the text index: a snapshot written across yields must see none. */
  protected edits = 0;
  onProgress?: (p: IndexProgress) => void;

  constructor(opts: VaultIndexOptions) {
    this.vault = opts.vault;
    this.tokens = { stemming: opts.stemming !== false, cjk: opts.cjk };
    this.text = new TextIndex(this.tokens);
    this.clock = opts.clock ?? systemClock;
    this.yieldNow = opts.yieldNow ?? yieldToEventLoop;
    this.batch = opts.batchSize ?? 200;
    this.autoEmbed = opts.autoEmbed !== false;
    this.onProgress = opts.onProgress;
    this.ranking = { ...DEFAULT_RANKING, ...opts.ranking };
    this.setEmbedder(opts.embedder);
  }

  /** Sets (or removes) the embedder. Vectors of another model are dropped and recomputed by `embedPending`. */
  setEmbedder(embedder: Embedder | undefined): void {
    this.embedder = embedder;
    if (!embedder) return;
    if (this.vectors && (this.vectorModel !== embedder.modelId || this.vectors.dimension !== embedder.dimension)) this.vectors = null;
    if (!this.vectors) {
      this.vectors = new VectorStore(embedder.dimension);
      this.vectorModel = embedder.modelId;
      for (const n of this.text.notes) if (n) this.pending.add(n.path);
    }
  }

  /** Throws when the snapshot is damaged or foreign; the index is left as it was then. */
  loadSnapshot(bytes: Uint8Array): void {
    const text = new TextIndex(this.tokens);
    this.adopt(text, runSync(decodeSnapshot(bytes, text)));
  }

  /** As `loadSnapshot`, yielding to the host between sections (what `open` uses); takes the packed file too. */
  async loadSnapshotAsync(bytes: Uint8Array): Promise<void> {
    const raw = await unpackSnapshot(bytes);
    const text = new TextIndex(this.tokens);
    this.adopt(text, await this.slicer().run(decodeSnapshot(raw, text)));
  }

  protected adopt(text: TextIndex, { header, vectors }: { header: SnapshotHeader; vectors: VectorStore | null }): void {
    this.text = text;
    this.vectors = vectors;
    this.vectorModel = header.modelId;
    this.pending.clear();
    this.changed();
    this.generation++;
    this.setEmbedder(this.embedder);
    // A snapshot saved while embedding was under way lacks some vectors: those notes are pending again.
    if (this.embedder && this.vectors) {
      for (const n of this.text.notes) {
        if (!n) continue;
        for (let i = 0; i < (n.beat ? Math.min(1, n.chunkCount) : n.chunkCount); i++) {
          if (!this.vectors.get(n.firstChunk + i)) {
            this.pending.add(n.path);
            break;
          }
        }
      }
    }
  }

  /** The snapshot bytes; the host writes them atomically. Compacts the index first. */
  snapshot(): Uint8Array {
    if (this.text.deadNotes > 0) {
      this.generation++;
      this.changed();
    }
    return runSync(encodeSnapshot(this.text, this.vectors, this.vectorModel));
  }

  /**
   * As `snapshot`, yielding to the host every few ms, and packed (deflated): the file a host writes. Notes indexed
   * meanwhile would mix two states of the index into one file, so a snapshot overtaken by an edit is written again
   * (the third time at once, without yielding).
   */
  async snapshotAsync(): Promise<Uint8Array> {
    return packSnapshot(await this.rawSnapshotAsync());
  }

  private async rawSnapshotAsync(): Promise<Uint8Array> {
    for (let attempt = 0; ; attempt++) {
      if (this.text.deadNotes > 0) {
        this.generation++;
        this.changed();
      }
      const edits = this.edits;
      const steps = encodeSnapshot(this.text, this.vectors, this.vectorModel);
      if (attempt === 2) return runSync(steps);
      try {
        const bytes = await this.slicer().run(steps);
        if (this.edits === edits) return bytes;
      } catch (e) {
        // Tables that grew under the encoder can make it fail: that is the edit's doing, not a fault.
        if (this.edits === edits) throw e;
      }
    }
  }

  protected slicer(): TimeSlicer {
    return new TimeSlicer(this.clock, this.yieldNow);
  }

  /** Peeks at a snapshot's header without loading it. */
  static inspectSnapshot(bytes: Uint8Array): { modelId: string | null; dimension: number; notes: number; createdAt: number } {
    const h = verifySnapshot(bytes);
    return { modelId: h.modelId, dimension: h.dimension, notes: h.notes.length, createdAt: h.createdAt };
  }

  protected reset(): void {
    this.text = new TextIndex(this.tokens);
    this.vectors = null;
    this.vectorModel = null;
    this.pending.clear();
    this.changed();
    this.generation++;
    this.setEmbedder(this.embedder);
  }

  protected compact(): void {
    const map = this.text.compact();
    this.vectors?.compact(map);
    this.generation++;
    this.changed();
  }

  /** Drops what is derived from note slots (link graph, filter allow-list); counts the edit. */
  protected changed(): void {
    this.edits++;
    this.graphCache = null;
    this.allowCache = null;
  }

  protected clearVectors(n: IndexedNote): void {
    if (this.vectors) for (let i = 0; i < n.chunkCount; i++) this.vectors.clear(n.firstChunk + i);
  }

  /** Vectors of a note about to be replaced, keyed by their embedding text, so unchanged chunks are not re-embedded. */
  protected keepVectors(n: IndexedNote, into: Map<string, Float32Array>): void {
    if (!this.vectors) return;
    for (let i = 0; i < n.chunkCount; i++) {
      const c = n.firstChunk + i;
      const v = this.vectors.get(c);
      const et = embeddingText(n, { heading: this.text.chunkHeading[c], text: this.text.chunkText[c] }, i);
      if (v && et !== null) into.set(textHash(et), v.slice());
    }
  }

  /** Indexes one note's text now (synchronous: searchable on return); returns a frontmatter problem, if any. */
  protected indexText(path: string, text: string, mtime: number, size: number, carried?: Map<string, Float32Array>, title?: string): string | undefined {
    return this.indexDoc(path, parseDoc(path, text, mtime, size, title), carried);
  }

  protected indexDoc(path: string, doc: ParsedDoc, carried?: Map<string, Float32Array>): string | undefined {
    const cache = carried ?? new Map<string, Float32Array>();
    const oldSlot = this.text.slotOf.get(path);
    if (oldSlot !== undefined) {
      this.keepVectors(this.text.notes[oldSlot]!, cache);
      this.clearVectors(this.text.notes[oldSlot]!);
    }
    const slot = this.text.add(doc.note, doc.chunks, doc.properties, doc.terms);
    this.changed();
    if (this.vectors) {
      const n = this.text.notes[slot]!;
      let missing = false;
      doc.chunks.forEach((c, i) => {
        const et = embeddingText(n, c, i);
        if (et === null) return;
        const v = cache.get(textHash(et));
        if (v) this.vectors!.set(n.firstChunk + i, v);
        else missing = true;
      });
      if (missing) this.pending.add(path);
      else this.pending.delete(path);
    }
    return doc.problem;
  }
}
