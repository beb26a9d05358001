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
  /** The frontmatter's other keys with their values, a line a key ("year: 1957"): shown when a query asks for one. */
  props?: string;
  superseded: boolean;
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
  /**
   * A note's score grows by up to this share when the query holds its title's words (the share of them held): what a
   * note is named for is what it is about, which BM25F's one saturation of title and body counts only as a mention.
   */
  titleCover: number;
}

// b tuned on LoCoMo conv-26/30/41/42 (turn level): lower length normalisation than the textbook 0.75 suits short notes
// and natural-language questions (bench/index.bench.ts). k1 was 0.7 there too; with the title, summary and tags now
// saturating together with each passage (BM25F), 1.0 lets a body that says a word six times count beside a title that
// says it once: bench/recall-sets hit@3 dwarvesf-brain 0.93 -> 0.96, the other two vaults equal or better, for LoCoMo
// nDCG@10 0.524 -> 0.520 (untitled turns: only k1 changes there).
// titleCover 0.1 (bench/recall-sets, same run): MRR 0.93 -> 0.93, 0.92 -> 0.93, 0.93 -> 0.94 and hit@3 0.96 -> 0.98,
// 0.96, 0.98 on the Zettelkasten, dwarvesf and kepano vaults; 0.2 and 0.35 cost the Zettelkasten's or dwarvesf's MRR.
export const DEFAULT_BM25: Bm25Params = { weights: { title: 3, summary: 2, tags: 1.5, body: 1 }, k1: 1.0, b: 0.4, restChunks: 0.2, titleCover: 0.1 };

/**
 * A list of links matches a question by the names of the notes it points to; those notes hold the answer. Such a
 * passage counts at this share (a map of contents was in 14% of dwarvesf-brain's top 3s at full weight).
 */
export const LINK_LIST_WEIGHT = 0.5;

/**
 * A line found in at least this many notes, and in at least BOILERPLATE_SHARE of them, is boilerplate (a template's
 * button, a footer, a repeated notice): left out of excerpts, which then show what the note itself says.
 */
export const BOILERPLATE_MIN_NOTES = 5;
export const BOILERPLATE_SHARE = 0.005;
/** Lines shorter than this ("---", "Notes:") are never counted: too short to be a template's sentence. */
const BOILERPLATE_MIN_CHARS = 8;
/** Buckets per row of the count-min sketch of line document frequencies (two rows of 16-bit counts: 4 MB). */
const SKETCH_BITS = 20;

const MASK = (1 << SKETCH_BITS) - 1;

/**
 * The lines of a passage worth counting for boilerplate, each as two hashes of its normalised text (spaces collapsed,
 * ASCII lower case) and where it sits: not in or opening a code block (repeated code such as `} else {` is the code),
 * not headings (the heading path shows those). One pass over the characters, no string made per line.
 */
