// What a note cites names what it is about: a query word that a note's best passage lacks and its list of citations
// holds counts as the same word in any other passage would (restTerms), not halved as a map of contents is.
import { describe, expect, it } from 'vitest';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

const filler = (n: number): string =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} on observers, scorecards and rewards, and how behaviour adapts to what is counted.`).join('\n\n');

describe('cited terms', () => {
  it('a word only in the works a note cites counts like a word of its other passages', async () => {
    const cites =
      `${filler(20)}\n\nPeople change what they do once metrics decide rewards.\n\n#### Citations\n\n` +
      '- [Muller - The Tyranny of Numbers](https://example.org/muller)\n- [Sutherland - Alchemy](https://example.org/alchemy)\n- [Sinek - The Infinite Game](https://example.org/sinek)\n';
    const prose = `${filler(20)}\n\nPeople change what they do once metrics decide rewards.\n\n#### Further reading\n\nSee also the idea of an infinite game in leadership books, and long careers.\n`;
    const files = { 'Measuring.md': cites, 'Prose.md': prose };
    const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const hits = (await index.search('people game the metrics', { limit: 5, mode: 'bm25', priors: false })).hits;
    const score = (p: string): number => hits.find((h) => h.path === p)!.score;
    // The same words, the same best passage: "game" in a list of citations gives the note about what a sentence does
    // (the passages' lengths differ a little); at half weight it gave 0.91 of it.
    expect(score('Measuring.md') / score('Prose.md')).toBeGreaterThan(0.95);
  });
});
