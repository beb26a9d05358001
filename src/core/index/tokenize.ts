// The engine's one tokenizer and one stop list: text into terms (lower case, Unicode letters/digits, stop words
// dropped, stemmed) for the index, the relevance gate, dedup and curation vectors. English text is Porter-stemmed with
// Orama's English stemmer; a text in another language (language.ts) with that language's stemmer and stop list;
// Chinese and Japanese runs are cut into dictionary words, Korean into syllable pairs.
import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { CJK_CHAR, CJK_STOP_WORDS, type CjkMode, cutCjk, detectLanguage, type Lang, languageShown, passageLanguage, STEMMED, stemmedLanguage } from './language.js';

type Stemmer = (word: string) => string;

const oramaStemmer = (oramaTokenizer.createTokenizer({ language: 'english', stemming: true }) as unknown as { stemmer: Stemmer }).stemmer;

/**
 * English stems by lower-case word, shared by every tokenizer (the index's and the relevance gate's stem the same words
 * of every note at a first start: the stemmer is the costly step). Bounded like each tokenizer's own cache.
 */
const englishStems = new Map<string, string>();
function englishStem(word: string): string {
  let t = englishStems.get(word);
  if (t === undefined) {
    t = oramaStemmer(word.normalize('NFKD').replace(/\p{M}/gu, ''));
    if (englishStems.size > 500_000) englishStems.clear();
    englishStems.set(word, t);
  }
  return t;
}

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

/**
 * English irregular forms that a stemmer leaves apart from their base ("went" and "go", "ran" and "run", "children"
 * and "child"): conversation tells what happened in the past tense, a question asks in the base form ("When did Caroline
 * go to the support group?" / "I went to a support group yesterday"). Forms that are also common words of their own
 * ("left", "found", "saw", "lay", "felt", "rose", "lead") are left out, and so is "bought": read as "buy", it cost the
Obsidian Help set a question (bench/lang-recall: "can I get my money back after buying…" found notes on buying). LoCoMo
dev set, turn level nDCG@10 0.515 -> 0.522, every category up; Obsidian Help in English hit@1 0.447 -> 0.474, MRR
0.592 -> 0.609, hit@3 unchanged.
 */
const IRREGULAR = new Map<string, string>();
for (const forms of ('arise arose arisen|awake awoke awoken|become became|begin began begun|bend bent|bite bitten|bleed bled|blow blew blown|' +
  'break broke broken|breed bred|bring brought|build built|burn burnt|catch caught|choose chose chosen|cling clung|come came|' +
  'creep crept|deal dealt|dig dug|draw drew drawn|dream dreamt|drink drank drunk|drive drove driven|eat ate eaten|fall fallen|feed fed|' +
  'fight fought|flee fled|fly flew flown|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|freeze froze frozen|' +
  'get got gotten|give gave given|go went gone|grow grew grown|hang hung|hear heard|hide hidden|hold held|keep kept|kneel knelt|know knew known|' +
  'lend lent|lose lost|make made|mean meant|meet met|pay paid|ride rode ridden|ring rang rung|rise risen|run ran|say said|see seen|seek sought|' +
  'sell sold|send sent|shake shook shaken|shine shone|shrink shrank shrunk|sing sang sung|sink sank sunk|sleep slept|slide slid|' +
  'speak spoke spoken|spend spent|spin spun|stand stood|steal stole stolen|sting stung|strike struck|swear swore sworn|sweep swept|' +
  'swim swam swum|swing swung|take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown|understand understood|' +
  'wake woke woken|wear wore worn|weave wove woven|weep wept|write wrote written|child children|man men|woman women|foot feet|tooth teeth|mouse mice').split('|')) {
  const [base, ...rest] = forms.split(' ');
  for (const f of rest) IRREGULAR.set(f, base);
}

const SPLIT = /[^\p{L}\p{N}_]+/u;
// A fast first cut on ASCII separators; pieces holding other characters are cut again with the Unicode rule.
const SPLIT_ASCII = /[^a-z0-9_\u0080-\uffff]+/;
const NON_ASCII = /[\u0080-\uffff]/;
const MAX_TOKEN = 40;
/** A blank line: where a paragraph (or a section's heading) ends, and where a passage may change language. */
const BLOCK = /\n[ \t]*\n/;
/** A hyphen or dot between two letters or digits: what holds a compound together. */
const COMPOUND_JOINT = /(?<=[\p{L}\p{N}])[-.](?=[\p{L}\p{N}])/gu;

