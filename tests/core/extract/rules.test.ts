// Quality floor: the rules backend files 100% of the explicit markers in the committed transcripts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RulesBackend, ruleBeats } from '../../../src/core/extract/backends/rules.js';
import { extractSession } from '../../../src/core/extract/extract.js';
import { MemoryStateStore } from '../../../src/core/extract/state-store.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { readClaudeCode } from '../../../src/core/transcript/claude-code.js';
import { repoRoot } from '../../helpers/shared.js';
import { turn } from '../../helpers/extract.js';

const dir = path.join(repoRoot, 'tests/fixtures/extract');
const expected = JSON.parse(fs.readFileSync(path.join(dir, 'markers.expected.json'), 'utf8')) as Record<string, { type: string; contains: string }[]>;

describe('rules backend', () => {
  it('files every explicit marker of the committed transcripts, with the right type', async () => {
    let planted = 0;
    let filed = 0;
    for (const [file, markers] of Object.entries(expected)) {
      const session = await readClaudeCode([fs.readFileSync(path.join(dir, file))], { source: file });
      const vault = new MemoryVault();
      const run = await extractSession({ ports: { vault, clock: { now: () => 0 } }, state: new MemoryStateStore(), vaultDir: 'vaults/k', backend: new RulesBackend({ paid: false }), session });
      const notes = await Promise.all((await vault.list()).map(async (f) => parseNote((await vault.read(f.path)).text)));
      for (const m of markers) {
        planted++;
        const hit = notes.find((n) => n.body.includes(m.contains));
        if (hit && hit.data?.type === m.type) filed++;
        else console.log(`not filed: ${file}: ${m.contains}`);
      }
      // Nothing but the markers: no extra notes.
      expect(run.beats.created).toBe(markers.length);
    }
    expect(filed / planted).toBe(1);
  });

  it('ignores "remember:" from the assistant and plain prose, but takes a hashtag marker from either side', () => {
    const beats = ruleBeats([
      turn(0, 'assistant', 'Remember: I cannot browse the web, so paste the logs here please.'),
      turn(1, 'user', 'Please remember the milk. This is just a normal message about nothing in particular.'),
      turn(2, 'assistant', 'Summary of what we settled on. #decision The cache TTL stays at 300 seconds for all tenants.'),
      turn(3, 'user', '#decision'),
    ]);
    expect(beats.map((b) => b.body)).toEqual(['The cache TTL stays at 300 seconds for all tenants.']);
  });

  it('files clear corrections from the user, not questions or pleasantries', () => {
    const said = [
      'No, add the conversationId field, but set its value from sessionId.',
      // Where to write this session's plan: steering for the turn, not a standing rule (bench/extraction-sets).
      "Don't create separate documents; put it into the existing phase file.",
      'Actually, the tests must run with TZ=UTC or the dates drift.',
      'Never commit the generated client; it is rebuilt in CI.',
      "That's wrong: the queue is FIFO per tenant, not global.",
      'No problem, thanks for the quick fix on the parser.',
      "Don't you think we should add a cache in front of the service?",
      'No worries at all, take your time with the migration.',
      'Please continue with the next step of the migration plan.',
    ];
    const beats = ruleBeats(said.map((t, i) => turn(i, 'user', t)));
    expect(beats.map((b) => b.turns[0])).toEqual([0, 2, 3, 4]);
    expect(beats.every((b) => b.type === 'correction')).toBe(true);
    expect(ruleBeats([turn(0, 'assistant', "No, that's wrong: I misread the stack trace earlier.")])).toEqual([]);
  });

  it('does not cap explicit markers at the per-window beat limit', async () => {
    const texts = Array.from({ length: 8 }, (_, i) => turn(i, 'user', `#decision Service ${i} keeps its own database schema and migrations.`));
    const vault = new MemoryVault();
    const run = await extractSession({ ports: { vault, clock: { now: () => 0 } }, state: new MemoryStateStore(), vaultDir: 'v', backend: new RulesBackend({ paid: false }), session: { meta: { sessionId: 'x', agent: 'claude-code' }, turns: texts } });
    expect(run.beats.created).toBe(8);
  });
});
