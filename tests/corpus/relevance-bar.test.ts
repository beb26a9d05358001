// The injection relevance bar on LoCoMo-dev (one note per session, built from its turns; project = conversation):
// at least 70% of the questions inject a relevant note, and at least 90% of 100 off-topic prompts inject nothing.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { corpusPath, corpusSkipReason, hasCorpus, repoRoot } from '../helpers/shared.js';
import { buildLocomoEngine, measureBar } from '../../bench/lib/relevance-bar.js';

describe.skipIf(!hasCorpus)(`relevance bar on locomo-dev${hasCorpus ? '' : ` (${corpusSkipReason})`}`, () => {
  it('injects a relevant note for >= 70% of questions and nothing for >= 90% of off-topic prompts', async () => {
    const dir = corpusPath('bench', 'locomo-dev');
    const offTopic = fs.readFileSync(path.join(repoRoot, 'tests/fixtures/recall/off-topic-prompts.txt'), 'utf8').split('\n').filter(Boolean);
    expect(offTopic).toHaveLength(100);
    const engine = await buildLocomoEngine(dir, 'session');
    const r = await measureBar(engine, dir, offTopic, 'session');
    expect(r.questions).toBeGreaterThan(1000);
    expect(r.relevantInjected / r.questions).toBeGreaterThanOrEqual(0.7);
    expect(r.offTopicSilent / r.offTopic).toBeGreaterThanOrEqual(0.9);
  }, 120_000);
});