const HIRAGANA_PAIR = /^[\u3041-\u309f]{2}$/;
/** A term of two hiragana: in a Japanese question, its grammar (には, すれ, れば). */
export const isHiraganaPair = (term: string): boolean => HIRAGANA_PAIR.test(term);

/**
 * A Japanese question's terms without its pairs of two hiragana (どうすればいいですか, には, できますか: the grammar
 * of the question, which most notes share), unless nothing else is left. Notes keep theirs, so a word written in
 * hiragana alone is still found (bench/lang-recall: ja hit@3 0.763 -> 0.789, MRR 0.660 -> 0.683). The relevance gate
 * reads a Japanese prompt the same way.
 */
export function japaneseQuestion(terms: string[]): string[] {
  const kept = terms.filter((t) => !isHiraganaPair(t));
  return [...new Set(kept.some((t) => CJK_CHAR.test(t)) ? kept : terms)];
}

export class Tokenizer {
  // Stemming is the costly step; the vocabulary of a vault is small compared to its token count. One cache per language.
  private readonly cache = new Map<string, string>();
  private readonly caches = new Map<Lang, Map<string, string>>();

  private readonly stem: Stemmer;
  private readonly stop: ReadonlySet<string>;
  private readonly extraStop: readonly string[];
  private readonly extraStopIn: Partial<Record<Lang, readonly string[]>>;
  private readonly stopWords: boolean;
  private readonly compounds: boolean;
  /** Plain BM25's tokenizer: split on spaces and punctuation only (no stemming, no language, no CJK words). */
  private readonly plain: boolean;
  private readonly cjk: CjkMode;
  /** Extra stop words of one CJK character: dropped when they stand alone (a run of one, or a Korean word of one syllable). */
  private readonly cjkStop: ReadonlySet<string> = CJK_STOP_WORDS;
  /** Extra stop words of several CJK characters: cut out of a run before it is cut into pairs (谢谢 out of 谢谢你的帮助). */
  private readonly cjkCut: RegExp | undefined;
  private readonly others = new Map<Lang, { stem: Stemmer; stop: ReadonlySet<string> }>();

  /**
   * The index uses the defaults. `stemming: false` only for comparisons with plain BM25 (benchmarks): text is split
   * on spaces and punctuation and nothing more. Similarity measures (dedup, curation's word vectors) ask for
   * `compounds: true`: `pnpm-lock.yaml`, `post-order` or a date stay one term, as they name one thing. TF-IDF that
   * weighs common words down itself asks for `stopWords: false`, so that notes on "LLVM and" and "LLVM or" differ. A
   * measure that must ignore more words (the relevance gate's words of conversation) adds them with
   * `extraStopWords`: an extension of this one list, never a list of its own (a word of CJK characters is cut out of
   * the text before it is cut into pairs, since a pair can straddle it; one such character is dropped where it stands
   * alone, never from inside a word), and `extraStopWordsIn` those of one language only (a text stemmed in German
   * drops "gut", an English one keeps it). `cjk` picks how Chinese and Japanese are
   * cut: overlapping character pairs by default (as Lucene's CJK analyzer), or ICU's dictionary words ('words',
   * where Intl.Segmenter exists; else pairs). Pairs found more on the parallel set (bench/lang-recall: hit@3 zh 0.895
   * vs 0.816, ja 0.737 vs 0.684): a query and a note cut the same phrase into words differently more often than not.
   */
  constructor(
    opts: {
      stemming?: boolean;
      stopWords?: boolean;
      extraStopWords?: Iterable<string>;
      extraStopWordsIn?: Partial<Record<Lang, Iterable<string>>>;
      compounds?: boolean;
      cjk?: CjkMode;
    } = {},
  ) {
    this.plain = opts.stemming === false;
    this.stem = this.plain ? (w) => w.normalize('NFKD').replace(/\p{M}/gu, '') : englishStem;
    this.stopWords = opts.stopWords !== false;
    const extra = opts.extraStopWords ? [...opts.extraStopWords] : [];
    this.extraStop = extra.filter((w) => !CJK_CHAR.test(w));
    this.extraStopIn = Object.fromEntries(Object.entries(opts.extraStopWordsIn ?? {}).map(([l, ws]) => [l, [...ws]]));
    const cjkExtra = extra.filter((w) => CJK_CHAR.test(w)).map((w) => w.normalize('NFKC'));
    const cjkOne = cjkExtra.filter((w) => [...w].length === 1);
    if (cjkOne.length && this.stopWords) this.cjkStop = new Set([...CJK_STOP_WORDS, ...cjkOne]);
    const cjkMany = cjkExtra.filter((w) => [...w].length > 1).sort((a, b) => b.length - a.length);
    if (cjkMany.length && this.stopWords) this.cjkCut = new RegExp(cjkMany.join('|'), 'g');
    const base: ReadonlySet<string> = this.stopWords ? STOP_WORDS : new Set();
    this.stop = this.extraStop.length ? new Set([...base, ...this.extraStop]) : base;
    this.compounds = opts.compounds === true;
    this.cjk = opts.cjk ?? 'bigrams';
  }

