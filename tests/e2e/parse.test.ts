// `engram parse` as a user runs it: a real process on the committed fixture transcripts.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { repoRoot } from '../helpers/shared.js';

const fx = (name: string) => path.join(repoRoot, 'tests', 'fixtures', 'transcripts', name);
const home = makeTempDir('engram-parse-');
const env = { ENGRAM_HOME: path.join(home, 'state'), HOME: home };
afterAll(() => removeDir(home));

describe('engram parse', () => {
  it('prints metadata, turns by role, signals, windows, redactions and damage', () => {
    const r = runCli(['parse', fx('claude-all-types.jsonl')], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('format    claude-code');
    expect(r.stdout).toContain('session   5f1c2b9e-0d4a-4c8e-9a57-1b2c3d4e5f60  (claude-code)');
    expect(r.stdout).toContain('project orbit  branch main  version 2.1.39');
    expect(r.stdout).toContain('turns     user 5, assistant 7 (sidechain 2)');
    expect(r.stdout).toContain('compactions 1, compact summaries 1, legacy summaries 1, microcompactions 1');
    expect(r.stdout).toContain('redacted  1 (anthropic-key 1)');
    expect(r.stdout).toMatch(/turn 4 correction: no, use pnpm instead of npm/);
    expect(r.stdout).toMatch(/windows   1 \(budget 15000 tokens, overlap 0 turns/);
    expect(r.stdout).not.toContain('sk-ant-api03-Q');
  });

  it('--json gives the same as one JSON object', () => {
    const r = runCli(['parse', fx('claude-damaged.jsonl'), '--json'], { env });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as {
      format: string;
      meta: { sessionId: string };
      turns: { user: number; assistant: number };
      damage: { tornLines: number; recoveredRecords: number; at: { offset: number; kind: string }[] };
      windows: { tokens: number; firstUuid: string; lastUuid: string }[];
      signals: unknown[];
      redactions: { total: number };
    };
    expect(j.format).toBe('claude-code');
    expect(j.turns).toEqual({ user: 3, assistant: 2, sidechain: 0 });
    expect(j.damage.tornLines).toBe(4);
    expect(j.damage.recoveredRecords).toBe(3);
    expect(j.damage.at[0]).toEqual({ offset: 386, kind: 'torn', recovered: 1 });
    expect(j.windows).toHaveLength(1);
    expect(j.redactions.total).toBe(0);
    const small = JSON.parse(runCli(['parse', fx('claude-all-types.jsonl'), '--json', '--budget', '64', '--overlap', '1'], { env }).stdout) as typeof j;
    expect(small.windows.length).toBeGreaterThan(2);
    for (const w of small.windows) expect(w.tokens).toBeLessThanOrEqual(64);
    expect(small.redactions.total).toBe(1);
  });

  it('reads a Codex rollout and a chat export', () => {
    const codex = runCli(['parse', fx('rollout-2026-01-05T09-00-00-019c0000-1111-7222-8333-444455556666.jsonl')], { env });
    expect(codex.code).toBe(0);
    expect(codex.stdout).toContain('format    codex');
    expect(codex.stdout).toContain('turns     user 2, assistant 3');
    const chat = runCli(['parse', fx('chatgpt-conversations.json'), '--json'], { env });
    expect(chat.code).toBe(0);
    const j = JSON.parse(chat.stdout) as { format: string; exportSummary: { conversations: number; skipped: number }; sessions: { meta: { agent: string } }[] };
    expect(j.format).toBe('chat-export');
    expect(j.exportSummary).toMatchObject({ conversations: 1, skipped: 1 });
    expect(j.sessions[0]!.meta.agent).toBe('chatgpt');
  });

  it('says what is wrong with bad input, in one line', () => {
    const missing = runCli(['parse', path.join(home, 'nope.jsonl')], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/transcript not found/);
    expect(missing.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    const notTranscript = path.join(home, 'notes.txt');
    fs.writeFileSync(notTranscript, 'just some notes\n');
    const other = runCli(['parse', notTranscript], { env });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/not a transcript Engram can read/);
    expect(runCli(['parse'], { env }).code).toBe(1);
    const badBudget = runCli(['parse', fx('claude-all-types.jsonl'), '--budget', '3'], { env });
    expect(badBudget.code).toBe(1);
    expect(badBudget.stderr).toMatch(/--budget/);
    expect(runCli(['parse', home], { env }).stderr).toMatch(/is a folder/);
  });
});
