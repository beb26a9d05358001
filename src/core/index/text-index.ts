// The full-text half of the index: notes and their chunks in slots, four BM25 fields, and a scorer that returns
// per-note results with the best chunk. Title, summary and tags are indexed once per note; body text per chunk.
import { isLinkList, type Chunk } from './chunk.js';
import { FieldIndex } from './postings.js';
import type { CjkMode } from './language.js';
import { Tokenizer } from './tokenize.js';
import { type IndexedNote, type FieldName, FIELDS, type Bm25Params, DEFAULT_BM25, LINK_LIST_WEIGHT, type TextCandidate } from './text-types.js';
import { BOILERPLATE_MIN_NOTES, BOILERPLATE_SHARE, countedLines, LineSketch } from './line-sketch.js';
import { TopK } from './vector-store.js';

export { type IndexedNote, type FieldName, FIELDS, type Bm25Params, DEFAULT_BM25, LINK_LIST_WEIGHT, type TextCandidate, topK } from './text-types.js';
export { BOILERPLATE_MIN_NOTES, BOILERPLATE_SHARE } from './line-sketch.js';

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

  /**
   * The passage of a note to quote for a query: its best scoring one, unless another passage's own heading (the last
   * part of its heading path) names more of what is asked (beyond the note's title) and its score, grown by that
   * share, passes the best's
   * ("Differences between Burndown and Burnup" for "burndown chart versus burnup chart", rather than "What is a
   * Burndown chart?", which says "burndown" and "chart" more often). Shares weigh the query's words by rarity.
   */
  answeringChunk(slot: number, bestChunk: number, terms: string[], p: Bm25Params = DEFAULT_BM25): number {
    const n = this.notes[slot];
    if (!n || n.chunkCount < 2 || terms.length === 0) return bestChunk;
    const idfs = terms.map((t) => this.idf(t));
    const total = idfs.reduce((a, x) => a + x, 0);
    if (total <= 0) return bestChunk;
    // Words of the note's title name every section of it ("Layout Thrashing" in "What is Layout Thrashing"): counted
    // only when no heading names any other word of the question ("Data Race vs. Race Condition" in "Data race and race
    // condition" for "difference between data race and race condition").
    const named = terms.map((t) => (this.fields.title.terms.get(t)?.tfOf(slot) ?? 0) > 0);
    const heldBy = new Map<string, Set<string>>();
    const ownHeading = (c: number): string | undefined => {
      const h = this.chunkHeading[c];
      if (!h) return undefined;
      const at = h.lastIndexOf(' > ');
      const own = at < 0 ? h : h.slice(at + 3);
      if (!heldBy.has(own)) heldBy.set(own, new Set(this.tokenizer.queryTerms(own, () => true)));
      return own;
    };
    let beyondTitle = false;
    for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount && !beyondTitle; c++) {
      const own = ownHeading(c);
      if (own !== undefined) beyondTitle = terms.some((t, i) => !named[i] && heldBy.get(own)!.has(t));
    }
    const share = (c: number): number => {
      const own = ownHeading(c);
      if (own === undefined) return 0;
      const held = heldBy.get(own)!;
      let v = 0;
      for (let i = 0; i < terms.length; i++) if (held.has(terms[i]) && !(beyondTitle && named[i])) v += idfs[i];
      return v / total;
    };
    const bf = this.fields.body;
    const avg = bf.averageLength();
    const posts = terms.map((t) => bf.terms.get(t));
    const passage = (c: number): number => {
      let s = 0;
      for (let i = 0; i < terms.length; i++) {
        const tf = posts[i]?.tfOf(c) ?? 0;
        if (tf === 0) continue;
        const x = (p.weights.body * tf) / (1 - p.b + (p.b * bf.lengths[c]) / avg);
        s += (idfs[i] * (x * (p.k1 + 1))) / (x + p.k1);
      }
      return this.chunkLinks[c] === 1 ? s * LINK_LIST_WEIGHT : s;
    };
    let pick = bestChunk;
    const own = share(bestChunk);
    let top = passage(bestChunk) * (1 + own);
    for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) {
      // Only a heading that names more of the question than the best passage's own can take its place.
      const h = share(c);
      if (c === bestChunk || h <= own) continue;
      const v = passage(c) * (1 + h);
      if (v > top) {
        top = v;
        pick = c;
      }
    }
    return pick;
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
