// The engine's one tokenizer and one stop list: text into terms (lower case, Unicode letters/digits, English stop words
// dropped, Porter-stemmed with Orama's English stemmer) for the index, the relevance gate, dedup and curation vectors.
import { tokenizer as oramaTokenizer } from '@orama/orama/components';

type Stemmer = (word: string) => string;

const oramaStemmer = (oramaTokenizer.createTokenizer({ language: 'english', stemming: true }) as unknown as { stemmer: Stemmer }).stemmer;

// A classic English stop list plus question words: natural-language questions ("when did she…") carry them and they
// only add noise to BM25. Kept short on purpose: words such as "not" or "new" stay searchable.
export const STOP_WORDS = new Set(
  ('a about above after again all am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing down during each few for from further had has have having he her here hers herself him himself his how ' +
    'i if in into is it its itself just me more most my myself no nor of off on once only or other our ours ourselves out over ' +
    'own same she should so some such than that the their theirs them themselves then there these they this those through to too ' +
    'under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves ' +
    's t d ll m re ve isn aren wasn weren don doesn didn won wouldn shouldn couldn hasn haven hadn').split(' '),
);

const SPLIT = /[^\p{L}\p{N}_]+/u;
// A fast first cut on ASCII separators; pieces holding other characters are cut again with the Unicode rule.
const SPLIT_ASCII = /[^a-z0-9_\u0080-\uffff]+/;
const NON_ASCII = /[\u0080-\uffff]/;
const MAX_TOKEN = 40;
/** A hyphen or dot between two letters or digits: what holds a compound together. */
const COMPOUND_JOINT = /(?<=[\p{L}\p{N}])[-.](?=[\p{L}\p{N}])/gu;

export class Tokenizer {
  // Stemming is the costly step; the vocabulary of a vault is small compared to its token count.
  private readonly cache = new Map<string, string>();

  private readonly stem: Stemmer;
  private readonly stop: ReadonlySet<string>;
  private readonly compounds: boolean;

  /**
   * The index uses the defaults. `stemming: false` only for comparisons with plain BM25 (benchmarks). Similarity
   * measures (dedup, curation's word vectors) ask for `compounds: true`: `pnpm-lock.yaml`, `post-order` or a date stay
   * one term, as they name one thing. TF-IDF that weighs common words down itself asks for `stopWords: false`, so that
   * notes on "LLVM and" and "LLVM or" differ. A measure that must ignore more words (the relevance gate's words of
   * conversation) adds them with `extraStopWords`: an extension of this one list, never a list of its own.
   */
  constructor(opts: { stemming?: boolean; stopWords?: boolean; extraStopWords?: Iterable<string>; compounds?: boolean } = {}) {
    this.stem = opts.stemming === false ? (w) => w : oramaStemmer;
    const base: ReadonlySet<string> = opts.stopWords === false ? new Set() : STOP_WORDS;
    this.stop = opts.extraStopWords ? new Set([...base, ...opts.extraStopWords]) : base;
    this.compounds = opts.compounds === true;
  }

  /** Every term occurrence, in order (duplicates kept: term frequency matters). */
  terms(text: string): string[] {
    const out: string[] = [];
    if (!text) return out;
    if (this.compounds) text = text.replace(COMPOUND_JOINT, '_');
    for (const piece of text.toLowerCase().split(SPLIT_ASCII)) {
      if (piece.length === 0) continue;
      if (NON_ASCII.test(piece)) {
        for (const raw of piece.split(SPLIT)) this.push(raw, out);
      } else {
        this.push(piece, out);
      }
    }
    return out;
  }

  private push(raw: string, out: string[]): void {
    if (raw.length === 0 || raw.length > MAX_TOKEN) return;
    const t = this.normalize(raw);
    if (t) out.push(t);
  }

  normalize(word: string): string {
    let t = this.cache.get(word);
    if (t !== undefined) return t;
    t = this.stop.has(word) ? '' : this.stem(word.normalize('NFKD').replace(/\p{M}/gu, ''));
    // Bound the cache: a pasted log full of unique tokens must not grow memory for ever.
    if (this.cache.size > 500_000) this.cache.clear();
    this.cache.set(word, t);
    return t;
  }

  /** The text's own words by the term each gives (the first word wins), so a "why" can show words, not stems. */
  wordsByTerm(text: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const m of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
      if (m[0].length > MAX_TOKEN) continue;
      const t = this.normalize(m[0].toLowerCase());
      if (t && !out.has(t)) out.set(t, m[0]);
    }
    return out;
  }

  /** Counts term frequencies; returns [term, tf] pairs and the token count (the field length). */
  frequencies(text: string): { tf: Map<string, number>; length: number } {
    const tf = new Map<string, number>();
    const terms = this.terms(text);
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, length: terms.length };
  }
}
