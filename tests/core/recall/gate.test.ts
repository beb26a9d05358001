// The relevance bar for automatic injection (src/core/recall/gate.ts), read on a passage's terms against the vault's
// term statistics. Notes written here, on the pattern of the real misses in bench/recall-sets.
import { describe, expect, it } from 'vitest';
import { contentTerms, TermStats } from '../../../src/core/recall/term-stats.js';
import { judge } from '../../../src/core/recall/gate.js';

function statsOf(notes: Record<string, string>): TermStats {
  const s = new TermStats();
  for (const [p, t] of Object.entries(notes)) s.set(p, t);
  // Filler notes so that common words are common and rare ones rare.
  for (let i = 0; i < 40; i++) s.set(`filler-${i}.md`, `meeting notes number ${i} about planning and people`);
  return s;
}

describe('the relevance gate', () => {
  const notes = {
    'codegen.md': 'We convert these GraphQL fragments into TypeScript interfaces by running a CLI script.',
    'python.md': 'Python packaging: a virtualenv and pip.',
    'ts1.md': 'A TypeScript script to convert dates.',
    'ts2.md': 'Convert the build script to TypeScript.',
    'ts3.md': 'TypeScript strict mode; convert any script slowly.',
  };
  const stats = statsOf(notes);

  it('lets a passage through that misses only a light word of the prompt', () => {
    const v = judge('convert the graphql fragments into typescript interfaces', contentTerms(notes['codegen.md']), stats);
    expect(v.pass).toBe(true);
  });

  it('refuses a passage that lacks the one heavy word the prompt is about, however much else it shares', () => {
    const v = judge('convert this python script to typescript', contentTerms(notes['codegen.md']), stats);
    expect(v.coverage).toBeGreaterThanOrEqual(0.6);
    expect(v.matched).toEqual(expect.arrayContaining(['convert', 'script', 'typescript']));
    expect(v.pass).toBe(false);
  });

  it('does not hold against a passage a word the vault never uses', () => {
    // "quickly" is in no note: it cannot tell what a note is about, so it does not bar one.
    const v = judge('quickly convert graphql fragments into typescript interfaces', contentTerms(notes['codegen.md']), stats);
    expect(v.pass).toBe(true);
  });
});
