// The full-text half of the index: notes and their chunks in slots, four BM25 fields, and a scorer that returns
// per-note results with the best chunk. Title, summary and tags are indexed once per note; body text per chunk.
import { isLinkList, type Chunk } from './chunk.js';
import { FieldIndex } from './postings.js';
import type { CjkMode } from './language.js';
import { Tokenizer } from './tokenize.js';
import { TopK } from './vector-store.js';

export interface IndexedNote {
  path: string;
  /** What the title field indexes: the file name, the display name when it differs, and the aliases. */
  title: string;
  /** The name a person knows the note by, when it is not the file name: frontmatter `title`, else the first H1. */
  name?: string;
  /** Folder path ('' at the vault root). */
  folder: string;
  hash: string;
  mtime: number;
  size: number;
  type?: string;
  scope?: 'project' | 'general';
  project?: string;
  /** Working memory (has review_after). */
  working: boolean;
  tags: string[];
  /** updated, else created, else mtime: epoch ms. */
  time: number;
  confidence?: number;
  summary?: string;
  superseded: boolean;
  /** The frontmatter's other properties as `key: value` lines (note-doc.ts propertyLines), for excerpts. */
  fields?: string;
  /** Link targets, normalised by `linkKey`. */
  links: string[];
  /** Hash of the normalised text, for near-duplicate collapse. */
  dupKey: string;
  /** Written by Engram (or Cyberbrain): embedded by title + summary + tags rather than by chunk. */
  beat: boolean;
  firstChunk: number;
  chunkCount: number;
}

export type FieldName = 'title' | 'summary' | 'tags' | 'body';
export const FIELDS: FieldName[] = ['title', 'summary', 'tags', 'body'];

export interface Bm25Params {
  weights: Record<FieldName, number>;
  k1: number;
  b: number;
  /**
   * Weight of a note's second and third best matching passages, added to its best (0 = best passage only). Only those
   * two count: a note of 400 passages cannot outscore a focused one by matching a word in each.
   */
  restChunks: number;
}

// b tuned on LoCoMo conv-26/30/41/42 (turn level): lower length normalisation than the textbook 0.75 suits short notes
// and natural-language questions (bench/index.bench.ts). k1 was 0.7 there too; with the title, summary and tags now
// saturating together with each passage (BM25F), 1.0 lets a body that says a word six times count beside a title that
// says it once: bench/recall-sets hit@3 dwarvesf-brain 0.93 -> 0.96, the other two vaults equal or better, for LoCoMo
// nDCG@10 0.524 -> 0.520 (untitled turns: only k1 changes there).
export const DEFAULT_BM25: Bm25Params = { weights: { title: 3, summary: 2, tags: 1.5, body: 1 }, k1: 1.0, b: 0.4, restChunks: 0.2 };

/**
 * A list of links matches a question by the names of the notes it points to; those notes hold the answer. Such a
 * passage counts at this share (a map of contents was in 14% of dwarvesf-brain's top 3s at full weight).
 */
export const LINK_LIST_WEIGHT = 0.5;

export interface TextCandidate {
  slot: number;
  score: number;
  bestChunk: number;
}

export class TextIndex {
  readonly tokenizer: Tokenizer;
  notes: (IndexedNote | null)[] = [];
  readonly slotOf = new Map<string, number>();
  chunkNote = new Int32Array(1024);
  /** 1 for a passage that is a list of links (`isLinkList`): it ranks at LINK_LIST_WEIGHT of its score. */
  chunkLinks = new Uint8Array(1024);
  chunkHeading: (string | undefined)[] = [];
  chunkText: string[] = [];
  chunkCount = 0;
  readonly fields: Record<FieldName, FieldIndex> = { title: new FieldIndex(), summary: new FieldIndex(), tags: new FieldIndex(), body: new FieldIndex() };
  deadNotes = 0;
  deadChunks = 0;
  private noteScore = new Float64Array(0);
  private bodyBest = new Float64Array(0);
  private bodySecond = new Float64Array(0);
  private bodyThird = new Float64Array(0);
  private bestChunkOf = new Int32Array(0);
  private chunkScore = new Float64Array(0);
  // Lists of touched ids, reused across queries: a common term touches thousands, and fresh arrays mean GC pauses.
  private touchedNotes = new Int32Array(0);
  private touchedChunkIds = new Int32Array(0);
  private bodyNoteIds = new Int32Array(0);
  /** Per note touched by a query's title, summary or tag match: its row in `metaTf` (-1: none). */
  private metaRow = new Int32Array(0);
  private metaTf = new Float64Array(1024);
  /** Notes per term, counted on demand by `idf`; emptied by every change. */
  private readonly noteDf = new Map<string, number>();

