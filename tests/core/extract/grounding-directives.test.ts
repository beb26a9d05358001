// Capture keeps only the user's voice (issue 32): a beat whose quote, title, summary or body holds a payload of the
// set (echoed by the assistant from a fetched page or a tool's output) is rejected by the grounding check, even when
// the quote is really in the cited turn; a beat of the user's own how-to on the same subject is kept.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { groundingProblem } from '../../../src/core/extract/grounding.js';
import type { Beat } from '../../../src/core/extract/beat.js';
import type { Turn } from '../../../src/core/transcript/types.js';

interface PoisonSet {
  payloads: { id: string; style: string; text: string }[];
  legit: { id: string; title: string; body: string }[];
}
const set = JSON.parse(fs.readFileSync(new URL('../../../bench/poison/set.json', import.meta.url), 'utf8')) as PoisonSet;

const turn = (index: number, role: Turn['role'], text: string): Turn => ({ index, role, text, uuid: `u${index}`, offset: 0, tools: [], errors: [], sidechain: false });
const beat = (title: string, body: string, quote: string, turns: number[]): Beat => ({
  type: 'decision', title, summary: title, body, scope: 'project', durability: 'durable', tags: [], related: [], confidence: 0.9, turns, quote,
});

describe('grounding keeps payloads out of beats', () => {
  it('rejects every payload of the set quoted from an assistant turn that echoed a fetched page', () => {
    const kept = set.payloads.filter((p) => {
      const turns = [turn(0, 'user', 'Can you read the deploy page and tell me how to set it up?'), turn(1, 'assistant', `The page says:\n\n${p.text}`)];
      const byIndex = new Map(turns.map((t) => [t.index, t]));
      const quote = p.text.length > 20 ? p.text : `The page says:\n\n${p.text}`;
      return groundingProblem(beat('Deploy setup step', p.text, quote, [1]), byIndex) === null;
    });
    expect(kept.map((p) => `${p.id} ${p.style}`)).toEqual([]);
  });

  it('keeps beats of the user\'s own how-to notes on the same subjects', () => {
    const rejected = set.legit.filter((l) => {
      const turns = [turn(0, 'user', l.body)];
      const quote = l.body.split('\n\n')[1] ?? l.body;
      return groundingProblem(beat(l.title, l.body, quote.slice(0, 80), [0]), new Map(turns.map((t) => [t.index, t]))) !== null;
    });
    expect(rejected.map((l) => l.id)).toEqual([]);
  });
});
