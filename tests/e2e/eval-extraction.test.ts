// `engram eval extraction` as a real process: the offline rules and an LLM backend (the fake claude that echoes
// every user turn as a note) scored against a set annotated by reading the fixture, each run beside the previous one.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { installFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { repoRoot } from '../helpers/shared.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

let root: string;
let fake: FakeClaude;

// markers-a.jsonl, read: turn 0 asks for a task (not durable); turns 2, 4, 6, 8 each state one durable item.
const SET = {
  sessions: [
    {
      file: 'markers-a.jsonl',
      project: 'acme',
      items: [
        { turn: 2, type: 'decision', stated: 'explicit', quote: 'We use pnpm workspaces, not npm' },
        { turn: 4, type: 'insight', stated: 'explicit', quote: 'the staging database is reset every Sunday' },
        { turn: 6, type: 'correction', stated: 'explicit', quote: 'The API base path is /api/v2' },
        { turn: 8, type: 'decision', stated: 'explicit', quote: 'Keep the retry limit at 3 attempts' },
      ],
      steering: [{ turn: 0, quote: 'Set up the monorepo tooling', why: 'a task' }],
    },
  ],
};

beforeAll(() => {
  root = makeTempDir('engram-eval-extraction-');
  fake = installFakeClaude(path.join(root, 'fake'));
  fs.mkdirSync(path.join(root, 'transcripts'));
  fs.copyFileSync(path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl'), path.join(root, 'transcripts', 'markers-a.jsonl'));
  fs.writeFileSync(path.join(root, 'set.json'), JSON.stringify(SET));
});
afterAll(() => removeDir(root));

describe('engram eval extraction', () => {
  const env = () => ({ ...fake.env, ENGRAM_HOME: path.join(root, 'home'), HOME: path.join(root, 'home') });
  const run = (...extra: string[]) => runCli(['eval', 'extraction', '--set', path.join(root, 'set.json'), '--transcripts', path.join(root, 'transcripts'), ...extra], { env: env() });

  it('scores rules per type, then prints the next run beside the previous one', () => {
    const first = run('--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const r = JSON.parse(first.stdout) as { backend: string; previous: unknown; score: { notes: number; precision: number; recallStated: number; agentText: number; projects: { right: number; checked: number }; byType: Record<string, { precision: number; recall: number }> } };
    expect(r.backend).toBe('rules');
    expect(r.previous).toBeNull();
    expect(r.score).toMatchObject({ notes: 4, precision: 1, recallStated: 1, agentText: 0, projects: { right: 1, checked: 1 } });
    expect(r.score.byType.decision).toMatchObject({ precision: 1, recall: 1 });
    const second = run();
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/precision 1\.00 \(was 1\.00\)/);
    expect(second.stdout).toMatch(/correction +1 +1 +1\.00 +1 +1 +1\.00 +\(was 1\.00 \/ 1\.00\)/);
  });

  it('scores a configured LLM backend against its answers: a note on the task turn is wrong', () => {
    fake.setScript([{ echo: true }]);
    const out = run('--backend', 'claude', '--verbose');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(fake.calls().length).toBeGreaterThan(0);
    expect(out.stdout).toMatch(/^claude \(/m);
    expect(out.stdout).toMatch(/precision 0\.80 +recall of stated items 1\.00 \(4\/4\)/);
    expect(out.stdout).toMatch(/wrong +markers-a\.jsonl turn 0 \[insight\] .* \(not durable: a task\)/);
  });

  it('says what is wrong with a bad set, and writes nothing', () => {
    fs.writeFileSync(path.join(root, 'bad.json'), '{"sessions":[{"file":"x.jsonl","items":[{"turn":"2"}]}]}');
    const out = runCli(['eval', 'extraction', '--set', path.join(root, 'bad.json'), '--transcripts', path.join(root, 'transcripts')], { env: env() });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/bad\.json: session 1 \(x\.jsonl\) item 1: needs "turn"/);
  });
});
