import { describe, expect, it } from 'vitest';
import { extractTimePhrase } from '../../../src/core/index/time-phrases.js';
import { chunkBody } from '../../../src/core/index/chunk.js';

// Wednesday 18 March 2026, 12:00 local time.
const now = new Date(2026, 2, 18, 12, 0, 0).getTime();
const day = (y: number, m: number, d: number): number => new Date(y, m - 1, d).getTime();

describe('time phrases', () => {
  const cases: [string, string, number | undefined, number | undefined][] = [
    ['what broke yesterday', 'what broke', day(2026, 3, 17), day(2026, 3, 18) - 1],
    ['decisions from today', 'decisions', day(2026, 3, 18), now],
    ['socket last week', 'socket', day(2026, 3, 9), now],
    ['notes this week', 'notes', day(2026, 3, 16), now],
    ['what did we decide in March', 'what did we decide', day(2026, 3, 1), day(2026, 4, 1) - 1],
    ['in December deploys', 'deploys', day(2025, 12, 1), day(2026, 1, 1) - 1],
    ['bugs in may 2024', 'bugs', day(2024, 5, 1), day(2024, 6, 1) - 1],
    ['errors in the last 3 days', 'errors', day(2026, 3, 15), now],
    ['fixes since 2026-01-10', 'fixes', day(2026, 1, 10), undefined],
    ['2 days ago meeting', 'meeting', day(2026, 3, 16), day(2026, 3, 17) - 1],
    ['last month', '', day(2026, 2, 1), day(2026, 3, 1) - 1],
  ];
  for (const [q, rest, since, until] of cases) {
    it(q, () => {
      const r = extractTimePhrase(q, now);
      expect(r.query).toBe(rest);
      expect(r.range?.since).toBe(since);
      expect(r.range?.until).toBe(until);
    });
  }
  it('leaves queries without a time phrase alone', () => {
    expect(extractTimePhrase('march of the penguins in the weekly review', now)).toEqual({ query: 'march of the penguins in the weekly review', range: null });
  });
});

describe('chunking', () => {
  it('keeps short notes whole and splits long ones at headings, ignoring # inside code fences', () => {
    expect(chunkBody('# Title\n\nshort')).toEqual([{ text: '# Title\n\nshort' }]);
    const para = 'word '.repeat(100);
    const body = `intro ${para}\n\n## One\n\n${para}\n\n\`\`\`sh\n# not a heading\n\`\`\`\n\n## Two\n\n${para}`;
    const chunks = chunkBody(body);
    expect(chunks.map((c) => c.heading)).toEqual([undefined, 'One', 'Two']);
    expect(chunks[1].text).toContain('# not a heading');
  });
  it('cuts a huge paragraph into bounded pieces', () => {
    const chunks = chunkBody('x'.repeat(20_000));
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...chunks.map((c) => c.text.length))).toBeLessThanOrEqual(4000);
  });
});