function countedLines(text: string, each: (a: number, b: number, start: number, end: number) => void): void {
  let fence = 0; // the fence's character code while inside a code block
  const n = text.length;
  for (let s = 0; s < n; ) {
    let e = text.indexOf('\n', s);
    if (e < 0) e = n;
    let i = s;
    while (i < e && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    const c0 = text.charCodeAt(i);
    if (i - s <= 3 && (c0 === 96 || c0 === 126) && text.charCodeAt(i + 1) === c0 && text.charCodeAt(i + 2) === c0) {
      fence = fence === 0 ? c0 : fence === c0 ? 0 : fence;
    } else if (fence === 0 && !(i === s && c0 === 35 && isHeading(text, s, e))) {
      let h1 = 0x811c9dc5;
      let h2 = 0x2f6b1d3;
      let len = 0;
      let space = false;
      let end = e;
      while (end > i && (text.charCodeAt(end - 1) <= 32)) end--;
      for (let k = i; k < end; k++) {
        let c = text.charCodeAt(k);
        if (c === 32 || c === 9 || c === 13) {
          space = true;
          continue;
        }
        if (space) {
          h1 = Math.imul(h1 ^ 32, 0x01000193);
          h2 = Math.imul(h2 ^ 32, 0x5bd1e995);
          len++;
          space = false;
        }
        if (c >= 65 && c <= 90) c += 32;
        h1 = Math.imul(h1 ^ c, 0x01000193);
        h2 = Math.imul(h2 ^ c, 0x5bd1e995);
        len++;
      }
      if (len >= BOILERPLATE_MIN_CHARS) each(mix(h1) & MASK, mix(h2) & MASK, s, e);
    }
    s = e + 1;
  }
}

function isHeading(text: string, s: number, e: number): boolean {
  let k = s;
  while (k < e && text.charCodeAt(k) === 35) k++;
  const c = text.charCodeAt(k);
  return k - s <= 6 && k < e && (c === 32 || c === 9);
}

function mix(h: number): number {
  h ^= h >>> 13;
  h = Math.imul(h, 0x5bd1e995);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * How many notes hold each line, estimated in fixed memory (a count-min sketch: two hashed rows, the smaller count
 * read; a line's count is never under its true number of notes and rarely over it). Updated with each note added or
 * removed, so an edit never needs the vault read again.
 */
class LineSketch {
  readonly a = new Uint16Array(1 << SKETCH_BITS);
  readonly b = new Uint16Array(1 << SKETCH_BITS);
  private readonly seen = new Set<number>();

  /** Counts (or with -1 uncounts) one note's distinct lines. */
  note(chunks: Iterable<string>, sign: 1 | -1): void {
    // A line a note repeats (a checklist's "- [ ] call") counts once for it.
    const seen = this.seen;
    seen.clear();
    for (const text of chunks) {
      countedLines(text, (a, b) => {
        const key = ((a << 10) ^ b) & 0x3fffffff;
        if (seen.has(key)) return;
        seen.add(key);
        this.a[a] = Math.max(0, Math.min(0xffff, this.a[a] + sign));
        this.b[b] = Math.max(0, Math.min(0xffff, this.b[b] + sign));
      });
    }
  }
}

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
  /** Per note touched by a query: how many of its title's words the query holds. */
  private titleHits = new Float64Array(0);
  /** Notes per term, counted on demand by `idf`; emptied by every change. */
  private readonly noteDf = new Map<string, number>();
  /**
   * Notes per line, for boilerplate: counted as notes are added and removed; after a snapshot is loaded, over the live
   * notes at the first excerpt.
   */
  private lines = new LineSketch();
  /** Notes the sketch counted: short of the live notes after a snapshot load (its notes never passed through `add`). */
  private sketched = 0;

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
    this.lines.note(chunks.map((c) => c.text), 1);
    this.sketched++;
    return slot;
  }

  removeSlot(slot: number): void {
    const n = this.notes[slot];
    if (!n) return;
    this.notes[slot] = null;
    this.noteDf.clear();
    if (this.slotOf.get(n.path) === slot) this.slotOf.delete(n.path);
    this.deadNotes++;
    this.lines.note(this.noteChunks(n), -1);
    this.sketched--;
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

  private *noteChunks(n: IndexedNote): Generator<string> {
    for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) yield this.chunkText[c] ?? '';
  }

  /**
   * A passage's text for an excerpt: without the lines that repeat across many notes (BOILERPLATE_MIN_NOTES and
   * BOILERPLATE_SHARE of them: template buttons, footers, notices), unless that would leave nothing.
   */
  excerptText(chunk: number): string {
    const text = this.chunkText[chunk] ?? '';
    if (this.sketched !== this.liveNotes) {
      this.lines = new LineSketch();
      for (const n of this.notes) if (n) this.lines.note(this.noteChunks(n), 1);
      this.sketched = this.liveNotes;
    }
    const min = Math.max(BOILERPLATE_MIN_NOTES, Math.ceil(this.liveNotes * BOILERPLATE_SHARE));
    const { a: rowA, b: rowB } = this.lines;
    let out = '';
    let from = 0;
    countedLines(text, (a, b, start, end) => {
      if (Math.min(rowA[a], rowB[b]) < min) return;
      out += text.slice(from, start);
      from = Math.min(text.length, end + 1);
    });
    if (from === 0) return text;
    out += text.slice(from);
    return out.trim() ? out : text;
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
      this.titleHits = new Float64Array(n);
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
          if (f === 'title') this.titleHits[slot] += tfs[i];
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
    const tlen = this.fields.title.lengths;
    const titles = this.titleHits;
    for (let ti = 0; ti < nTouched; ti++) {
      const slot = touched[ti];
      // A note named for what is asked ("Finding Eigenvectors" for "how to find the eigenvectors of a matrix").
      if (titles[slot] > 0) noteScore[slot] *= 1 + p.titleCover * Math.min(1, titles[slot] / Math.max(1, tlen[slot]));
      titles[slot] = 0;
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
