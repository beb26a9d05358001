// The extraction eval's scorer: a note is right when it cites a turn that states an annotated item; per-type
// precision and recall, recall of the stated items, wrong notes named with why, and a bad set refused clearly.
import { describe, expect, it } from 'vitest';
import { citedTurns, formatExtractionScore, parseExtractionSet, scoreExtraction, type ExtractionSet } from '../../../src/core/extract/eval-extraction.js';

const set: ExtractionSet = {
  sessions: [
    {
      file: 'a.jsonl',
      project: 'cli',
      items: [
        { turn: 3, type: 'correction', stated: 'near', quote: 'use pnpm' },
        { turn: 7, alsoTurns: [9], type: 'decision', stated: 'near', quote: 'go with Postgres' },
        { turn: 11, type: 'insight', stated: 'implicit', quote: 'the squash keeps trailers' },
      ],
      steering: [{ turn: 5, quote: "don't change anything, just let me know", why: 'this turn only' }],
    },
    { file: 'b.jsonl', project: 'spotter', items: [] },
  ],
};

describe('scoreExtraction', () => {
  it('counts right and wrong notes, per type, and recall of what was stated outright', () => {
    const s = scoreExtraction(set, [
      {
        file: 'a.jsonl',
        project: 'cli',
        notes: [
          { type: 'correction', title: 'Use pnpm', turns: [3] },
          { type: 'decision', title: 'Go with Postgres', turns: [9] },
          { type: 'correction', title: "Don't change anything", turns: [5] },
          { type: 'decision', title: 'It has Note', turns: [3], agentText: true },
        ],
      },
      { file: 'b.jsonl', project: 'spotter-gqc', projectGuess: true, notes: [] },
    ]);
    expect([s.notes, s.correct, s.precision]).toEqual([4, 2, 0.5]);
    expect([s.statedFound, s.statedItems, s.recallStated]).toEqual([2, 2, 1]);
    expect([s.found, s.items]).toEqual([2, 3]);
    expect(s.byType.correction).toMatchObject({ notes: 2, correct: 1, precision: 0.5, items: 1, found: 1, recall: 1 });
    expect(s.byType.insight).toMatchObject({ notes: 0, precision: null, items: 1, found: 0, recall: 0 });
    expect(s.agentText).toBe(1);
    expect(s.wrong.map((w) => w.why)).toEqual(['not durable: this turn only', "the agent's words"]);
    expect(s.projects).toEqual({ checked: 2, right: 1, guessed: 1, share: 0.5 });
    const lines = formatExtractionScore('rules', s, { ...s, precision: 0.25 });
    expect(lines.join('\n')).toContain('precision 0.50 (was 0.25)');
  });

  it('reads the turns a note cites from its provenance line', () => {
    expect(citedTurns('> — claude-code session `s1`, turn 12; extracted 2026-01-01 by rules (rules-v1)')).toEqual([12]);
    expect(citedTurns('> — codex session `s1`, turns 3, 5; extracted 2026-01-01 by claude (x)')).toEqual([3, 5]);
  });

  it('refuses a set with a bad item, naming it', () => {
    expect(() => parseExtractionSet('{"sessions":[{"file":"a.jsonl","items":[{"turn":1,"type":"rule","stated":"near"}]}]}', 'set.json')).toThrow(/set\.json: session 1 \(a\.jsonl\) item 1/);
    expect(() => parseExtractionSet('nope', 'set.json')).toThrow(/not valid JSON/);
  });
});
