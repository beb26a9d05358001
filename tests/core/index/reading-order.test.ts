// A note of a numbered series is read after the note before it: in a conversation kept a turn a note, the turn that
// answers ("5 years already!") follows the turn that names the topic ("How long have you been married?").
import { describe, expect, it } from 'vitest';
import { seriesPath } from '../../../src/core/index/reading-order.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

const talk = (name: (i: number) => string, asks = 'How long have you been married?'): Record<string, string> => {
  const turns = [
    `Caroline: Wow, what an amazing family pic! ${asks}`,
    'Melanie: 5 years already! Time flies, feels like just yesterday I put this dress on.',
    'Caroline: Long time no talk, I went hiking with friends at the lake.',
    'Melanie: My husband and kids went camping; the kids loved the long hike.',
  ];
  return Object.fromEntries(turns.map((t, i) => [name(i + 14), `${t}\n`]));
};

async function ask(files: Record<string, string>, q: string): Promise<{ path: string; why: string[]; score: number }[]> {
  const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
  await index.build();
  return (await index.search(q, { mode: 'bm25', timePhrases: false, priors: false })).hits;
}

describe('reading order across a numbered series', () => {
  it('names the note before and after by the number that ends a name, its width kept', () => {
    expect(seriesPath('conv/D3:16.md', -1)).toBe('conv/D3:15.md');
    expect(seriesPath('Lectures/Part 10.md', -1)).toBe('Lectures/Part 9.md');
    expect(seriesPath('Lectures/Part 09.md', 1)).toBe('Lectures/Part 10.md');
    expect(seriesPath('Daily/007.md', -1)).toBe('Daily/006.md');
    expect(seriesPath('Notes/Part 0.md', -1)).toBeUndefined();
    expect(seriesPath('Notes/Ideas.md', 1)).toBeUndefined();
  });

  it('finds the turn that answers after the turn that asks, and says why', async () => {
    const q = 'How long have Mel and her husband been married?';
    const hits = await ask(talk((i) => `conv/D3:${i}.md`), q);
    // The answer says none of the question's words but follows the turn that names them: it ranks above a turn that
    // says one of them ("Long time no talk").
    const paths = hits.map((h) => h.path);
    expect(paths[0]).toBe('conv/D3:14.md');
    expect(paths).toContain('conv/D3:15.md');
    expect(paths.indexOf('conv/D3:15.md')).toBeLessThan(paths.indexOf('conv/D3:16.md') >>> 0);
    expect(hits.find((h) => h.path === 'conv/D3:15.md')?.why.join('; ')).toContain('follows [[D3:14]]: long, married');
    // After a statement rather than a question, the turn that follows is less likely its answer: it ranks lower, here
    // below the cut of hits that share far less of the question than the best.
    const told = await ask(talk((i) => `conv/D3:${i}.md`, 'You two have been married a long time.'), q);
    const score = (hs: { path: string; score: number }[]): number => hs.find((h) => h.path === 'conv/D3:15.md')?.score ?? 0;
    expect(score(told)).toBeLessThan(score(hits));
    // The same turns under names that are no series: the answer is not found.
    const loose = await ask(talk((i) => `conv/${['ask', 'answer', 'hike', 'camp'][i - 14]}.md`), q);
    expect(loose.map((h) => h.path)).not.toContain('conv/answer.md');
  });

  it('reads the note two before: the speaker who named the topic before being asked about it', async () => {
    const files = {
      'chat/D24:6.md': 'Maria: Last weekend I had a picnic with some friends from church.\n',
      'chat/D24:7.md': 'John: That sounds lovely! What did you all get up to?\n',
      'chat/D24:8.md': 'Maria: Charades and a scavenger hunt. We all had a good laugh!\n',
    };
    const hits = await ask(files, 'What activities did Maria do at the picnic with her church friends?');
    const paths = hits.map((h) => h.path);
    expect(paths[0]).toBe('chat/D24:6.md');
    // The answer says only the speaker's name; the turn two before names the picnic. It ranks above the question
    // between them.
    expect(paths[1]).toBe('chat/D24:8.md');
    expect(hits.find((h) => h.path === 'chat/D24:8.md')?.why.join('; ')).toMatch(/follows .*\[\[D24:6\]\].*picnic/);
  });

  it('leaves out the day after a daily note that answers: it follows no question', async () => {
    const files = {
      'Daily/2025-06-25.md': 'Set up the Kubernetes ingress controller with TLS for the staging cluster.\n',
      'Daily/2025-06-26.md': 'Groceries, then a long walk by the river.\n',
      'Daily/2025-06-27.md': 'Read a novel; dinner with friends.\n',
    };
    const hits = await ask(files, 'kubernetes ingress controller');
    expect(hits.map((h) => h.path)).toEqual(['Daily/2025-06-25.md']);
  });
});
