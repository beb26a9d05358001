// The full-text half of the index: notes and their chunks in slots, four BM25 fields, and a scorer that returns
// per-note results with the best chunk. Title, summary and tags are indexed once per note; body text per chunk.
import type { Chunk } from './chunk.js';
import { FieldIndex } from './postings.js';
import type { CjkMode } from './language.js';
import { Tokenizer } from './tokenize.js';
import { type IndexedNote, type FieldName, FIELDS, type Bm25Params, DEFAULT_BM25, type TextCandidate } from './text-types.js';
import { BOILERPLATE_MIN_NOTES, BOILERPLATE_SHARE, countedLines, LineSketch } from './line-sketch.js';
import { Bm25fScorer } from './bm25f.js';
import { answeringChunk, type QuotedPassage } from './answering.js';

export { type IndexedNote, type FieldName, FIELDS, type Bm25Params, DEFAULT_BM25, LINK_LIST_WEIGHT, type TextCandidate, topK } from './text-types.js';
export { BOILERPLATE_MIN_NOTES, BOILERPLATE_SHARE } from './line-sketch.js';

export class TextIndex {
  readonly tokenizer: Tokenizer;
  notes: (IndexedNote | null)[] = [];
  readonly slotOf = new Map<string, number>();
  chunkNote = new Int32Array(1024);
  /** 1 for a passage that is a list of links (`isLinkList`): it ranks at LINK_LIST_WEIGHT of its score; 2 for one that
   * is not, 0 for one not looked at yet (bm25f.ts `linkWeighted` looks when a query first scores it). */
  chunkLinks = new Uint8Array(1024);
  chunkHeading: (string | undefined)[] = [];
  chunkText: string[] = [];
  chunkCount = 0;
  readonly fields: Record<FieldName, FieldIndex> = { title: new FieldIndex(), summary: new FieldIndex(), tags: new FieldIndex(), body: new FieldIndex() };
  deadNotes = 0;
  deadChunks = 0;
  private readonly scorer = new Bm25fScorer(this);
  /** Notes per term, counted on demand by `idf`; emptied by every change. */
  private readonly noteDf = new Map<string, number>();
  /**
   * Notes per line, for boilerplate: counted as notes are added and removed; a loaded snapshot brings its own (the
   * first excerpt after a restart used to count every note's lines).
   */
  lines = new LineSketch();

  constructor(opts: { stemming?: boolean; cjk?: CjkMode } = {}) {
    this.tokenizer = new Tokenizer(opts);
  }

  get liveNotes(): number {
    return this.slotOf.size;
  }

  /**
   * Adds a note (replacing any note at the same path) and returns its slot. `properties`: the frontmatter's other
   * values as words, searched with the tags. `terms`, when given, receives the note's distinct terms of its title,
   * summary, tags and passages (not its properties): the relevance gate's term statistics, without a second reading.
   */
  add(note: Omit<IndexedNote, 'firstChunk' | 'chunkCount'>, chunks: Chunk[], properties = '', terms?: Set<string>): number {
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
    const keep = (tf: Map<string, number>): void => {
      if (terms) for (const k of tf.keys()) terms.add(k);
    };
    keep(t.tf);
    keep(s.tf);
    if (terms) for (const k of properties ? tk.terms(note.tags.join(' '), lang) : g.tf.keys()) terms.add(k);
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
      this.chunkLinks[id] = 0;
      this.chunkHeading[id] = c.heading;
      this.chunkText[id] = c.text;
      const b = tk.frequencies(c.heading ? `${c.heading}\n${c.text}` : c.text, lang);
      this.fields.body.add(id, b.tf, b.length);
      keep(b.tf);
    }
    this.lines.note(chunks.map((c) => c.text), 1);
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

  /** A note's passage texts, in order. */
  *noteChunks(n: IndexedNote): Generator<string> {
    for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) yield this.chunkText[c] ?? '';
  }

  /**
   * A passage's text for an excerpt (a hit quotes the text it was found with): without the lines that repeat across
   * many notes (BOILERPLATE_MIN_NOTES and BOILERPLATE_SHARE of them: template buttons, footers, notices), unless that
   * would leave nothing.
   */
  withoutBoilerplate(text: string): string {
    const min = Math.max(BOILERPLATE_MIN_NOTES, Math.ceil(this.liveNotes * BOILERPLATE_SHARE));
    const { a: rowA, b: rowB } = this.lines;
    let out = '';
    let from = 0;
    countedLines(
      text,
      (a, b, start, end) => {
        if (Math.min(rowA[a], rowB[b]) < min) return;
        out += text.slice(from, start);
        from = Math.min(text.length, end + 1);
      },
      (a) => rowA[a] >= min,
    );
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

  /** The `k` best notes for `terms`, best first (BM25F over passages: `bm25f.ts`). */
  score(terms: string[], allowed: Uint8Array | null, p: Bm25Params = DEFAULT_BM25, k = 100, termWeights?: number[]): TextCandidate[] {
    return this.scorer.score(terms, allowed, p, k, termWeights);
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

  /** The passage of a note to quote for a query (`answering.ts`); `query` as typed, for what it asks. */
  answeringChunk(slot: number, bestChunk: number, terms: string[], p: Bm25Params = DEFAULT_BM25, query = ''): QuotedPassage {
    return answeringChunk(this, slot, bestChunk, terms, p, query);
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
