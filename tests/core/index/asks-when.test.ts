// A question that asks when ("When did Caroline go to the support group?") is answered by the passage that tells when
// ("I went to a support group yesterday"), not by one that says the question's words more often without a time.
import { describe, expect, it } from 'vitest';
import { whenFactor } from '../../../src/core/index/time-phrases.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

describe('a question that asks when', () => {
  it('tells questions that ask when from others, and text that tells when from text that does not', () => {
    for (const q of ['When did Caroline go to the support group?', 'what year did the album come out', 'how long ago did we move']) expect(whenFactor(q, 0.4)).not.toBeNull();
    // "when" that opens a situation, not a question about time.
    for (const q of ['when the craftsmanship makes you trust the creator', 'what did Caroline research', 'support group notes']) expect(whenFactor(q, 0.4)).toBeNull();
    const f = whenFactor('when did we switch the database', 0.4)!;
    expect(whenFactor('when did we switch the database', 0)).toBeNull();
    expect(f('We switched the database last week.')).toBeGreaterThan(1);
    expect(f('We switched it two days ago.')).toBeGreaterThan(1);
    // A date is as often bookkeeping; "this may help" is no time.
    expect(f('Retrieved August 2, 2024. This may help with the database.')).toBe(1);
  });

  it('ranks the passage that tells when first', async () => {
    const files = {
      'talk/1.md': 'Caroline: I went to the support group, the support group people were kind. I love the group.\n',
      'talk/2.md': 'Caroline: I went to a support group yesterday and it was so powerful.\n',
      'talk/3.md': 'Melanie: Painting is my way to relax after the kids go to bed.\n',
      'talk/4.md': 'Melanie: We went camping at the lake with the whole family.\n',
    };
    const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const when = (await index.search('When did Caroline go to the support group?', { mode: 'bm25', timePhrases: false, priors: false })).hits;
    expect(when[0].path).toBe('talk/2.md');
    const what = (await index.search('What did Caroline say about the support group?', { mode: 'bm25', timePhrases: false, priors: false })).hits;
    expect(what[0].path).toBe('talk/1.md');
  });
});
