// Document frequencies over the vault's notes, so the relevance gate can weigh a query's terms by rarity, and the terms
// it weighs: the index's terms without the words of conversation.
import { isContentTerm, type Lang, languageShown } from '../index/language.js';
import { isHiraganaPair, japaneseQuestion, Tokenizer } from '../index/tokenize.js';

/**
 * Words that say nothing about a topic ("thanks, that looks good", "let's make one more"): the gate leaves them out of
 * prompts and notes alike, on top of the index's stop words, so that chit-chat never clears the bar (measured on
 * locomo-dev: without them 4-5 of 100 off-topic prompts are injected, with them 1-2). The index keeps them searchable
 * ("not", "new", "today" mean something in a query). One list per language, as a user types them (word forms, not
 * stems); all apply to every text, since a short prompt ("Danke, super!") shows no language of its own, so a word that
 * is also an English topic word ("air", "gut", "mach", "favor", "non", "dir") applies only to a text read as its
 * language (CHAT_WORDS_ONLY_IN; on the
 * English vaults of the corpus, 30 of 4,324 notes and prompts lose a gate term to these lists, all but one of them
 * a word of the other language quoted). Chinese and Japanese words are cut out of the
 * text before it is cut into character pairs; a word of one character (Korean 네, Chinese 好) only where it stands
 * alone. The other languages' lists were written by us, not measured on real prompts: tests/core/recall/chat-words.test.ts.
 */
const CHAT_WORDS: Readonly<Partial<Record<Lang, string>>> = {
  en:
    'against also cannot get got let mustn not now ought shan hey hi hello thanks thank please ok okay yes yeah sure really much many ' +
    'lot well like look looks looked going gonna want wanna know think one two make made way thing things something anything everything today tomorrow ' +
    'yesterday good great nice new old see use used using tell say said us via etc may might must shall e g ie eg vs per',
  de:
    'danke dank bitte bitteschön ja jo jep nein nee genau klar okay prima sehr perfekt passt schön weiter mache macht ' +
    'machen los hallo servus moin tschüss alles richtig stimmt einverstanden gerne gern sieht klingt mal jetzt bisschen vielen ' +
    'heute morgen gestern gleich eigentlich einfach wirklich eben sache dinge etwas bitte erzähl sag',
  fr:
    'merci beaucoup oui ouais ok okay accord parfait génial bien très bon bonne vas va continuez allez voilà salut ' +
    'bonjour bonsoir coucou plaît plait svp stp impeccable exactement effectivement vraiment aujourd hui demain hier ' +
    'maintenant encore aussi choses truc trucs ça cela ceci dites',
  es:
    'gracias muchas mucho muy sí vale bueno buena buenísimo bien perfecto perfecta genial claro listo sigue seguir continúa ' +
    'adelante hola oye porfa exacto correcto vamos venga hoy mañana ahora cosa cosas parece estupendo excelente ve',
  zh:
    '谢谢 谢谢你 谢谢您 多谢 感谢 谢啦 好的 好吧 好啊 行吧 可以 没问题 不错 很好 太好了 太棒了 非常好 看起来 继续 接着 就这样 这样 ' +
    '嗯嗯 对的 是的 对吧 明白 明白了 知道了 收到 好了 你好 您好 帮我 一下 麻烦 现在 今天 明天 昨天 一些 东西 事情 非常 真的 看看 ' +
    '看一下 试试 试一下 告诉我 请问 应该 需要 能不能 可不可以 是不是 有没有 怎么办 怎么样 嗯 哦 噢 好 行 对 请 哈 嘿',
  ja:
    'ありがとうございました ありがとうございます ありがとう どうも よろしくお願いします お願いします お願い よろしく いい感じ いいね ' +
    'いいです 大丈夫です 大丈夫 続けてください 続けて 進めてください 進めて ください はい いいえ うん ええ そうですね そうです 了解です ' +
    '了解 分かりました わかりました 完璧 素晴らしい すごい さすが 今日 明日 昨日 ちょっと 本当に とても 教えて すればいいですか すればいい どうすれば できますか ありますか ますか ですか でしょうか したい たい',
  ko:
    '고마워요 고마워 고맙습니다 감사합니다 감사해요 좋아요 좋아 좋네요 좋습니다 보여요 보이네요 계속해 계속 주세요 해주세요 그래요 ' +
    '그래 그렇게 알겠어요 알겠습니다 알았어 괜찮아요 괜찮아 완벽해요 완벽 훌륭해요 최고 잘했어요 안녕하세요 안녕 오늘 내일 어제 ' +
    '지금 진짜 정말 너무 아주 부탁해요 부탁합니다 알려 알려줘 줘요 어떻게 하나요 하나 있나요 할까요 할 수 있나요 되나요 돼요 뭐예요 뭐였지 뭐였어 뭐였더라 뭐야 뭐지 했나요 했어 했지 하고 누가 누구 대신 이유 무엇 뭐 왜 언제 어디에 어디서 어디 싶어요 ' +
    '네 예 응 해 줘 좀 잘 수 몇 때',
};

/** Words of conversation that are also English topic words: dropped only from a text read as that language. */
const CHAT_WORDS_ONLY_IN: Readonly<Partial<Record<Lang, string>>> = {
  de: 'gut mach dir super toll top cool',
  fr: 'air continue super top cool non chose nickel',
  es: 'favor dime ayer dale super',
};

