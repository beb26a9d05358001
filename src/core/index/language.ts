// The languages the tokenizer knows: which one a text is written in (cheaply, from its script and its stop words), the
// stemmer and stop list of each, and how Chinese, Japanese and Korean text is cut into words. Used only through the
// one tokenizer (tokenize.ts); the relevance gate asks `isContentTerm`.
import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as finnish } from '@orama/stemmers/finnish';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { stopwords as daStop } from '@orama/stopwords/danish';
import { stopwords as nlStop } from '@orama/stopwords/dutch';
import { stopwords as enStop } from '@orama/stopwords/english';
import { stopwords as fiStop } from '@orama/stopwords/finnish';
import { stopwords as frStop } from '@orama/stopwords/french';
import { stopwords as deStop } from '@orama/stopwords/german';
import { stopwords as itStop } from '@orama/stopwords/italian';
import { stopwords as noStop } from '@orama/stopwords/norwegian';
import { stopwords as ptStop } from '@orama/stopwords/portuguese';
import { stopwords as ruStop } from '@orama/stopwords/russian';
import { stopwords as esStop } from '@orama/stopwords/spanish';
import { stopwords as svStop } from '@orama/stopwords/swedish';

/** Languages with a stemmer and a stop list (Snowball's, from Orama), and the three cut into words by script. */
export type Lang = 'en' | 'de' | 'fr' | 'es' | 'it' | 'pt' | 'nl' | 'sv' | 'no' | 'da' | 'fi' | 'ru' | 'zh' | 'ja' | 'ko';

interface Stemmed {
  lang: Lang;
  stem: (w: string) => string;
  stop: readonly string[];
}

// Question words and the verbs of a question ("how", "can I", "make"), as the English list has them: Snowball's
// lists leave them out, and a question's "comment… peut… faire" then outweighs its topic.
const ASKING: Partial<Record<Lang, string>> = {
  de: 'wie was wo wohin woher warum wann welche welcher welches welchem welchen kann kannst können muss gibt geht mache machen',
  fr: 'comment quel quelle quels quelles où pourquoi quand combien peut peux puis pouvez faire fait veux dois',
  es: 'cómo qué dónde cuándo cuál cuáles por qué puedo puede hacer',
  it: 'come cosa dove quando quale quali perché posso può fare',
  pt: 'como onde quando qual quais porque posso pode fazer',
  nl: 'hoe wat waar waarom wanneer welke kan kun kunt maken',
};
const withAsking = (lang: Lang, stop: readonly string[]): readonly string[] => [...stop, ...(ASKING[lang]?.split(' ') ?? [])];

/** Every language with its own stemmer (English's stays the tokenizer's own). Order = order of preference on a tie. */
export const STEMMED: readonly Stemmed[] = [
  { lang: 'de', stem: german, stop: withAsking('de', deStop) },
  { lang: 'fr', stem: french, stop: withAsking('fr', frStop) },
  { lang: 'es', stem: spanish, stop: withAsking('es', esStop) },
  { lang: 'it', stem: italian, stop: withAsking('it', itStop) },
  { lang: 'pt', stem: portuguese, stop: withAsking('pt', ptStop) },
  { lang: 'nl', stem: dutch, stop: withAsking('nl', nlStop) },
  { lang: 'sv', stem: swedish, stop: svStop },
  { lang: 'no', stem: norwegian, stop: noStop },
  { lang: 'da', stem: danish, stop: daStop },
  { lang: 'fi', stem: finnish, stop: fiStop },
  { lang: 'ru', stem: russian, stop: ruStop },
];

/**
 * Languages counted when detecting: English first, then the stemmed ones, by bit. A word English also writes ("a",
 * "in", "die", "was", "var") never counts for another language, nor does a single letter: short English notes full of
 * links and code must stay English (the 13,415-note English vault: 2,000 of its notes read as Spanish or Italian
 * before this rule, 24 after: short notes of code or links).
 */