  /** The language a text is written in, as this tokenizer stems it (plain: always English, i.e. no language). */
  language(text: string, fallback: Lang = 'en'): Lang {
    return this.plain ? 'en' : detectLanguage(text, fallback);
  }

  /**
   * Every term occurrence, in order (duplicates kept: term frequency matters). `lang` = the language to stem with
   * (a note's, detected once for all its fields); by default the text's own. A paragraph that shows another language
   * clearly (a German section in an English note) is stemmed in its own.
   */
  terms(text: string, lang?: Lang): string[] {
    const out: string[] = [];
    if (!text) return out;
    if (this.compounds) text = text.replace(COMPOUND_JOINT, '_');
    const l = lang ?? (this.plain ? 'en' : detectLanguage(text));
    // A paragraph that clearly shows another language than the text's is stemmed in its own (language.ts).
    if (this.plain || !BLOCK.test(text)) this.termsIn(text, l, out);
    else for (const block of text.split(BLOCK)) this.termsIn(block, passageLanguage(block, l), out);
    return out;
  }

  private termsIn(text: string, l: Lang, out: string[]): void {
    for (const piece of text.toLowerCase().split(SPLIT_ASCII)) {
      if (piece.length === 0) continue;
      if (NON_ASCII.test(piece)) {
        for (const raw of piece.split(SPLIT)) {
          if (!this.plain && CJK_CHAR.test(raw)) this.cutCjk(raw, (u, cjk) => this.push(u, l, out, cjk));
          else this.push(raw, l, out, false);
        }
      } else {
        this.push(piece, l, out, false);
      }
    }
  }

  private push(raw: string, lang: Lang, out: string[], cjk: boolean): void {
    if (raw.length === 0 || raw.length > MAX_TOKEN) return;
    const t = cjk ? this.cjkTerm(raw) : lang === 'en' || lang === 'zh' || lang === 'ja' || lang === 'ko' ? this.normalize(raw) : this.normalizeIn(raw, lang);
    if (t) out.push(t);
  }

  private cjkTerm(unit: string): string {
    const t = unit.normalize('NFKC');
    return this.stopWords && this.cjkStop.has(t) ? '' : t;
  }

  /**
   * The text's runs of CJK characters as they were cut into pairs: each run's units in order, a stop word as ''.
   * What lets the relevance gate see which pairs of a prompt are neighbours (a pair straddling two words shares one
   * character with each). Empty when this tokenizer cuts dictionary words or is plain.
   */
  cjkRuns(text: string): string[][] {
    const runs: string[][] = [];
    if (this.plain || this.cjk !== 'bigrams' || !CJK_CHAR.test(text)) return runs;
    for (const raw of text.toLowerCase().split(SPLIT)) {
      if (!CJK_CHAR.test(raw)) continue;
      let run: string[] = [];
      const close = (): void => {
        if (run.length) runs.push(run);
        run = [];
      };
      this.cutCjk(raw, (u, cjk) => {
        if (cjk) run.push(this.cjkTerm(u));
        else close();
      }, close);
      close();
    }
    return runs;
  }