  constructor(opts: { stemming?: boolean; cjk?: CjkMode } = {}) {
    this.tokenizer = new Tokenizer(opts);
  }

  get liveNotes(): number {
    return this.slotOf.size;
  }

  /**
   * Adds a note (replacing any note at the same path) and returns its slot. `properties`: the frontmatter's other
   * values as words, searched with the tags.
   */
  add(note: Omit<IndexedNote, 'firstChunk' | 'chunkCount'>, chunks: Chunk[], properties = ''): number {
    const old = this.slotOf.get(note.path);
    if (old !== undefined) this.removeSlot(old);
    this.noteDf.clear();
    const slot = this.notes.length;
    const rec: IndexedNote = { ...note, firstChunk: this.chunkCount, chunkCount: chunks.length };
    this.notes.push(rec);
    this.slotOf.set(note.path, slot);
    const tk = this.tokenizer;
    // One language for all of a note's fields (a title alone is too short to tell).
    const lang = tk.language(`${note.title}\n${note.summary ?? ''}\n${chunks.length ? chunks[0].text : ''}`);
    const t = tk.frequencies(note.title, lang);
    this.fields.title.add(slot, t.tf, t.length);
    const s = tk.frequencies(note.summary ?? '', lang);
    this.fields.summary.add(slot, s.tf, s.length);
    const g = tk.frequencies(properties ? `${note.tags.join(' ')}\n${properties}` : note.tags.join(' '), lang);
    this.fields.tags.add(slot, g.tf, g.length);
    for (const c of chunks) {
      const id = this.chunkCount++;
      if (id >= this.chunkNote.length) {
        const next = new Int32Array(this.chunkNote.length * 2);
        next.set(this.chunkNote);
        this.chunkNote = next;
        const links = new Uint8Array(next.length);
        links.set(this.chunkLinks);
        this.chunkLinks = links;
      }
      this.chunkNote[id] = slot;
      this.chunkLinks[id] = isLinkList(c.text) ? 1 : 0;
      this.chunkHeading[id] = c.heading;
      this.chunkText[id] = c.text;
      const b = tk.frequencies(c.heading ? `${c.heading}\n${c.text}` : c.text, lang);
      this.fields.body.add(id, b.tf, b.length);
    }
    return slot;
  }

