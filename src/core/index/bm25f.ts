// The BM25F scorer of the text index: a note's title, summary and tags are fields of each of its passages, and a
// term's weighted frequencies in all four (each normalised by its own field length) are added before one saturation.
// Its scratch arrays are reused across queries: a common term touches thousands of notes, and fresh arrays mean GC
// pauses.
import type { FieldIndex } from './postings.js';
import { isLinkList } from './chunk.js';
import { type Bm25Params, type FieldName, LINK_LIST_WEIGHT, type IndexedNote, type TextCandidate } from './text-types.js';
import { TopK } from './vector-store.js';

/** What the scorer reads of the index. */
export interface ScoredIndex {
  readonly notes: readonly (IndexedNote | null)[];
  readonly fields: Record<FieldName, FieldIndex>;
  readonly chunkNote: Int32Array;
  /** Per passage: 0 not looked at yet, 1 a list of links (`isLinkList`), 2 not (`linkWeighted` looks on first use). */
  readonly chunkLinks: Uint8Array;
  readonly chunkText: readonly string[];
  readonly chunkCount: number;
  idf(term: string): number;
}

/**
 * A passage's score, at LINK_LIST_WEIGHT for a list of links. Whether it is one is read from its text the first time a
 * query touches it: a host loading its snapshot looked at all 15,000 passages of the 13,415-note vault (~40 ms of its
 * CPU before its first answer) for the few hundred a query ever scores.
 */
export function linkWeighted(ix: Pick<ScoredIndex, 'chunkLinks' | 'chunkText'>, c: number, score: number): number {
  let v = ix.chunkLinks[c];
  if (v === 0) {
    const t = ix.chunkText[c] ?? '';
    v = (t.includes('[') || t.includes('http')) && isLinkList(t) ? 1 : 2;
    ix.chunkLinks[c] = v;
  }
  return v === 1 ? score * LINK_LIST_WEIGHT : score;
}

interface Query {
  terms: string[];
  idfs: number[];
  allowed: Uint8Array | null;
  p: Bm25Params;
  termWeights: number[] | undefined;
}

const sat = (x: number, k1: number): number => (x * (k1 + 1)) / (x + k1);

/**
 * One query term's BM25 score in a passage's body, from its `tf` mentions at the passage's length: what the scorer adds
 * for a passage with no title or tag match, for the readers that score a passage on its own (answering.ts,
 * reading-order.ts).
 */
export function bodyTermScore(bf: Pick<FieldIndex, 'lengths'>, avg: number, c: number, tf: number, idf: number, p: Bm25Params): number {
  const x = (p.weights.body * tf) / (1 - p.b + (p.b * bf.lengths[c]) / avg);
  return idf * sat(x, p.k1);
}

export class Bm25fScorer {
  private noteScore = new Float64Array(0);
  private bodyBest = new Float64Array(0);
  private bodySecond = new Float64Array(0);
  private bodyThird = new Float64Array(0);
  private bestChunkOf = new Int32Array(0);
  private chunkScore = new Float64Array(0);
  private touchedNotes = new Int32Array(0);
  private nTouched = 0;
  private touchedChunkIds = new Int32Array(0);
  private nChunks = 0;
  private bodyNoteIds = new Int32Array(0);
  private nBody = 0;
  /** Per note touched by a query's title, summary or tag match: its row in `metaTf` (-1: none). */
  private metaRow = new Int32Array(0);
  private metaTf = new Float64Array(1024);
  /** Per note touched by a query: how many of its title's words the query holds. */
  private titleHits = new Float64Array(0);
  /** Per passage touched: which of the query's first 31 terms it holds (a bit each). */
  private chunkMask = new Int32Array(0);
  /** Per note with a matching passage: its row in `termBest`, each term's best gain in any of its passages (-1: none). */
  private bodyRow = new Int32Array(0);
  private termBest = new Float64Array(1024);
  private nt = 0;

  constructor(private readonly ix: ScoredIndex) {}

