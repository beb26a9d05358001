// The claude backend against a fake `claude` on PATH that fails unless argv and environment are right.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeBackend } from '../../src/core/extract/backends/claude.js';
import { BackendError } from '../../src/core/extract/backends/backend-error.js';
import { buildExtractionRequest } from '../../src/core/extract/prompt.js';
import { checkReply } from '../../src/core/extract/window-reply.js';
import { makeWindow } from '../../src/core/extract/window.js';
import { DEFAULT_TYPES } from '../../src/core/note/meta.js';
import { NodeSpawn } from '../../sidecar/hosting/node-spawn.js';
import { findClaude } from '../../sidecar/hosting/backends.js';
import { installFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { session } from '../helpers/extract.js';
import fsp from 'node:fs/promises';
import os from 'node:os';

let tmp: string;
let fake: FakeClaude;
const s = session('s1', [
  ['user', 'We decided to keep the retry limit at three attempts with backoff.'],
  ['assistant', 'Done.'],
  ['user', 'Remember that the staging database resets every Sunday night.'],
]);
const window = makeWindow('s1', s.turns);
const request = buildExtractionRequest(window, s.meta, { types: DEFAULT_TYPES, tags: [], titles: [] }, 5);
const fastRetry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, sleep: () => Promise.resolve() };

function backend(extra: Partial<ConstructorParameters<typeof ClaudeBackend>[0]> = {}) {
  const env = { ...process.env, ...fake.env };
  return new ClaudeBackend({
    spawn: new NodeSpawn({ killGraceMs: 200 }),
    command: findClaude('claude', env),
    env,
    paid: false,
    makeTempDir: async () => {
      const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'engram-nested-'));
      return { path: dir, remove: () => fsp.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) };
    },
    retry: fastRetry,
    ...extra,
  });
}

beforeAll(() => {
  tmp = makeTempDir();
  fake = installFakeClaude(tmp);
});
afterAll(() => removeDir(tmp));

describe('claude backend (CLI) with a fake claude on PATH', () => {
  it('the fake refuses a call made the naive way (control)', () => {
    const r = spawnSync(fake.bin, ['-p'], { input: 'hi', env: { ...process.env, ...fake.env }, encoding: 'utf8' });
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/fake claude:/);
  });

  it('is found on PATH, runs nested-safe, and reads reply and usage', async () => {
    fake.setScript([{ echo: true }]);
    expect(findClaude('claude', { PATH: fake.env.PATH })).toBe(fake.bin);
    const r = await backend().complete(request);
    const checked = checkReply(r.text, window, DEFAULT_TYPES, 5);
    expect(checked.beats.map((b) => b.turns[0])).toEqual([0, 2]);
    expect(r.usage.inputTokens).toBeGreaterThan(100);
    expect(r.model).toBe('claude-haiku-4-5-fake');
    const call = fake.calls()[0];
    expect(call.cwd).toMatch(/engram-nested-/);
    expect(fs.existsSync(call.cwd)).toBe(false);
  });

  it('retries a 429 and a 500, then succeeds', async () => {
    fake.setScript([{ apiError: { status: 429, result: 'API Error: Request rejected (429) · rate_limit_error' } }, { apiError: { status: 500, result: 'API Error: 500 Internal server error' } }, { echo: true }]);
    const r = await backend().complete(request);
    expect(r.attempts).toBe(3);
  });

  it('gives a typed error for persistent failures, auth problems and a missing executable', async () => {
    fake.setScript([{ apiError: { status: 500, result: 'API Error: 500 Internal server error' } }]);
    const e1 = (await backend().complete(request).catch((e: unknown) => e)) as BackendError;
    expect(e1).toBeInstanceOf(BackendError);
    expect(e1.failure).toBe('server');
    expect(fake.calls()).toHaveLength(3);
    fake.setScript([{ apiError: { result: 'Not logged in · Please run /login' } }]);
    const e2 = (await backend().complete(request).catch((e: unknown) => e)) as BackendError;
    expect(e2.failure).toBe('auth');
    expect(fake.calls()).toHaveLength(1);
    const e3 = (await backend({ command: path.join(tmp, 'nope', 'claude') }).complete(request).catch((e: unknown) => e)) as BackendError;
    expect(e3.failure).toBe('not-installed');
  });

  it('kills a call that hangs past its timeout', async () => {
    // The fake sleeps past the test's own timeout: the call returning at all is the kill working.
    fake.setScript([{ sleep: 120_000, echo: true }]);
    const e = (await backend({ retry: { ...fastRetry, attempts: 1 } }).complete({ ...request, timeoutMs: 500 }).catch((x: unknown) => x)) as BackendError;
    expect(e.failure).toBe('timeout');
  });

  it('garbage is rejected with a reason; truncated and fenced JSON are repaired', async () => {
    fake.setScript([{ garbage: true }]);
    const g = checkReply((await backend().complete(request)).text, window, DEFAULT_TYPES, 5);
    expect(g.beats).toEqual([]);
    expect(g.rejected[0].reason).toMatch(/no JSON object/);
    fake.setScript([{ echo: true }]);
    const full = (await backend().complete(request)).text;
    fake.setScript([{ truncate: full.length - 30 }]);
    const t = checkReply((await backend().complete(request)).text, window, DEFAULT_TYPES, 5);
    expect(t.beats).toHaveLength(1);
    expect(t.repairs).toContain('closed a truncated reply');
    fake.setScript([{ fence: true }]);
    expect(checkReply((await backend().complete(request)).text, window, DEFAULT_TYPES, 5).beats).toHaveLength(2);
  });
});