  /** A piece holding CJK characters into units (language.ts's cutCjk), the extra CJK stop words cut out first. */
  private cutCjk(piece: string, emit: (unit: string, cjk: boolean) => void, cut?: () => void): void {
    if (!this.cjkCut) return cutCjk(piece, this.cjk, emit, cut);
    for (const part of piece.normalize('NFKC').split(this.cjkCut)) {
      if (part) cutCjk(part, this.cjk, emit, cut);
      cut?.();
    }
  }

  /** A lower-case word as an English term (CJK texts stem their Latin words as English too). */
  normalize(word: string): string {
    let t = this.cache.get(word);
    if (t !== undefined) return t;
    const base = this.plain ? undefined : IRREGULAR.get(word);
    t = this.stop.has(word) || (base !== undefined && this.stop.has(base)) ? '' : this.stem(base ?? word);
    // Bound the cache: a pasted log full of unique tokens must not grow memory for ever.
    if (this.cache.size > 500_000) this.cache.clear();
    this.cache.set(word, t);
    return t;
  }

  /** A lower-case word as a term of a language with its own stemmer: stemmed first (Snowball reads ä, é), then unaccented. */
  private normalizeIn(word: string, lang: Lang): string {
    let cache = this.caches.get(lang);
    if (!cache) this.caches.set(lang, (cache = new Map<string, string>()));
    let t = cache.get(word);
    if (t !== undefined) return t;
    const own = this.own(lang);
    t = own.stop.has(word) ? '' : own.stem(word).normalize('NFKD').replace(/\p{M}/gu, '');
    if (cache.size > 200_000) cache.clear();
    cache.set(word, t);
    return t;
  }

  private own(lang: Lang): { stem: Stemmer; stop: ReadonlySet<string> } {
    let o = this.others.get(lang);
    if (!o) {
      const s = stemmedLanguage(lang);
      const stop = new Set<string>(this.stopWords ? [...(s?.stop ?? []), ...this.extraStop, ...(this.extraStopIn[lang] ?? [])] : []);
      o = { stem: s?.stem ?? ((w) => w), stop };
      this.others.set(lang, o);
    }
    return o;
  }

  /**
   * A query's distinct terms, in order. A query that shows no language (no stop word: "Notizen Geräte") is read as
   * English, except that a word whose English term `known` lacks takes the first other language's term that `known`
   * has, so keywords find a German or French vault's notes. A term the index lacks scored nothing: English results
   * stay as they were.
   */
  queryTerms(query: string, known: (term: string) => boolean): string[] {
    if (this.plain) return [...new Set(this.terms(query))];
    const shown = languageShown(query);
    if (shown === 'ja') return japaneseQuestion(this.terms(query));
    if (shown !== undefined) return [...new Set(this.terms(query))];
    const out = new Set<string>();
    for (const [term, word] of this.wordsByTerm(query, 'en')) {
      let t = term;
      if (!known(term) && !CJK_CHAR.test(term)) {
        const lower = word.toLowerCase();
        for (const s of STEMMED) {
          const alt = this.normalizeIn(lower, s.lang);
          if (alt && known(alt)) {
            t = alt;
            break;
          }
        }
      }
      out.add(t);
    }
    return [...out];
  }

  /** The text's own words by the term each gives (the first word wins), so a "why" can show words, not stems. */
  wordsByTerm(text: string, lang?: Lang): Map<string, string> {
    const out = new Map<string, string>();
    const l = lang ?? this.language(text);
    const add = (word: string, cjk: boolean): void => {
      if (word.length > MAX_TOKEN) return;
      const lower = word.toLowerCase();
      const t = cjk ? this.cjkTerm(lower) : l === 'en' || l === 'zh' || l === 'ja' || l === 'ko' ? this.normalize(lower) : this.normalizeIn(lower, l);
      if (t && !out.has(t)) out.set(t, word);
    };
    for (const m of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
      if (!this.plain && CJK_CHAR.test(m[0])) this.cutCjk(m[0], add);
      else add(m[0], false);
    }
    return out;
  }

  /** Counts term frequencies; returns [term, tf] pairs and the token count (the field length). */
  frequencies(text: string, lang?: Lang): { tf: Map<string, number>; length: number } {
    const tf = new Map<string, number>();
    const terms = this.terms(text, lang);
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, length: terms.length };
  }
}