  /**
   * BM25F over passages: a word of the title counts about as much as a second mention, never as a match of its own,
   * so a note named after one word of the question cannot outrank the passage that holds the rest. A note scores its
   * best passage plus `restChunks` of the next two and `restTerms` of what its other passages hold of the query that
   * the best lacks (a term's best gain in them). `allowed[slot]` = 1 restricts to filtered notes. Returns
   * the `k` best notes, best first (a heap over typed arrays: no object per matching note).
   */
  score(terms: string[], allowed: Uint8Array | null, p: Bm25Params, k: number, termWeights?: number[]): TextCandidate[] {
    this.ensureScratch();
    this.nTouched = 0;
    this.nChunks = 0;
    this.nBody = 0;
    this.nt = terms.length;
    const q: Query = { terms, idfs: terms.map((t) => this.ix.idf(t)), allowed, p, termWeights };
    this.metaPass(q);
    this.bodyPass(q);
    this.bestPassages();
    return this.collect(p, k);
  }

  /** Pass 1: each note's weighted, length-normalised frequency of each term in its title, summary and tags. */
  private metaPass({ terms, idfs, allowed, p, termWeights }: Query): void {
    const nt = terms.length;
    const row = this.metaRow;
    let rows = 0;
    for (let qi = 0; qi < nt; qi++) {
      const qw = termWeights ? termWeights[qi] : 1;
      for (const f of ['title', 'summary', 'tags'] as const) {
        const w = p.weights[f] * qw;
        if (w === 0) continue;
        const fi = this.ix.fields[f];
        const post = fi.terms.get(terms[qi]);
        if (!post) continue;
        const avg = fi.averageLength();
        const ids = post.ids;
        const tfs = post.tfs;
        for (let i = 0; i < post.n; i++) {
          const slot = ids[i];
          if (this.ix.notes[slot] === null || (allowed !== null && allowed[slot] === 0)) continue;
          if (f === 'title') this.titleHits[slot] += tfs[i];
          if (row[slot] < 0) {
            row[slot] = rows++;
            this.touchedNotes[this.nTouched++] = slot;
            if (rows * nt > this.metaTf.length) {
              const next = new Float64Array(Math.max(rows * nt * 2, 1024));
              next.set(this.metaTf);
              this.metaTf = next;
            }
            this.metaTf.fill(0, (rows - 1) * nt, rows * nt);
          }
          this.metaTf[row[slot] * nt + qi] += (w * tfs[i]) / (1 - p.b + (p.b * fi.lengths[slot]) / avg);
        }
      }
    }
    // A note's score from its title, summary and tags alone (a passage without the words adds nothing to it).
    for (let ti = 0; ti < this.nTouched; ti++) {
      const slot = this.touchedNotes[ti];
      const base = row[slot] * nt;
      let s = 0;
      for (let qi = 0; qi < nt; qi++) if (this.metaTf[base + qi] > 0) s += idfs[qi] * sat(this.metaTf[base + qi], p.k1);
      this.noteScore[slot] = s;
    }
  }

