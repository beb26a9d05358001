// What people read in results: the query's own words in "why", and snippets without embeds or markup.
import { describe, expect, it } from 'vitest';
import { readableText } from '../../../src/core/index/rank.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

describe('readable results', () => {
  it('why names the words of the query, not their stems', async () => {
    const vault = new MemoryVault({ files: { 'Notes/Keys.md': '---\ntags: [packaging]\n---\nMaterials: the keys of every package are rotated.\n', 'Notes/Other.md': 'Bread.\n' } });
    const index = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const [hit] = (await index.search('Materials keys Packages', { mode: 'bm25' })).hits;
    expect(hit.why.slice(0, 3)).toEqual(['body: Materials, keys, Packages', 'title: keys', 'tags: Packages']);
  });

  it('snippets leave out embeds, HTML, comments and Markdown markers, keep link text and code', () => {
    const md = [
      '## Setup',
      '![[diagram.png]] ![alt text](img/shot.png)',
      '> **Note:** see [[Other note|the other note]], [[Plain]] and [docs](https://x.y/z "t").',
      '- [ ] write <span style="color:red">tests</span> %%hidden%% <!-- gone -->',
      'Use `Map<string, number>` and #tag/nested here.',
    ].join('\n');
    expect(readableText(md).replace(/\s+/g, ' ').trim()).toBe('Setup Note: see the other note, Plain and docs. write tests Use `Map<string, number>` and tag/nested here.');
  });
});
