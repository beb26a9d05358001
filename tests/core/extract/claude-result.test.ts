// The claude backend classifies a failed run from the CLI's result object (as Claude Code 2.1.330 prints it), never
// from numbers elsewhere in its output: a "Not logged in" result whose duration_ms is 512 is a login problem.
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../src/core/extract/backends/backend-error.js';
import { ClaudeBackend, classifyResult, nestedPrompt } from '../../../src/core/extract/backends/claude.js';
import type { SpawnPort, SpawnRequest } from '../../../src/core/ports.js';
import { ENGRAM_PROMPT_MARKER } from '../../../src/core/transcript/fence.js';

/** Result objects as the real CLI prints them (fields it adds beyond these left out). */
const NOT_LOGGED_IN = { type: 'result', subtype: 'success', is_error: true, api_error_status: null, duration_ms: 512, duration_api_ms: 0, result: 'Not logged in · Please run /login', terminal_reason: 'api_error' };
const HTTP_500 = { type: 'result', subtype: 'success', is_error: true, api_error_status: 500, api_error_type: 'api_error', duration_ms: 764, result: 'API Error: 500 scripted failure. This is a server-side issue, usually temporary.' };
const HTTP_429 = { type: 'result', is_error: true, api_error_status: 429, result: 'API Error: Request rejected (429) · slow down', duration_ms: 681 };
const REFUSED = { type: 'result', is_error: true, api_error_status: null, api_error: 'connection_failed', result: 'API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)', duration_ms: 155 };
const BAD_KEY = { type: 'result', is_error: true, api_error_status: 401, result: 'Invalid API key · Fix external API key', duration_ms: 529 };

function backendReplying(stdout: string, exitCode: number): { backend: ClaudeBackend; calls: SpawnRequest[] } {
  const calls: SpawnRequest[] = [];
  const spawn: SpawnPort = {
    async run(req) {
      calls.push(req);
      return { exitCode, signal: null, stdout, stderr: '', timedOut: false };
    },
  };
  const backend = new ClaudeBackend({ spawn, env: {}, paid: false, makeTempDir: async () => ({ path: '/tmp/x', remove: async () => undefined }), retry: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0, sleep: async () => undefined } });
  return { backend, calls };
}

describe('claude backend: errors from the result object', () => {
  it('classifies each failure the real CLI reports', () => {
    expect(classifyResult(NOT_LOGGED_IN)).toEqual({ failure: 'auth' });
    expect(classifyResult(HTTP_500)).toEqual({ failure: 'server', status: 500 });
    expect(classifyResult(HTTP_429)).toEqual({ failure: 'rate-limit', status: 429 });
    expect(classifyResult(REFUSED)).toEqual({ failure: 'network' });
    expect(classifyResult(BAD_KEY)).toEqual({ failure: 'auth', status: 401 });
  });

  it('"Not logged in" with duration_ms 512 fails once as auth, with the real fix and key names', async () => {
    const { backend, calls } = backendReplying(JSON.stringify(NOT_LOGGED_IN), 1);
    const e = (await backend.complete({ system: 's', user: 'u' }).catch((x: unknown) => x)) as BackendError;
    expect(e).toBeInstanceOf(BackendError);
    expect(e.failure).toBe('auth');
    expect(e.transient).toBe(false);
    expect(calls).toHaveLength(1);
    expect(e.message).toContain('Not logged in');
    expect(e.hint).toMatch(/\/login/);
    expect(e.hint).toContain('engram configure backend rules');
  });

  it('a 500 is retried under Engram\'s policy and keeps its status', async () => {
    const { backend, calls } = backendReplying(JSON.stringify(HTTP_500), 1);
    const e = (await backend.complete({ system: 's', user: 'u' }).catch((x: unknown) => x)) as BackendError;
    expect(e.failure).toBe('server');
    expect(e.status).toBe(500);
    expect(calls).toHaveLength(3);
  });

  it('an is_error result with exit 0 is still a failure, not a reply', async () => {
    const { backend } = backendReplying(JSON.stringify({ ...HTTP_429, result: 'API Error: 429' }), 0);
    const e = (await backend.complete({ system: 's', user: 'u' }).catch((x: unknown) => x)) as BackendError;
    expect(e.failure).toBe('rate-limit');
  });

  it('puts the marker at the start of the user message once', () => {
    expect(nestedPrompt('hello')).toBe(`${ENGRAM_PROMPT_MARKER}\nhello`);
    expect(nestedPrompt(`${ENGRAM_PROMPT_MARKER}\nhello`)).toBe(`${ENGRAM_PROMPT_MARKER}\nhello`);
  });
});
