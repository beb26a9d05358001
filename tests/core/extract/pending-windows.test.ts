// A failed window is never wasted: bounded retries, pending (not in the ledger) with a backoff, retried later; the
// ledger says which backend covered which turns, so rules never spares an LLM backend the work.
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../src/core/extract/backends/backend-error.js';
import { DEFAULT_RETRY, retryDelay, withRetry } from '../../../src/core/extract/backends/retry.js';
import { extractSession } from '../../../src/core/extract/extract.js';
import { JobStore, LEDGER_VERSION, RUNS_LOG, type Ledger } from '../../../src/core/extract/journal.js';
import { ScriptedBackend, beatsFor, extractEnv, extractOptions, session } from '../../helpers/extract.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const TEXTS: ['user' | 'assistant', string][] = [
  ['user', 'We decided to use pnpm workspaces for the monorepo because installs are faster.'],
  ['assistant', 'Switching to pnpm.'],
  ['user', 'For now the payments service stays on Node 18 until the SDK supports Node 20.'],
  ['assistant', 'Noted.'],
  ['user', 'The API base path is /api/v2 and every client must use the typed wrapper.'],
];
/** About one turn per window: several windows per session. */
const SMALL = { budgetTokens: 25 };

function ledgerOf(state: { read(n: string): Promise<string | undefined> }): Promise<Ledger> {
  return state.read('vaults/k/ledger.json').then((t) => JSON.parse(t ?? '{"version":2,"sessions":{}}') as Ledger);
}

describe('retry policy', () => {
  const server = new BackendError('anthropic', 'server', 'HTTP 500');
  it('caps attempts and waits, never retries a timeout, and ends the call on a Retry-After past the longest backoff', () => {
    expect(retryDelay(server, 1, 0, DEFAULT_RETRY, () => 1)).toBe(1000);
    expect(retryDelay(server, 2, 1000, DEFAULT_RETRY, () => 1)).toBe(2000);
    expect(retryDelay(server, 3, 3000, DEFAULT_RETRY, () => 1)).toBeUndefined();
    expect(retryDelay(new BackendError('anthropic', 'timeout', 'no reply'), 1, 0, DEFAULT_RETRY)).toBeUndefined();
    expect(retryDelay(new BackendError('anthropic', 'auth', 'bad key'), 1, 0, DEFAULT_RETRY)).toBeUndefined();
    expect(retryDelay(new BackendError('anthropic', 'rate-limit', '429', undefined, 5), 1, 0, DEFAULT_RETRY, () => 0)).toBe(5000);
    expect(retryDelay(new BackendError('anthropic', 'rate-limit', '429', undefined, 3600), 1, 0, DEFAULT_RETRY)).toBeUndefined();
    expect(retryDelay(new BackendError('anthropic', 'rate-limit', '429', undefined, 20), 2, 50_000, DEFAULT_RETRY)).toBeUndefined();
  });

  it('a server failing forever costs three requests and a few seconds of waiting', async () => {
    const waits: number[] = [];
    let calls = 0;
    const err = await withRetry(() => {
      calls++;
      return Promise.reject(server);
    }, { ...DEFAULT_RETRY, sleep: (ms) => Promise.resolve(void waits.push(ms)) }).catch((e: unknown) => e as BackendError);
    expect(calls).toBe(3);
    expect(err.attempts).toBe(3);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3000);
  });

  it('an attempt that already took long (a CLI retrying on its own until its deadline) is not started again', async () => {
    let t = 0;
    let calls = 0;
    const err = await withRetry(() => {
      calls++;
      t += 70_000;
      return Promise.reject(server);
    }, { ...DEFAULT_RETRY, now: () => t, sleep: () => Promise.resolve() }).catch((e: unknown) => e as BackendError);
    expect(calls).toBe(1);
    expect(err.attempts).toBe(1);
  });
});

