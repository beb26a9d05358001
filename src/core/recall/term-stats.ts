// Document frequencies over the vault's notes, so the relevance gate can weigh a query's terms by rarity.
import { contentTerms } from './terms.js';

export class TermStats {
  private readonly df = new Map<string, number>();
  private readonly docs = new Map<string, string[]>();

  get size(): number {
    return this.docs.size;
  }

  set(path: string, text: string): void {
    this.remove(path);
    const terms = contentTerms(text);
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
