// The `rules` pass over every real transcript of ../shared/corpus, as `engram setup` runs it over a new user's past
// sessions: its titles are whole phrases under 80 characters, it files a floor of notes, and nothing from a subagent's
// prompt, a compaction summary or redacted text. (Precision, judged by reading every note: bench/rules-judged.md.)
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_TITLE_CHARS, endsMidClause } from '../../src/core/note/title.js';
import { corpusPath, corpusSkipReason, hasCorpus } from '../helpers/shared.js';
import { rulesOnCorpus, type TranscriptResult } from '../../bench/lib/rules-corpus.js';

describe.skipIf(!hasCorpus)(`rules on the corpus transcripts${hasCorpus ? '' : ` (${corpusSkipReason})`}`, () => {
  let results: TranscriptResult[] = [];
  beforeAll(async () => {
    results = await rulesOnCorpus(corpusPath('transcripts'));
  }, 120_000);

  it('files whole-phrase titles under 80 characters, and at least a floor of notes', () => {
    expect(results.length).toBeGreaterThan(40);
    const titles = results.flatMap((r) => r.notes.map((n) => n.title));
    for (const t of titles) {
      expect(t.length, t).toBeLessThan(MAX_TITLE_CHARS);
      expect(endsMidClause(t), `ends mid-clause: "${t}"`).toBe(false);
      expect(t, 'opens with chat filler or a marker').not.toMatch(/^(?:no|nope|ok|okay|so|yeah|actually|#\w+|remember)\b[\s,:]/i);
    }
    // 6 notes (2 of their titles cut mid-clause) before the plain-words rules; 16 when measured.
    expect(titles.length).toBeGreaterThanOrEqual(12);
    // Notes a reader of these sessions would expect, with whole titles.
    expect(titles).toEqual(expect.arrayContaining(['We explicitly choosed `Haiku` as a default for Claude and the prompts are small', 'sessionOrchecstrator must not be agent specific', 'TODO is not acceptable, implementation must be full']));
    // Every filed note is rejected by nothing: the rules' quotes are grounded.
    expect(results.flatMap((r) => r.rejected)).toEqual([]);
  });

  it('files nothing from subagent prompts, compaction summaries or redacted text', () => {
    const silent = results.filter((r) => /\/subagents\/|localpush-redacted/.test(r.file));
    expect(silent.length).toBeGreaterThan(10);
    expect(silent.flatMap((r) => r.notes.map((n) => `${r.file}: ${n.title}`))).toEqual([]);
  });
});
