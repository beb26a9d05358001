import { describe, expect, it } from 'vitest';
import { DEFAULT_TYPES } from '../../../src/core/note/meta.js';
import { validateBeat, validateReply, asTurnList } from '../../../src/core/extract/validate.js';
import { groundingProblem } from '../../../src/core/extract/grounding.js';
import { checkReply } from '../../../src/core/extract/window-reply.js';
import { makeWindow } from '../../../src/core/extract/window.js';
import type { Turn } from '../../../src/core/transcript/types.js';
import type { Beat } from '../../../src/core/extract/beat.js';

const types = DEFAULT_TYPES;
const good = { type: 'decision', title: 'Use pnpm', summary: 'We use pnpm.', body: 'Because it is fast.', turns: [1], quote: 'we use pnpm workspaces for the monorepo' };

function turn(index: number, role: Turn["role"], text: string): Turn {
  return { index, role, text, uuid: `u${index}`, offset: index * 100, tools: [], errors: [], sidechain: false };
}

describe('beat validation', () => {
  it('accepts a complete beat and fills defaults', () => {
    const b = validateBeat(good, { types }) as Beat;
    expect(b.scope).toBe('project');
    expect(b.durability).toBe('durable');
    expect(b.confidence).toBe(0.7);
  });

  it('normalises loose but unambiguous values', () => {
    const b = validateBeat({ ...good, type: 'Failed approach', turns: '3-5', tags: ['#Build Tools', 'ok'], durability: 'working memory', confidence: '0.9', related: ['[[Some note|alias]]'] }, { types }) as Beat;
    expect(b.type).toBe('failed-approach');
    expect(b.turns).toEqual([3, 4, 5]);
    expect(b.tags).toEqual(['build-tools', 'ok']);
    expect(b.durability).toBe('working');
    expect(b.confidence).toBe(0.9);
    expect(b.related).toEqual(['Some note']);
  });

  it('drops bad entries with a reason each', () => {
    const r = validateReply({ beats: [good, { ...good, type: 'gossip' }, { ...good, title: '' }, { ...good, turns: 'soon' }, { ...good, quote: undefined }, 'text', { ...good, scope: 'galaxy' }] }, { types });
    expect(r.beats).toHaveLength(1);
    expect(r.rejected.map((x) => x.reason)).toEqual([
      expect.stringContaining('not in the vault'),
      'missing title',
      'cites no turns',
      'missing quote',
      'not an object',
      expect.stringContaining('neither project nor general'),
    ]);
  });

  it('rejects a reply without a beats array', () => {
    expect(validateReply({ notes: [] }, { types }).rejected[0].reason).toMatch(/no "beats" array/);
    expect(asTurnList(['1', 2])).toEqual([1, 2]);
    expect(asTurnList(['x'])).toBeUndefined();
  });
});

describe('grounding', () => {
  const turns = [
    turn(0, 'user', 'Please set up the build.'),
    turn(1, 'user', 'We use pnpm workspaces for the monorepo, because installs are **three times** faster.'),
    turn(2, 'assistant', 'Switched to pnpm and removed package-lock.json from the repository.'),
  ];
  const byIndex = new Map(turns.map((t) => [t.index, t]));
  const beat = (quote: string, cited = [1]): Beat => ({ ...(validateBeat(good, { types }) as Beat), quote, turns: cited });

  it('accepts a quote found in the cited turn, tolerant of case, spacing, quotes and emphasis', () => {
    expect(groundingProblem(beat('We use pnpm workspaces for the monorepo'), byIndex)).toBeNull();
    expect(groundingProblem(beat('installs are three   times faster'), byIndex)).toBeNull();
    expect(groundingProblem(beat('"we use pnpm workspaces … three times faster"'), byIndex)).toBeNull();
  });

  it('rejects short quotes, turns outside the window, and quotes from another turn', () => {
    expect(groundingProblem(beat('use pnpm'), byIndex)).toMatch(/shorter than 20/);
    expect(groundingProblem(beat('We use pnpm workspaces for the monorepo', [7]), byIndex)).toMatch(/outside the window/);
    expect(groundingProblem(beat('removed package-lock.json from the repository', [1]), byIndex)).toMatch(/not found/);
    expect(groundingProblem(beat('removed package-lock.json from the repository', [1, 2]), byIndex)).toBeNull();
  });

  it('rejects at least 95% of planted beats with invented quotes', () => {
    // Plausible inventions: real vocabulary from the turns, recombined into sentences that were never said.
    const words = turns.flatMap((t) => t.text.toLowerCase().match(/[a-z-]+/g) ?? []);
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let rejected = 0;
    const planted = 400;
    for (let i = 0; i < planted; i++) {
      const n = 5 + Math.floor(rand() * 8);
      const quote = Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
      if (groundingProblem(beat(quote.padEnd(20, ' x'), [0, 1, 2]), byIndex) !== null) rejected++;
    }
    expect(rejected / planted).toBeGreaterThanOrEqual(0.95);
  });

  it('rejects paraphrased quotes (one word changed) and accepts the exact ones', () => {
    let rejected = 0;
    let accepted = 0;
    let planted = 0;
    for (const t of turns) {
      const words = t.text.split(' ');
      for (let i = 0; i + 6 <= words.length; i++) {
        const exact = words.slice(i, i + 6).join(' ');
        if (exact.replace(/\*/g, '').length < 20) continue;
        if (groundingProblem(beat(exact, [t.index]), byIndex) === null) accepted++;
        const changed = [...words.slice(i, i + 6)];
        changed[3] = changed[3] === 'the' ? 'a' : 'the';
        planted++;
        if (groundingProblem(beat(changed.join(' '), [t.index]), byIndex) !== null) rejected++;
      }
    }
    expect(planted).toBeGreaterThan(10);
    expect(accepted).toBe(planted);
    expect(rejected / planted).toBeGreaterThanOrEqual(0.95);
  });

  it('checkReply keeps grounded beats, rejects the rest, and enforces the per-window limit', () => {
    const window = makeWindow('s1', turns);
    const many = Array.from({ length: 7 }, (_, i) => ({ ...good, title: `Beat ${i}`, confidence: i / 10, quote: 'We use pnpm workspaces for the monorepo' }));
    const invented = { ...good, title: 'Invented', quote: 'we migrated everything to yarn berry last week' };
    const r = checkReply(JSON.stringify({ beats: [...many, invented] }), window, types, 5);
    expect(r.beats.map((b) => b.title)).toEqual(['Beat 2', 'Beat 3', 'Beat 4', 'Beat 5', 'Beat 6']);
    expect(r.rejected.filter((x) => x.reason.startsWith('not grounded'))).toHaveLength(1);
    expect(r.rejected.filter((x) => x.reason.includes('over the limit'))).toHaveLength(2);
  });
});