/** The index's tokenizer and stop list plus the words of conversation: prompt and note terms, and the prompt's words they came from. */
export const gateTokenizer = new Tokenizer({
  extraStopWords: Object.values(CHAT_WORDS).flatMap((words) => words.split(' ')),
  extraStopWordsIn: Object.fromEntries(Object.entries(CHAT_WORDS_ONLY_IN).map(([lang, words]) => [lang, words.split(' ')])),
});

/** A text's distinct topic terms (no stop or conversation words, no single letters), in order of first use. */
export function contentTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const t of gateTokenizer.terms(text)) if (isContentTerm(t)) seen.add(t);
  return [...seen];
}

/**
 * For the pairs of a prompt's Chinese, Japanese or Korean characters that a note lacks, the share of their two
 * characters that the note's pairs next to them cover (or a stop word does): a pair straddling two words the note has
 * (代码|评审 → 码评) counts whole, one between a word it has and one it lacks half, one inside a missing word nothing.
 * Cut into pairs, a CJK prompt's every seam between two words is a pair no note holds; without this the gate weighed
 * them as rare words the note lacks and let almost no Chinese or Japanese question through (bench/lang-recall).
 */
export function cjkCredit(prompt: string, have: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>();
  // A Japanese question's hiragana pairs are its grammar, left out like stop words (promptTerms).
  const grammar = languageShown(prompt) === 'ja' ? isHiraganaPair : () => false;
  for (const run of gateTokenizer.cjkRuns(prompt)) {
    const covered = run.map((u) => u === '' || have.has(u) || grammar(u));
    for (let i = 0; i < run.length; i++) {
      const u = run[i];
      if (!u || covered[i] || [...u].length !== 2) continue;
      const share = (i > 0 && covered[i - 1] ? 0.5 : 0) + (i + 1 < run.length && covered[i + 1] ? 0.5 : 0);
      if (share > (out.get(u) ?? 0)) out.set(u, share);
    }
  }
  return out;
}

/** A prompt's topic terms as search reads a question (a Japanese one without its grammar's hiragana pairs). */
export function promptTerms(prompt: string): string[] {
  const terms = contentTerms(prompt);
  return languageShown(prompt) === 'ja' ? japaneseQuestion(terms) : terms;
}

/** A note's terms as indices into a term list that many notes share (the saved note cache's). */
export interface IndexedTerms {
  ids: readonly number[];
  table: readonly string[];
}

/** The terms themselves (an index that names no term of the list, in a damaged cache, gives undefined, as it always did). */
function listed(terms: string[] | IndexedTerms): string[] {
  return Array.isArray(terms) ? terms : terms.ids.map((i) => terms.table[i]);
}

export class TermStats {
  private readonly df = new Map<string, number>();
  /** Each note's terms; those adopted from the note cache are listed when first asked for (termsOf). */
  private readonly docs = new Map<string, string[] | IndexedTerms>();

  get size(): number {
    return this.docs.size;
  }

  set(path: string, text: string): void {
    this.setTerms(path, contentTerms(text));
  }

  /** A note's terms as `set` found them earlier (restored from the engine's saved note cache). */
  setTerms(path: string, terms: string[]): void {
    this.remove(path);
    this.docs.set(path, terms);
    for (const t of terms) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  /**
   * Many notes' terms at once (a restart from the saved note cache), as indices into the cache's term list: the same
   * counts as `setTerms` a note at a time, counted by index and written once per term, and each note's list of terms
   * made only when asked for (the 13,415-note vault's notes name 328,000 terms: a sixth of the time).
   */
  setMany(notes: Iterable<readonly [path: string, terms: IndexedTerms]>): void {
    const counts = new Map<readonly string[], Uint32Array>();
    for (const [path, terms] of notes) {
      this.remove(path);
      this.docs.set(path, terms);
      const { ids, table } = terms;
      let count = counts.get(table);
      if (!count) counts.set(table, (count = new Uint32Array(table.length)));
      for (const i of ids) {
        // An index that names no term of the list (a damaged cache) counts what it names, as setTerms would.
        if (count[i] !== undefined) count[i]++;
        else this.df.set(table[i], (this.df.get(table[i]) ?? 0) + 1);
      }
    }
    for (const [table, count] of counts) {
      for (let i = 0; i < count.length; i++) if (count[i] > 0) this.df.set(table[i], (this.df.get(table[i]) ?? 0) + count[i]);
    }
  }

  remove(path: string): void {
    const old = this.docs.get(path);
    if (!old) return;
    this.docs.delete(path);
    for (const t of listed(old)) {
      const n = (this.df.get(t) ?? 1) - 1;
      if (n <= 0) this.df.delete(t);
      else this.df.set(t, n);
    }
  }

  has(path: string): boolean {
    return this.docs.has(path);
  }

  termsOf(path: string): string[] | undefined {
    const terms = this.docs.get(path);
    if (!terms || Array.isArray(terms)) return terms;
    const list = listed(terms);
    this.docs.set(path, list);
    return list;
  }

  docFreq(term: string): number {
    return this.df.get(term) ?? 0;
  }

  /** Rarity of a term; unseen terms get the highest weight (an off-topic word the vault never uses). */
  idf(term: string): number {
    const n = Math.max(1, this.docs.size);
    return Math.log(1 + (n + 1) / (this.docFreq(term) + 0.5));
  }
}