  removeSlot(slot: number): void {
    const n = this.notes[slot];
    if (!n) return;
    this.notes[slot] = null;
    this.noteDf.clear();
    if (this.slotOf.get(n.path) === slot) this.slotOf.delete(n.path);
    this.deadNotes++;
    this.fields.title.retire(slot);
    this.fields.summary.retire(slot);
    this.fields.tags.retire(slot);
    for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) {
      this.chunkNote[c] = -1;
      this.chunkText[c] = '';
      this.chunkHeading[c] = undefined;
      this.fields.body.retire(c);
      this.deadChunks++;
    }
  }

  remove(path: string): boolean {
    const slot = this.slotOf.get(path);
    if (slot === undefined) return false;
    this.removeSlot(slot);
    return true;
  }

  needsCompaction(): boolean {
    return this.deadNotes > 256 && this.deadNotes > this.notes.length / 4;
  }

  /** Drops dead slots and renumbers; returns the chunk map (old -> new or -1) so vectors can follow. */
  compact(): Int32Array {
    const noteMap = new Int32Array(this.notes.length).fill(-1);
    const chunkMap = new Int32Array(this.chunkCount).fill(-1);
    const notes: IndexedNote[] = [];
    let chunks = 0;
    for (let s = 0; s < this.notes.length; s++) {
      const n = this.notes[s];
      if (!n) continue;
      noteMap[s] = notes.length;
      const first = chunks;
      for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) chunkMap[c] = chunks++;
      notes.push({ ...n, firstChunk: first });
    }
    const chunkNote = new Int32Array(Math.max(1024, chunks));
    const chunkLinks = new Uint8Array(chunkNote.length);
    const heading: (string | undefined)[] = new Array<string | undefined>(chunks);
    const text: string[] = new Array<string>(chunks);
    for (let c = 0; c < this.chunkCount; c++) {
      const nc = chunkMap[c];
      if (nc < 0) continue;
      chunkNote[nc] = noteMap[this.chunkNote[c]];
      chunkLinks[nc] = this.chunkLinks[c];
      heading[nc] = this.chunkHeading[c];
      text[nc] = this.chunkText[c];
    }
    for (const f of ['title', 'summary', 'tags'] as const) this.fields[f].compact(noteMap, notes.length);
    this.fields.body.compact(chunkMap, chunks);
    this.notes = notes;
    this.slotOf.clear();
    notes.forEach((n, i) => this.slotOf.set(n.path, i));
    this.chunkNote = chunkNote;
    this.chunkLinks = chunkLinks;
    this.chunkHeading = heading;
    this.chunkText = text;
    this.chunkCount = chunks;
    this.deadNotes = 0;
    this.deadChunks = 0;
    return chunkMap;
  }

  /** Distinct query terms, at most `max`, rarest first (a 10 KB paste must not score 2,000 terms). */
  queryTerms(query: string, max = 48): string[] {
    const uniq = this.tokenizer.queryTerms(query, (t) => FIELDS.some((f) => this.fields[f].terms.has(t)));
    if (uniq.length <= max) return uniq;
    const df = (t: string): number => this.fields.body.terms.get(t)?.n ?? 0;
    return uniq
      .filter((t) => df(t) > 0 || this.fields.title.terms.has(t))
      .sort((a, b) => df(a) - df(b))
      .slice(0, max);
  }

  private ensureScratch(): void {
    if (this.noteScore.length < this.notes.length) {
      const n = Math.max(1024, this.notes.length * 2);
      this.noteScore = new Float64Array(n);
      this.bodyBest = new Float64Array(n);
      this.bodySecond = new Float64Array(n);
      this.bodyThird = new Float64Array(n);
      this.bestChunkOf = new Int32Array(n).fill(-1);
      this.touchedNotes = new Int32Array(n);
      this.bodyNoteIds = new Int32Array(n);
      this.metaRow = new Int32Array(n).fill(-1);
    }
    if (this.chunkScore.length < this.chunkCount) {
      const n = Math.max(1024, this.chunkCount * 2);
      this.chunkScore = new Float64Array(n);
      this.touchedChunkIds = new Int32Array(n);
    }
  }

  /**
   * BM25F over passages: a note's title, summary and tags are fields of each of its passages, and a term's weighted
   * frequencies in all four (each normalised by its own field length) are added before one saturation, so a word of
   * the title counts about as much as a second mention, never as a match of its own: a note named after one word of the
   * question cannot outrank the passage that holds the rest. A note scores its best passage plus `restChunks` of what
   * the next two add. `allowed[slot]` = 1 restricts to filtered notes. Returns the `k` best notes, best first (a heap
   * over typed arrays: no object per matching note).
   */
  score(terms: string[], allowed: Uint8Array | null, p: Bm25Params = DEFAULT_BM25, k = 100, termWeights?: number[]): TextCandidate[] {
    this.ensureScratch();
    const nt = terms.length;
    const touched = this.touchedNotes;
    let nTouched = 0;
    const touchedChunks = this.touchedChunkIds;
    let nChunks = 0;
    const noteScore = this.noteScore;
    const chunkScore = this.chunkScore;
    const row = this.metaRow;
    const { k1, b } = p;
    const bf = this.fields.body;
    const idfs = terms.map((t) => this.idf(t));
    // Pass 1: each note's weighted, length-normalised frequency of each term in its title, summary and tags.
    let rows = 0;
    for (let qi = 0; qi < nt; qi++) {
      const qw = termWeights ? termWeights[qi] : 1;
      for (const f of ['title', 'summary', 'tags'] as const) {
        const w = p.weights[f] * qw;
        if (w === 0) continue;
        const fi = this.fields[f];
        const post = fi.terms.get(terms[qi]);
        if (!post) continue;
        const avg = fi.averageLength();
        const ids = post.ids;
        const tfs = post.tfs;
        for (let i = 0; i < post.n; i++) {
          const slot = ids[i];
          if (this.notes[slot] === null || (allowed !== null && allowed[slot] === 0)) continue;
          if (row[slot] < 0) {
            row[slot] = rows++;
            touched[nTouched++] = slot;
            if (rows * nt > this.metaTf.length) {
              const next = new Float64Array(Math.max(rows * nt * 2, 1024));
              next.set(this.metaTf);
              this.metaTf = next;
            }
            this.metaTf.fill(0, (rows - 1) * nt, rows * nt);
          }
          this.metaTf[row[slot] * nt + qi] += (w * tfs[i]) / (1 - b + (b * fi.lengths[slot]) / avg);
        }
      }
    }
    const meta = this.metaTf;
    const sat = (x: number): number => (x * (k1 + 1)) / (x + k1);
    // A note's score from its title, summary and tags alone (a passage without the words adds nothing to it).
    for (let ti = 0; ti < nTouched; ti++) {
      const slot = touched[ti];
      const base = row[slot] * nt;
      let s = 0;
      for (let qi = 0; qi < nt; qi++) if (meta[base + qi] > 0) s += idfs[qi] * sat(meta[base + qi]);
      noteScore[slot] = s;
    }
    // Pass 2: each passage's gain over that, its body frequency saturated together with the note's own.
    const avg = bf.averageLength();
    const chunkNote = this.chunkNote;
    for (let qi = 0; qi < nt; qi++) {
      const wb = p.weights.body * (termWeights ? termWeights[qi] : 1);
      const post = wb === 0 ? undefined : bf.terms.get(terms[qi]);
      if (!post) continue;
      const idf = idfs[qi];
      const ids = post.ids;
      const tfs = post.tfs;
      for (let i = 0; i < post.n; i++) {
        const c = ids[i];
        const slot = chunkNote[c];
        if (slot < 0 || (allowed !== null && allowed[slot] === 0)) continue;
        const x = (wb * tfs[i]) / (1 - b + (b * bf.lengths[c]) / avg);
        const r = row[slot];
        const m = r < 0 ? 0 : meta[r * nt + qi];
        const s = m === 0 ? idf * sat(x) : idf * (sat(m + x) - sat(m));
        if (chunkScore[c] === 0) touchedChunks[nChunks++] = c;
        chunkScore[c] += s;
      }
    }
    const bodyBest = this.bodyBest;
    const second = this.bodySecond;
    const third = this.bodyThird;
    const best = this.bestChunkOf;
    const bodyNotes = this.bodyNoteIds;
    let nBody = 0;
    for (let ci = 0; ci < nChunks; ci++) {
      const c = touchedChunks[ci];
      const slot = this.chunkNote[c];
      const s = this.chunkLinks[c] === 1 ? chunkScore[c] * LINK_LIST_WEIGHT : chunkScore[c];
      chunkScore[c] = 0;
      if (best[slot] < 0) {
        bodyNotes[nBody++] = slot;
        best[slot] = c;
        bodyBest[slot] = s;
      } else if (s > bodyBest[slot] || (s === bodyBest[slot] && c < best[slot])) {
        // Ties go to the earlier passage: a fresh build and a loaded snapshot number passages alike within a note.
        third[slot] = second[slot];
        second[slot] = bodyBest[slot];
        bodyBest[slot] = s;
        best[slot] = c;
      } else if (s > second[slot]) {
        third[slot] = second[slot];
        second[slot] = s;
      } else if (s > third[slot]) {
        third[slot] = s;
      }
    }
    for (let bi = 0; bi < nBody; bi++) {
      const slot = bodyNotes[bi];
      if (row[slot] < 0) {
        touched[nTouched++] = slot;
        noteScore[slot] = 0;
      }
      noteScore[slot] += bodyBest[slot] + p.restChunks * (second[slot] + third[slot]);
    }
    const heap = new TopK(Math.min(k, nTouched));
    for (let ti = 0; ti < nTouched; ti++) {
      const slot = touched[ti];
      heap.offer(noteScore[slot], best[slot] >= 0 ? best[slot] : (this.notes[slot]?.firstChunk ?? 0), slot);
      noteScore[slot] = 0;
      row[slot] = -1;
    }
    for (let bi = 0; bi < nBody; bi++) {
      const slot = bodyNotes[bi];
      best[slot] = -1;
      bodyBest[slot] = 0;
      second[slot] = 0;
      third[slot] = 0;
    }
    return heap.sorted().map((e) => ({ slot: e.id2, score: e.score, bestChunk: e.id }));
  }

  /**
   * Rarity of a term among notes (not passages: a list of 2,000 entries that says "tables" in each is one note that
   * says it, and must not make the word common). The notes holding it in their body, or in a title, summary or tags
   * field when more; counted from the postings once and kept until the index changes.
   */
  idf(term: string): number {
    let df = this.noteDf.get(term);
    if (df === undefined) {
      df = 0;
      const post = this.fields.body.terms.get(term);
      if (post) {
        // A note's passages have consecutive ids: its passages holding the term sit together in the list.
        const ids = post.ids;
        let last = -1;
        for (let i = 0; i < post.n; i++) {
          const slot = this.chunkNote[ids[i]];
          if (slot >= 0 && slot !== last) {
            df++;
            last = slot;
          }
        }
      }
      for (const f of ['title', 'summary', 'tags'] as const) {
        const p = this.fields[f].terms.get(term);
        if (p && p.n > df) df = Math.min(p.n, this.fields[f].liveDocs);
      }
      if (this.noteDf.size > 100_000) this.noteDf.clear();
      this.noteDf.set(term, df);
    }
    const n = this.liveNotes;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Which fields of a note (and chunk) contain each term: for the "why" of a hit. */
  matchedFields(slot: number, chunk: number, terms: string[]): Map<FieldName, string[]> {
    const out = new Map<FieldName, string[]>();
    for (const t of terms) {
      for (const f of FIELDS) {
        const post = this.fields[f].terms.get(t);
        if (post && post.tfOf(f === 'body' ? chunk : slot) > 0) {
          const list = out.get(f) ?? [];
          list.push(t);
          out.set(f, list);
        }
      }
    }
    return out;
  }
}

/** Keeps the k best of a list by score, best first. */
export function topK<T extends { score: number }>(items: T[], k: number): T[] {
  if (items.length <= k * 4) return items.sort((a, b) => b.score - a.score).slice(0, k);
  // A window of the k best kept in ascending order; a better item replaces the smallest and bubbles into place.
  const heap: T[] = [];
  for (const it of items) {
    if (heap.length < k) {
      heap.push(it);
      if (heap.length === k) heap.sort((a, b) => a.score - b.score);
    } else if (it.score > heap[0].score) {
      heap[0] = it;
      let i = 0;
      while (i + 1 < heap.length && heap[i].score > heap[i + 1].score) {
        const tmp = heap[i];
        heap[i] = heap[i + 1];
        heap[i + 1] = tmp;
        i++;
      }
    }
  }
  return heap.sort((a, b) => b.score - a.score);
}
