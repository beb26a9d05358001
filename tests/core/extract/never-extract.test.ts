// Sessions that must never produce beats: Claude Code's compaction agent (agent-acompact-*.jsonl) restates the session
// it summarises, and Engram's own extraction calls would feed memory back into memory. Both are skipped, with the
// reason in the runs log, and the model is never called.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { MemoryStateStore } from '../../../src/core/extract/state-store.js';
import { extractSession, RUNS_LOG } from '../../../src/core/extract/extract.js';
import { RulesBackend } from '../../../src/core/extract/backends/rules.js';
import { readSession } from '../../../src/core/transcript/detect.js';
import type { Session } from '../../../src/core/transcript/types.js';
import type { LlmBackend } from '../../../src/core/extract/backends/types.js';
import { ScriptedBackend } from '../../helpers/extract.js';

const FIXTURES = path.resolve(__dirname, '../../fixtures/transcripts');
const SID = '5f1c2b9e-0d4a-4c8e-9a57-1b2c3d4e5f60';
const clock = { now: () => Date.parse('2026-11-20T10:00:00Z') };

async function read(rel: string): Promise<Session> {
  const file = path.join(FIXTURES, rel);
  return readSession([fs.readFileSync(file)], 'claude-code', { source: file });
}

async function run(s: Session, backend: LlmBackend = new ScriptedBackend(() => new Error('the model must not be called'))) {
  const vault = new MemoryVault({ files: {}, clock });
  const state = new MemoryStateStore();
  const r = await extractSession({ ports: { vault, clock }, state, vaultDir: 'vaults/k', backend, session: s });
  const log = ((await state.read(RUNS_LOG)) ?? '').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { skipped?: string; sessionId: string });
  return { r, notes: await vault.list(), log, ledger: await state.read('vaults/k/ledger.json') };
}

describe('sessions that never produce beats', () => {
  it('a compaction-agent transcript (agent-acompact-*.jsonl) is skipped with a logged reason', async () => {
    const s = await read(`${SID}/subagents/agent-acompact-9f8e7d.jsonl`);
    expect(s.meta.subagent).toBe('compact');
    expect(s.turns.length).toBeGreaterThan(0);
    const backend = new ScriptedBackend(() => new Error('the model must not be called'));
    const { r, notes, log, ledger } = await run(s, backend);
    expect(r.skipped).toMatch(/compaction agent/);
    expect(backend.calls).toBe(0);
    expect(notes).toEqual([]);
    expect(ledger).toBeUndefined();
    expect(log).toHaveLength(1);
    expect(log[0].skipped).toMatch(/compaction agent/);
  });

  it('is skipped even by the rules backend, and when only its file name says what it is', async () => {
    const s = await read(`${SID}/subagents/agent-acompact-9f8e7d.jsonl`);
    delete s.meta.subagent;
    const { r, notes } = await run(s, new RulesBackend({ paid: false }));
    expect(r.skipped).toMatch(/compaction agent/);
    expect(notes).toEqual([]);
  });

  it('an Engram-internal session (its own extraction call) is skipped with a logged reason', async () => {
    const s = await read('engram-internal.jsonl');
    expect(s.meta.engramInternal).toBe(true);
    const backend = new ScriptedBackend(() => new Error('the model must not be called'));
    const { r, notes, log } = await run(s, backend);
    expect(r.skipped).toMatch(/Engram's own extraction call/);
    expect(backend.calls).toBe(0);
    expect(notes).toEqual([]);
    expect(log[0].skipped).toMatch(/Engram's own extraction call/);
  });

  it('an ordinary task subagent transcript is extracted (control)', async () => {
    const s = await read(`${SID}/subagents/agent-a1b2c3d.jsonl`);
    expect(s.meta.subagent).toBe('task');
    const backend = new ScriptedBackend(() => '{"beats":[]}');
    const { r } = await run(s, backend);
    expect(r.skipped).toBeUndefined();
    expect(backend.calls).toBeGreaterThan(0);
  });
});