describe('pending windows', () => {
  it('a backend failure stops the session at the first window, leaves it pending with a backoff, and a later run files it once', async () => {
    let now = T0;
    const env = extractEnv({ now: () => now });
    let down = true;
    const backend = new ScriptedBackend((req) => (down ? new BackendError('claude', 'server', 'HTTP 500') : beatsFor(req)));
    const first = await extractSession(extractOptions(env, backend, session('s1', TEXTS), { window: SMALL, mode: 'background' }));
    expect(backend.calls).toBe(1);
    expect(first.windows.total).toBeGreaterThan(1);
    expect(first.windows.notDone).toBe(first.windows.total);
    expect(first.notes).toEqual([]);
    let ledger = await ledgerOf(env.state);
    expect(ledger.version).toBe(LEDGER_VERSION);
    expect(ledger.sessions['claude-code:s1']).toMatchObject({ ranges: [], pending: { backend: 'claude', failure: 'server', failures: 1, retryAt: new Date(T0 + 5 * 60_000).toISOString() } });

    // Background runs wait for the retry time without calling.
    now = T0 + 60_000;
    const early = await extractSession(extractOptions(env, backend, session('s1', TEXTS), { window: SMALL, mode: 'background' }));
    expect(early.waiting).toMatch(/next try after 2026-11-20T10:05:00/);
    expect(backend.calls).toBe(1);
    now = T0 + 6 * 60_000;
    await extractSession(extractOptions(env, backend, session('s1', TEXTS), { window: SMALL, mode: 'background' }));
    expect(backend.calls).toBe(2);
    ledger = await ledgerOf(env.state);
    // The backoff doubles.
    expect(ledger.sessions['claude-code:s1'].pending).toMatchObject({ failures: 2, retryAt: new Date(now + 10 * 60_000).toISOString() });

    // A command the user types tries at once; success clears the record and files each note once.
    down = false;
    const ok = await extractSession(extractOptions(env, backend, session('s1', TEXTS), { window: SMALL, mode: 'foreground' }));
    expect(ok.failed).toEqual([]);
    expect(ok.beats.created).toBe(3);
    ledger = await ledgerOf(env.state);
    expect(ledger.sessions['claude-code:s1'].pending).toBeUndefined();
    expect(ledger.sessions['claude-code:s1'].ranges.every((r) => r.backend === 'claude')).toBe(true);
    const again = await extractSession(extractOptions(env, backend, session('s1', TEXTS), { window: SMALL }));
    expect(again.windows.total).toBe(0);
  });

  it('an unreadable reply fails only its window: the others are filed, it stays pending', async () => {
    const env = extractEnv({ now: () => T0 });
    const backend = new ScriptedBackend((req) => ((req.turns ?? []).some((t) => t.text.includes('pnpm workspaces')) ? 'Sorry, I cannot do that.' : beatsFor(req)));
    const run = await extractSession(extractOptions(env, backend, session('s1', TEXTS), { window: SMALL }));
    expect(run.failed).toMatchObject([{ failure: 'reply' }]);
    expect(run.beats.created).toBe(2);
    expect(run.windows.notDone).toBe(1);
    const ledger = await ledgerOf(env.state);
    expect(ledger.sessions['claude-code:s1'].pending).toMatchObject({ failure: 'reply', windows: 1 });
    // The unreadable reply's tokens still count against the budget.
    expect(await env.state.read('logs/llm-calls.jsonl')).toMatch(/"ok":false/);
  });

  it('turns only rules has seen are sent to an LLM backend; the rules notes are extended or kept, never duplicated', async () => {
    const env = extractEnv({ now: () => T0 });
    const rules = new ScriptedBackend((req) => beatsFor(req), 'rules');
    const r1 = await extractSession(extractOptions(env, rules, session('s1', TEXTS)));
    expect(r1.beats.created).toBe(3);
    const llm = new ScriptedBackend((req) => beatsFor(req));
    const r2 = await extractSession(extractOptions(env, llm, session('s1', TEXTS)));
    expect(llm.calls).toBe(1);
    expect(r2.beats.created).toBe(0);
    expect(r2.beats.extended + r2.beats.duplicates).toBe(3);
    const ledger = await ledgerOf(env.state);
    expect(ledger.sessions['claude-code:s1'].ranges.map((r) => r.backend)).toEqual(['claude']);
    // Rules never re-reads what an LLM covered; the LLM does not read its own ranges twice.
    const r3 = await extractSession(extractOptions(env, rules, session('s1', TEXTS)));
    const r4 = await extractSession(extractOptions(env, llm, session('s1', TEXTS)));
    expect([r3.windows.total, r4.windows.total]).toEqual([0, 0]);
  });

  it('migrates a version-1 ledger: sessions only rules extracted are still to do for an LLM backend', async () => {
    const env = extractEnv({ now: () => T0 });
    const range = (id: string) => ({ firstUuid: `${id}-0`, lastUuid: `${id}-4`, firstIndex: 0, lastIndex: 4, endOffset: 0, beats: 1, at: '2026-11-01T00:00:00Z' });
    await env.state.write('vaults/k/ledger.json', JSON.stringify({ version: 1, sessions: { 'claude-code:s1': { ranges: [range('s1')] }, 'claude-code:s2': { ranges: [range('s2')] } } }));
    await env.state.append(RUNS_LOG, JSON.stringify({ sessionId: 's1', backend: 'rules', windows: { called: 1 } }));
    await env.state.append(RUNS_LOG, JSON.stringify({ sessionId: 's2', backend: 'claude', windows: { called: 1 } }));
    const migrated = await new JobStore(env.state, 'vaults/k').readLedger();
    expect(migrated.version).toBe(LEDGER_VERSION);
    expect(migrated.sessions['claude-code:s1'].ranges[0].backend).toBe('rules');
    expect(migrated.sessions['claude-code:s2'].ranges[0].backend).toBe('unknown');
    const llm = new ScriptedBackend((req) => beatsFor(req));
    expect((await extractSession(extractOptions(env, llm, session('s1', TEXTS)))).windows.called).toBe(1);
    expect((await extractSession(extractOptions(env, llm, session('s2', TEXTS)))).windows.total).toBe(0);
    expect(JSON.parse((await env.state.read('vaults/k/ledger.json'))!).version).toBe(LEDGER_VERSION);
  });
});
