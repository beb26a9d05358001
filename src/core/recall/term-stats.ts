// Document frequencies over the vault's notes, so the relevance gate can weigh a query's terms by rarity, and the terms
// it weighs: the index's terms without the words of conversation.
import { isContentTerm } from '../index/language.js';
import { Tokenizer } from '../index/tokenize.js';

/**
 * Words that say nothing about a topic ("thanks, that looks good", "let's make one more"): the gate leaves them out of
 * prompts and notes alike, on top of the index's stop words, so that chit-chat never clears the bar (measured on
 * locomo-dev: without them 4-5 of 100 off-topic prompts are injected, with them 1-2). The index keeps them searchable
 * ("not", "new", "today" mean something in a query).
 */
const CHAT_WORDS =
  'against also cannot get got let mustn not now ought shan hey hi hello thanks thank please ok okay yes yeah sure really much many ' +
  'lot well like look looks looked going gonna want wanna know think one two make made way thing things something anything everything today tomorrow ' +
  'yesterday good great nice new old see use used using tell say said us via etc may might must shall e g ie eg vs per';

/** The index's tokenizer and stop list plus the words of conversation: prompt and note terms, and the prompt's words they came from. */
export const gateTokenizer = new Tokenizer({ extraStopWords: CHAT_WORDS.split(' ') });

/** A text's distinct topic terms (no stop or conversation words, no single letters), in order of first use. */
export function contentTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const t of gateTokenizer.terms(text)) if (isContentTerm(t)) seen.add(t);
  return [...seen];
}

export class TermStats {
  private readonly df = new Map<string, number>();
  private readonly docs = new Map<string, string[]>();

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

  remove(path: string): void {
    const old = this.docs.get(path);
    if (!old) return;
    this.docs.delete(path);
    for (const t of old) {
      const n = (this.df.get(t) ?? 1) - 1;
      if (n <= 0) this.df.delete(t);
      else this.df.set(t, n);
    }
  }

  has(path: string): boolean {
    return this.docs.has(path);
  }

  termsOf(path: string): string[] | undefined {
    return this.docs.get(path);
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
