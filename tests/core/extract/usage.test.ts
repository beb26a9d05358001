import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../../src/core/extract/state-store.js';
import { dailyLimit, describeBudget, recordCall, usageSummary, type CallRecord } from '../../../src/core/extract/usage.js';
import { CONFIG_KEYS, effectiveConfig } from '../../../src/core/config.js';
import { createBackend } from '../../../sidecar/hosting/backends.js';
import { extractSession } from '../../../src/core/extract/extract.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { ScriptedBackend, beatsFor, session } from '../../helpers/extract.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
/** Whether each backend is paid, as the backend registry (sidecar/hosting/backends.ts) hands it in. */
const PAID = { claude: false, anthropic: true } as const;
const call = (hoursAgo: number, backend: CallRecord['backend'], tokens: number, costUsd = 0): CallRecord => ({
  t: new Date(NOW - hoursAgo * 3600_000).toISOString(), backend, model: 'm', inputTokens: tokens, outputTokens: 0, costUsd, durationMs: 10, attempts: 1, ok: true, mode: 'background',
});

describe('usage and budget', () => {
  it('sums a rolling day per backend and says when background extraction stops', async () => {
    const store = new MemoryStateStore();
    await recordCall(store, call(30, 'claude', 500_000)); // older than a day: not counted
    await recordCall(store, call(2, 'claude', 150_000));
    await recordCall(store, call(1, 'claude', 60_000));
    await recordCall(store, call(1, 'anthropic', 1_000, 0.02));
    await store.append('logs/llm-calls.jsonl', '{"t": "torn');
    const u = await usageSummary(store, NOW, {}, PAID);
    const claude = u.backends.find((b) => b.backend === 'claude')!;
    expect(claude).toMatchObject({ calls: 2, inputTokens: 210_000, limit: 200_000, remaining: 0, spent: true });
    expect(describeBudget(claude)).toMatch(/210,000 of 200,000 tokens in the last 24 h \(2 calls\); budget spent: background extraction paused/);
    const anthropic = u.backends.find((b) => b.backend === 'anthropic')!;
    expect(anthropic.limit).toBe(0);
    expect(describeBudget(anthropic)).toMatch(/~\$0\.02.*no background budget set/);
    const set = await usageSummary(store, NOW, { claude: 1_000_000, anthropic: 10_000 }, PAID);
    expect(set.backends.find((b) => b.backend === 'claude')).toMatchObject({ spent: false, remaining: 790_000 });
    expect(describeBudget(set.backends.find((b) => b.backend === 'anthropic')!)).toMatch(/9,000 left/);
  });

  it('claude on an API key is a paid backend: no background budget until the user sets one (no surprise bills)', async () => {
    // Made as the host makes it: the backend registry says whether it is paid (never called here).
    const config = effectiveConfig({ version: 1 }, {});
    const onLogin = createBackend('claude', config, { env: { HOME: '/home/u', PATH: '' } });
    const onKey = createBackend('claude', config, { env: { HOME: '/home/u', PATH: '', ANTHROPIC_API_KEY: 'sk-ant-test' } });
    expect(onLogin.paid).toBe(false);
    expect(onKey.paid).toBe(true);
    expect(dailyLimit('claude', onLogin.paid)).toBe(CONFIG_KEYS['budget.tokens_per_day'].default);
    expect(dailyLimit('claude', onKey.paid)).toBe(0);
    expect(dailyLimit('claude', onKey.paid, { claude: 50_000 })).toBe(50_000);
    // Background extraction on the key stops before any call, and says why and how to allow it.
    const backend = new ScriptedBackend((req) => beatsFor(req), 'claude', onKey.paid);
    const s = session('s1', [['user', 'We decided to use pnpm workspaces for the monorepo because npm was slow.']]);
    const run = await extractSession({ ports: { vault: new MemoryVault(), clock: { now: () => Date.now() } }, state: new MemoryStateStore(), vaultDir: 'v', backend, session: s, mode: 'background' });
    expect(run.budgetStopped).toMatch(/no background budget set for the paid claude backend \(it runs on ANTHROPIC_API_KEY, billed per token\); set one with `engram configure budget.tokens_per_day/);
    expect(backend.calls).toBe(0);
  });

  it('the default budgets: the config key\'s default for claude, nothing for paid APIs until set, no limit for local backends', () => {
    expect(CONFIG_KEYS['budget.tokens_per_day'].default).toBe(200_000);
    expect(dailyLimit('claude', false)).toBe(CONFIG_KEYS['budget.tokens_per_day'].default);
    // Paid APIs (anthropic, a remote openai) nothing until set; local ones (ollama, a local openai server) no limit.
    expect(dailyLimit('anthropic', true)).toBe(0);
    expect(dailyLimit('openai', true)).toBe(0);
    expect(dailyLimit('openai', false)).toBe(Number.POSITIVE_INFINITY);
    expect(dailyLimit('ollama', false)).toBe(Number.POSITIVE_INFINITY);
    expect(dailyLimit('rules', false)).toBe(Number.POSITIVE_INFINITY);
    // Once the user sets a budget, it is the limit, for every backend.
    expect(dailyLimit('anthropic', true, { anthropic: 30_000 })).toBe(30_000);
    expect(dailyLimit('claude', false, { claude: 0 })).toBe(0);
  });

  it('the optional validate pass drops beats the model does not confirm', async () => {
    const backend = new ScriptedBackend((req) => (req.system.includes('You check beats') ? JSON.stringify({ verdicts: [{ beat: 0, supported: false, keep: false, reason: 'misread' }, { beat: 1, supported: true, keep: true }] }) : beatsFor(req)));
    const s = session('v1', [
      ['user', 'We decided to use pnpm workspaces for the monorepo because installs are faster.'],
      ['user', 'The API base path is /api/v2 and every client must use the typed wrapper.'],
    ]);
    const run = await extractSession({ ports: { vault: new MemoryVault(), clock: { now: () => NOW } }, state: new MemoryStateStore(), vaultDir: 'v', backend, session: s, validatePass: true });
    expect(backend.calls).toBe(2);
    expect(run.beats.created).toBe(1);
    expect(run.rejected.map((r) => r.reason)).toEqual(['validate pass: misread']);
  });
});