const EN_DETECT = [...enStop, 'a', 'also', 'can', 'will', 'may', 'use', 'used', 'using', 'new', 'one', 'get', 'set', 'var', 'like'];
const DETECT: readonly { lang: Lang; stop: readonly string[] }[] = [{ lang: 'en', stop: EN_DETECT }, ...STEMMED];
const STOP_BITS = new Map<string, number>();
for (const w of EN_DETECT) STOP_BITS.set(w, 1);
DETECT.forEach(({ stop }, i) => {
  if (i > 0) for (const w of stop) if (w.length > 1 && STOP_BITS.get(w) !== 1) STOP_BITS.set(w, (STOP_BITS.get(w) ?? 0) | (1 << i));
});

/** Han, kana (with the long-vowel mark) and Hangul: scripts written without spaces between words (Hangul: particles glued). */
export const CJK_CHAR = /[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]/;
const CJK_RUN = /([\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+)|([\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]+)/g;
const KANA = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/g;
const HANGUL = /[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]/g;
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/g;
const WORD = /[^\p{L}\p{N}_]+/u;
const DIACRITIC_CUES: readonly [RegExp, Lang][] = [
  [/[äöüß]/, 'de'],
  [/[ãõ]/, 'pt'],
  [/[ñ¿¡áíóú]/, 'es'],
  [/[çœèêëàâîïûùé]/, 'fr'],
  [/[å]/, 'sv'],
  [/[æø]/, 'no'],
  [/[а-яё]/, 'ru'],
];

/**
 * The language a text is written in: Chinese, Japanese or Korean when their characters make a fair share of it,
 * else the language whose stop words it uses most (English unless another clearly leads; a letter only one language
 * writes, ä, ç, ñ…, settles a tie or a short text's single stop word), else `fallback`. Reads at most the first
 * 1,500 characters, and stops at ten English stop words no other language comes near (most notes of an English
 * vault: the index pays for this on every note).
 */
export function detectLanguage(text: string, fallback: Lang = 'en'): Lang {
  return languageShown(text) ?? fallback;
}

/** The language a text shows by its script or its stop words (see detectLanguage); undefined when it shows none. */
export function languageShown(text: string): Lang | undefined {
  const sample = text.length > 1500 ? text.slice(0, 1500) : text;
  const lower = sample.toLowerCase();
  const ascii = !/[\u0080-\uffff]/.test(lower);
  if (!ascii && CJK_CHAR.test(lower)) {
    const hangul = lower.match(HANGUL)?.length ?? 0;
    const kana = lower.match(KANA)?.length ?? 0;
    const han = lower.match(HAN)?.length ?? 0;
    const latin = lower.match(/[a-z]/g)?.length ?? 0;
    // A CJK character carries about as much as a Latin word: compare with the Latin letters / 5.
    if ((hangul + kana + han) * 5 >= latin) return hangul > kana + han ? 'ko' : kana > 0 ? 'ja' : 'zh';
  }
  const counts = new Array<number>(DETECT.length).fill(0);
  let words = 0;
  let other = 0;
  const re = ascii ? /[a-z0-9_]+/g : /[\p{L}\p{N}_]+/gu;
  for (let m = re.exec(lower); m; m = re.exec(lower)) {
    words++;
    const bits = STOP_BITS.get(m[0]);
    if (bits === undefined) continue;
    if (bits === 1) {
      if (++counts[0] >= 10 && other * 2 < counts[0]) return 'en';
      continue;
    }
    for (let i = 1; i < DETECT.length; i++) if (bits & (1 << i) && ++counts[i] > other) other = counts[i];
  }
  let best = 0;
  for (let i = 1; i < counts.length; i++) if (counts[i] > counts[best]) best = i;
  const cue = ascii ? undefined : DIACRITIC_CUES.find(([re]) => re.test(lower))?.[1];
  // Another language must lead English with two stop words (three and twice English's in a longer text), or one and
  // a letter of its own; English keeps a tie.
  const enough = words > 12 ? counts[best] >= 3 && counts[best] > 2 * counts[0] : counts[best] >= 2 && counts[best] > counts[0];
  if (best !== 0 && (enough || (counts[best] > counts[0] && cue === DETECT[best].lang))) return DETECT[best].lang;
  // A tie with English goes to the language whose letters the text uses ("mes notes depuis Evernote", with é).
  const cued = cue ? DETECT.findIndex((d) => d.lang === cue) : -1;
  if (cued > 0 && counts[cued] > 0 && counts[cued] >= counts[0]) return DETECT[cued].lang;
  if (counts[0] > 0 && counts[0] >= counts[best]) return 'en';
  // No stop word at all: a letter alone does not decide ("Sönke Ahrens fleeting notes" is an English question).
  return undefined;
}

/**
 * The language of one passage (a paragraph) of a text written in `textLang`: its own when it shows one clearly (its
 * script; or another language's stop words, at least three and a fifth of its eight or more words: prose, not a code
 * block or a list of links, which scatter "do", "de", "la"), else the text's. Reading stops at ten English stop words
 * (languageShown), so an English vault's paragraphs cost little.
 */
export function passageLanguage(passage: string, textLang: Lang): Lang {
  const shown = languageShown(passage);
  if (shown === undefined || shown === textLang) return textLang;
  if (shown === 'zh' || shown === 'ja' || shown === 'ko') return shown;
  const stop = stopSet(shown);
  let words = 0;
  let stops = 0;
  const re = /[\p{L}\p{N}_]+/gu;
  for (let m = re.exec(passage); m; m = re.exec(passage)) {
    words++;
    if (stop.has(m[0].toLowerCase())) stops++;
  }
  return words >= 8 && stops >= 3 && stops * 5 >= words ? shown : textLang;
}

const stopSets = new Map<Lang, ReadonlySet<string>>();
function stopSet(lang: Lang): ReadonlySet<string> {
  let s = stopSets.get(lang);
  if (!s) stopSets.set(lang, (s = new Set(lang === 'en' ? EN_DETECT : (stemmedLanguage(lang)?.stop ?? []))));
  return s;
}

/** The stemmer and stop list of a language with its own (none for English and the CJK languages: the tokenizer's own). */
export function stemmedLanguage(lang: Lang): Stemmed | undefined {
  return STEMMED.find((s) => s.lang === lang);
}

// Function words of Chinese and Japanese that the word segmenter returns on their own: dropped like English stop words.
// Short on purpose (Orama's Mandarin list holds content words such as 人 and 中).
export const CJK_STOP_WORDS = new Set(
  ('的 了 在 是 我 我的 你 你的 他 她 它 我们 你们 他们 和 与 及 或 或者 吗 呢 吧 啊 呀 如何 怎么 怎样 怎么样 什么 哪些 哪个 哪 为什么 ' +
    '这 那 这个 那个 这些 那些 有 没有 被 把 对 从 到 也 都 就 还 而 并 等 个 之 以 其 该 将 会 要 能 可以 吗 是否 一个 ' +
    'の に は を が で と も へ や か から まで より する した して します しま す し され される でき できる できます ある あり あります ' +
    'いる い います ない なる なり こと もの ため よう どう どうやって どの どこ どれ 何 なに です でしょ でしょう ます ました て た だ な ' +
    'ん ね よ これ それ あれ この その あの 私 わたし 僕 는 은 이 가 을 를 의 에 에서 와 과 도 로 으로').split(' '),
);

/** A term of Chinese, Japanese or Korean characters (a pair of them, or one alone): it carries more than its length says. */
export function isCjkTerm(term: string): boolean {
  return CJK_CHAR.test(term);
}

/** A term the relevance gate weighs: two letters or more, or one CJK character (Chinese words are often one). */
export function isContentTerm(term: string): boolean {
  return term.length > 1 || CJK_CHAR.test(term);
}

/** How CJK runs become terms: overlapping character pairs (the default), or ICU's dictionary words (Intl.Segmenter). */
export type CjkMode = 'words' | 'bigrams';

type WordSegmenter = { segment(input: string): Iterable<{ segment: string; isWordLike?: boolean }> };
let segmenter: WordSegmenter | null | undefined;
function wordSegmenter(): WordSegmenter | null {
  if (segmenter === undefined) {
    const Seg = (Intl as { Segmenter?: new (locale: string, opts: { granularity: 'word' }) => WordSegmenter }).Segmenter;
    segmenter = Seg ? new Seg('zh', { granularity: 'word' }) : null;
  }
  return segmenter;
}

/**
 * Cuts a piece of text holding CJK characters into units, in order: other runs (Latin words, digits) whole, Han and
 * kana runs into dictionary words (or bigrams), Hangul runs into syllable bigrams (a Korean word carries its particle:
 * 보관함을 → 보관 관함 함을, so 보관함 matches). `emit(unit, cjk)` receives each; `cut()` is called between two
 * runs that touch (Han then Hangul), whose units are not neighbours.
 */
export function cutCjk(piece: string, mode: CjkMode, emit: (unit: string, cjk: boolean) => void, cut?: () => void): void {
  let at = 0;
  CJK_RUN.lastIndex = 0;
  for (let m = CJK_RUN.exec(piece); m; m = CJK_RUN.exec(piece)) {
    if (m.index > at) emit(piece.slice(at, m.index), false);
    else if (at > 0) cut?.();
    at = m.index + m[0].length;
    const seg = m[1] !== undefined && mode === 'words' ? wordSegmenter() : null;
    if (seg) {
      for (const s of seg.segment(m[0])) if (s.isWordLike !== false) emit(s.segment, true);
    } else {
      bigrams(m[2] !== undefined ? hangulStem(m[0]) : m[0], emit);
    }
  }
  if (at < piece.length) emit(piece.slice(at), false);
}

// Korean particles and the endings of 하다 verbs, longest first: cut off a word of three syllables or more when two
// remain (보관함을 → 보관함, 복원하려면 → 복원, 실패했던 → 실패), so its pairs are the noun's in every form.
const HANGUL_ENDINGS = (
  '하려면 했나요 하나요 했어요 합니다 했습니다 해야 해요 했어 했던 했다 한다 하는 하고 하면 해서 할 한 해 ' +
  '에서 에게 으로 까지 부터 처럼 보다 이랑 은 는 이 가 을 를 에 와 과 도 로 의 만 랑'
).split(' ');
function hangulStem(word: string): string {
  if (word.length < 3) return word;
  for (const e of HANGUL_ENDINGS) if (word.endsWith(e) && word.length - e.length >= 2) return word.slice(0, -e.length);
  return word;
}

function bigrams(run: string, emit: (unit: string, cjk: boolean) => void): void {
  if (run.length === 1) {
    emit(run, true);
    return;
  }
  for (let i = 0; i + 1 < run.length; i++) emit(run.slice(i, i + 2), true);
}

/**
 * A query's words for finding where an excerpt should start: its words as typed, except that a word holding CJK
 * characters gives its character pairs and Latin parts (a Chinese question is one "word" between spaces).
 */
export function snippetWords(query: string): string[] {
  const out: string[] = [];
  for (const w of query.split(/\s+/)) {
    if (!w) continue;
    if (!CJK_CHAR.test(w)) {
      out.push(w);
      continue;
    }
    for (const piece of w.split(WORD)) {
      if (piece) cutCjk(piece, 'bigrams', (u, cjk) => {
        if (!cjk || !CJK_STOP_WORDS.has(u)) out.push(u);
      });
    }
  }
  return out;
}