  /** Pass 2: each passage's gain over its note's own fields, its body frequency saturated together with them. */
  private bodyPass({ terms, idfs, allowed, p, termWeights }: Query): void {
    const nt = terms.length;
    const bf = this.ix.fields.body;
    const avg = bf.averageLength();
    const { chunkNote } = this.ix;
    const { metaRow: row, metaTf: meta, chunkScore, chunkMask, bodyRow } = this;
    let rows = 0;
    for (let qi = 0; qi < nt; qi++) {
      const bit = qi < 31 ? 1 << qi : 0;
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
        const x = (wb * tfs[i]) / (1 - p.b + (p.b * bf.lengths[c]) / avg);
        const r = row[slot];
        const m = r < 0 ? 0 : meta[r * nt + qi];
        const s = m === 0 ? idf * sat(x, p.k1) : idf * (sat(m + x, p.k1) - sat(m, p.k1));
        if (chunkScore[c] === 0) this.touchedChunkIds[this.nChunks++] = c;
        chunkScore[c] += s;
        chunkMask[c] |= bit;
        // A note of one passage has nothing elsewhere to add (a note's passages are numbered in a row). Never read
        // outside the array: the optimised loop is thrown away the first time it does.
        if (p.restTerms === 0 || ((c === 0 || chunkNote[c - 1] !== slot) && (c + 1 >= chunkNote.length || chunkNote[c + 1] !== slot))) continue;
        if (bodyRow[slot] < 0) {
          bodyRow[slot] = rows++;
          if (rows * nt > this.termBest.length) {
            const next = new Float64Array(Math.max(rows * nt * 2, 1024));
            next.set(this.termBest);
            this.termBest = next;
          }
          this.termBest.fill(0, (rows - 1) * nt, rows * nt);
        }
        // A list of links counts whole here: the works a note cites name what it is about ("The Tyranny of Metrics"
        // under a note on measuring behaviour), and this is only what the best passage lacks, at restTerms.
        const at = bodyRow[slot] * nt + qi;
        if (s > this.termBest[at]) this.termBest[at] = s;
      }
    }
  }

  /** Each note's best three passages (a list of links at LINK_LIST_WEIGHT of its score). */
  private bestPassages(): void {
    const { chunkScore, bodyBest, bodySecond: second, bodyThird: third, bestChunkOf: best } = this;
    for (let ci = 0; ci < this.nChunks; ci++) {
      const c = this.touchedChunkIds[ci];
      const slot = this.ix.chunkNote[c];
      const s = linkWeighted(this.ix, c, chunkScore[c]);
      chunkScore[c] = 0;
      if (best[slot] < 0) {
        this.bodyNoteIds[this.nBody++] = slot;
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
  }

  /** Notes' scores (title cover applied) into a heap; the scratch arrays are left clean for the next query. */
  private collect(p: Bm25Params, k: number): TextCandidate[] {
    const { noteScore, metaRow: row, bestChunkOf: best, titleHits: titles } = this;
    for (let bi = 0; bi < this.nBody; bi++) {
      const slot = this.bodyNoteIds[bi];
      if (row[slot] < 0) {
        this.touchedNotes[this.nTouched++] = slot;
        noteScore[slot] = 0;
      }
      noteScore[slot] += this.bodyBest[slot] + p.restChunks * (this.bodySecond[slot] + this.bodyThird[slot]) + p.restTerms * this.lacking(slot);
    }
    for (let ci = 0; ci < this.nChunks; ci++) this.chunkMask[this.touchedChunkIds[ci]] = 0;
    const heap = new TopK(Math.min(k, this.nTouched));
    const tlen = this.ix.fields.title.lengths;
    for (let ti = 0; ti < this.nTouched; ti++) {
      const slot = this.touchedNotes[ti];
      // A note named for what is asked ("Finding Eigenvectors" for "how to find the eigenvectors of a matrix").
      if (titles[slot] > 0) noteScore[slot] *= 1 + p.titleCover * Math.min(1, titles[slot] / Math.max(1, tlen[slot]));
      titles[slot] = 0;
      heap.offer(noteScore[slot], best[slot] >= 0 ? best[slot] : (this.ix.notes[slot]?.firstChunk ?? 0), slot);
      noteScore[slot] = 0;
      row[slot] = -1;
    }
    for (let bi = 0; bi < this.nBody; bi++) {
      const slot = this.bodyNoteIds[bi];
      best[slot] = -1;
      this.bodyBest[slot] = 0;
      this.bodySecond[slot] = 0;
      this.bodyThird[slot] = 0;
      this.bodyRow[slot] = -1;
    }
    return heap.sorted().map((e) => ({ slot: e.id2, score: e.score, bestChunk: e.id }));
  }

  /** What a note's other passages hold of the query that its best passage lacks: each such term's best gain. */
  private lacking(slot: number): number {
    const r = this.bodyRow[slot];
    if (r < 0) return 0;
    const mask = this.chunkMask[this.bestChunkOf[slot]];
    const nt = Math.min(this.nt, 31);
    let s = 0;
    for (let qi = 0; qi < nt; qi++) if ((mask & (1 << qi)) === 0) s += this.termBest[r * this.nt + qi];
    return s;
  }

  private ensureScratch(): void {
    const notes = this.ix.notes.length;
    if (this.noteScore.length < notes) {
      const n = Math.max(1024, notes * 2);
      this.noteScore = new Float64Array(n);
      this.bodyBest = new Float64Array(n);
      this.bodySecond = new Float64Array(n);
      this.bodyThird = new Float64Array(n);
      this.bestChunkOf = new Int32Array(n).fill(-1);
      this.touchedNotes = new Int32Array(n);
      this.bodyNoteIds = new Int32Array(n);
      this.metaRow = new Int32Array(n).fill(-1);
      this.titleHits = new Float64Array(n);
      this.bodyRow = new Int32Array(n).fill(-1);
    }
    if (this.chunkScore.length < this.ix.chunkCount) {
      const n = Math.max(1024, this.ix.chunkCount * 2);
      this.chunkScore = new Float64Array(n);
      this.touchedChunkIds = new Int32Array(n);
      this.chunkMask = new Int32Array(n);
    }
  }
}
