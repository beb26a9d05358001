// The passage that answers (issue 21): a how-to question is quoted from the steps, not the intro that restates the
// problem; a comparison from the section that compares; a list of references never; a short note kept whole from the
// section its heading names. Odd notes (no headings, code blocks with # lines) keep their plain quote.
import { describe, expect, it } from 'vitest';
import { answeringText, asksHowTo } from '../../../src/core/index/answering.js';
import { Tokenizer } from '../../../src/core/index/tokenize.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

async function built(files: Record<string, string>): Promise<VaultIndex> {
  const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
  await index.build();
  return index;
}

const pad = 'Teams read it at every stand-up and planning meeting of the quarter. '.repeat(8);
const other = { 'Other/Bread.md': 'Knead the dough and let it rise overnight.\n' };

describe('the passage that answers', () => {
  it('tells a how-to question (how do I, how to, fix, an instruction) from others', () => {
    for (const q of ['how do I set up this vault template', 'how to pin the nixpkgs version', 'page flashes white on reload, how to fix', 'keep the scroll position when the user goes back', 'deploy only one app of a monorepo']) expect(asksHowTo(q)).toBe(true);
    for (const q of ['what is a bloom filter', 'who is Paul Chambers', 'burndown chart versus burnup chart', 'the post about keeping a diary']) expect(asksHowTo(q)).toBe(false);
  });

  it('a how-to question is quoted from the steps, from their start, not from the intro that restates the problem', async () => {
    const note = [
      '## Infinite scroll - Benefits and Challenges',
      `Infinite scroll saves page loads, but when going back to the list you lose your scroll position. ${pad}`,
      '## Solution',
      `We store the list state and its scroll position in session storage before routing. ${pad}`,
      `On the way back, the hook reads it and restores the position. ${pad}${pad}`,
      '## Reference',
      '- https://example.org/infinite-scroll-position',
    ].join('\n\n');
    const index = await built({ 'Frontend/Retain scroll position in infinite scroll.md': note, ...other });
    const hit = (await index.search('keep the scroll position when the user goes back to an infinite list', { mode: 'bm25' })).hits[0];
    expect(hit.heading).toBe('Solution');
    expect(hit.snippet.startsWith("We store the list state and its scroll position in session storage")).toBe(true);
    // A question that does not ask how keeps the passage that says its words most.
    const what = (await index.search('what happens to the scroll position when the user goes back to the list', { mode: 'bm25' })).hits[0];
    expect(what.heading).toBe('Infinite scroll - Benefits and Challenges');
  });

  it('a question that compares is quoted from the section that compares ("versus" finds "Differences")', async () => {
    const index = await built({
      'Management/Burnup and Burndown chart.md': [
        '## What is a Burndown chart?',
        `A burndown chart plots the work left versus the time left. ${pad}`,
        '## What is a Burnup chart?',
        `A burnup chart shows the work done and the scope added. ${pad}`,
        '## Differences between Burndown and Burnup',
        `Use a burndown chart to see what is left to do, a burnup chart to see what was done and what work was added. ${pad}`,
      ].join('\n\n'),
      ...other,
    });
    const hit = (await index.search('burndown chart versus burnup chart', { mode: 'bm25' })).hits[0];
    expect(hit.heading).toBe('Differences between Burndown and Burnup');
  });

  it('a list of references that repeats the question words is not what answers', async () => {
    const index = await built({
      'Backend/Redis rate limiter.md': [
        '## Fixed window counter',
        `Count each client's requests in a redis key that expires with the window; refuse past the limit. ${pad}${pad}${pad}`,
        '## References',
        '- redis rate limiter: https://example.org/redis-rate-limiter',
        '- rate limiter with redis lists: https://example.org/redis-rate-limiter-lists',
        '- a redis rate limiter in go: https://example.org/go-redis-rate-limiter',
      ].join('\n\n'),
      ...other,
    });
    const hit = (await index.search('redis rate limiter', { mode: 'bm25' })).hits[0];
    expect(hit.heading).toBe('Fixed window counter');
  });

  it('a short note kept whole is quoted from the section a how-to question asks for', async () => {
    const readme = [
      'My personal vault template. A bottom-up approach to organizing notes in a vault, one example of how to use it. Take the parts you like.',
      '',
      '## Get started',
      '',
      '1. Download this vault',
      '2. Unzip it to a folder of your choosing',
      '3. Open the app and create a new vault pointing to that folder',
    ].join('\n');
    const index = await built({ 'Readme.md': readme, ...other });
    const hit = (await index.search('how do I set up this vault template', { mode: 'bm25' })).hits[0];
    expect(hit.snippet).toMatch(/^Get started 1\. Download this vault/);
    const what = (await index.search('what is this vault template', { mode: 'bm25' })).hits[0];
    expect(what.snippet).toMatch(/^My personal vault template/);
  });

  it('odd notes keep their quote: no headings, a # line inside a code block, a section that says none of the words', () => {
    const tk = new Tokenizer();
    const terms = tk.queryTerms('how to install the tool', () => true);
    expect(answeringText('Install the tool with the package manager, then run it.', 'how to install the tool', terms, tk)).toBe('Install the tool with the package manager, then run it.');
    const code = ['Install the tool:', '```sh', '# install steps', 'apt install tool', '```', 'Then run it.'].join('\n');
    expect(answeringText(code, 'how to install the tool', terms, tk)).toBe(code);
    const unrelated = ['Install the tool from the site.', '## Usage', 'Open a terminal.'].join('\n');
    expect(answeringText(unrelated, 'how to install the tool', terms, tk)).toBe(unrelated);
    const steps = ['The tool formats notes.', '## Installation', 'Install the tool with npm.', '## Other', 'More.'].join('\n');
    expect(answeringText(steps, 'how to install the tool', terms, tk)).toBe('## Installation\nInstall the tool with npm.');
  });
});
