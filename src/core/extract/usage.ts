// Every LLM call is recorded (backend, model, tokens, cost, duration) in $ENGRAM_HOME/logs, and a rolling-day
// budget is computed from those records: `budget.tokens_per_day` once the user sets it; until then its default
// (200,000) for `claude`, nothing for paid API backends, no limit for local ones (ollama, a local OpenAI server).
// Whether a backend is paid is its registry entry's word (sidecar/hosting/backends.ts `paid`), handed in here.
import { CONFIG_KEYS } from '../config.js';
import type { BackendName, CompletionResult } from './backends/types.js';
import { readLog, type StateStore } from './state-store.js';

export const CALLS_LOG = 'logs/llm-calls.jsonl';
export const DAY_MS = 24 * 60 * 60 * 1000;
/** The `claude` backend's default: the config key's own default, so `engram config` and extraction say the same. */
export const DEFAULT_CLAUDE_DAILY_TOKENS: number = CONFIG_KEYS['budget.tokens_per_day'].default;

/** A server on this machine (LM Studio, vLLM, llama.cpp on localhost) costs nothing per token. */
export function isLocalUrl(url: string): boolean {
  return /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(`${url}/`);
}

export interface CallRecord {
  t: string;
  backend: BackendName;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  durationMs: number;
  attempts: number;
  ok: boolean;
  error?: string;
  /** Background (hook/daemon) or foreground (a command the user ran). */
  mode: 'background' | 'foreground';
  vault?: string;
}

/** Daily token budgets per backend, from config; undefined = the default for that backend. */
export type BudgetConfig = Partial<Record<BackendName, number>>;

/** The rolling-day token limit for background extraction: the one rule extraction and `engram status` both apply. */
export function dailyLimit(backend: BackendName, paid: boolean, config: BudgetConfig = {}): number {
  const set = config[backend];
  if (set !== undefined) return set;
  // The subscription has its own limits; the CLI on an API key is billed like any paid API: nothing until set.
  if (backend === 'claude') return paid ? 0 : DEFAULT_CLAUDE_DAILY_TOKENS;
  if (backend === 'rules') return Number.POSITIVE_INFINITY;
  return paid ? 0 : Number.POSITIVE_INFINITY;
}

export async function recordCall(store: StateStore, rec: CallRecord): Promise<void> {
  await store.append(CALLS_LOG, JSON.stringify(rec));
}

export function callRecord(backend: BackendName, result: CompletionResult, mode: CallRecord['mode'], now: number): CallRecord {
  return {
    t: new Date(now).toISOString(),
    backend,
    model: result.model,
    inputTokens: result.usage.inputTokens,
    outputTokens: result.usage.outputTokens,
    costUsd: result.costUsd,
    durationMs: result.durationMs,
    attempts: result.attempts ?? 1,
    ok: true,
    mode,
  };
}

export interface BackendUsage {
  backend: BackendName;
  calls: number;
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Tokens allowed in the rolling day for background extraction (Infinity = no limit). */
  limit: number;
  remaining: number;
  spent: boolean;
}

export interface UsageSummary {
  since: string;
  backends: BackendUsage[];
  totalTokens: number;
  totalCostUsd: number;
}

async function readCalls(store: StateStore, since: number): Promise<CallRecord[]> {
  const text = await readLog(store, CALLS_LOG);
  const out: CallRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const rec = JSON.parse(line) as CallRecord;
      if (Date.parse(rec.t) >= since) out.push(rec);
    } catch {
      // A torn last line from a crash is ignored.
    }
  }
  return out;
}

/**
 * Usage over the last 24 hours, per backend, with the budget left (for `engram status` and the budget check). Whether
 * each backend is paid is handed in (the backend registry's word); a backend with no word is not listed.
 */
export async function usageSummary(
  store: StateStore,
  now: number,
  budgets: BudgetConfig | undefined,
  paid: Partial<Record<BackendName, boolean>>,
  /** Backends to list even without calls today (the configured one). */
  include: BackendName[] = [],
): Promise<UsageSummary> {
  const since = now - DAY_MS;
  const calls = await readCalls(store, since);
  const names = new Set<BackendName>([...include, ...calls.map((c) => c.backend)].filter((b) => paid[b] !== undefined));
  const backends: BackendUsage[] = [];
  for (const backend of names) {
    const mine = calls.filter((c) => c.backend === backend);
    const inputTokens = mine.reduce((s, c) => s + c.inputTokens, 0);
    const outputTokens = mine.reduce((s, c) => s + c.outputTokens, 0);
    const limit = dailyLimit(backend, paid[backend]!, budgets);
    const used = inputTokens + outputTokens;
    backends.push({
      backend,
      calls: mine.filter((c) => c.ok).length,
      failedCalls: mine.filter((c) => !c.ok).length,
      inputTokens,
      outputTokens,
      costUsd: mine.reduce((s, c) => s + c.costUsd, 0),
      limit,
      remaining: Math.max(0, limit - used),
      spent: used >= limit,
    });
  }
  return {
    since: new Date(since).toISOString(),
    backends,
    totalTokens: backends.reduce((s, b) => s + b.inputTokens + b.outputTokens, 0),
    totalCostUsd: backends.reduce((s, b) => s + b.costUsd, 0),
  };
}

/** One line for `engram status`. */
export function describeBudget(u: BackendUsage): string {
  const used = u.inputTokens + u.outputTokens;
  const limit = Number.isFinite(u.limit) ? u.limit.toLocaleString('en-US') : 'no limit';
  const cost = u.costUsd > 0 ? `, ~$${u.costUsd.toFixed(2)}` : '';
  const state = u.spent
    ? u.limit === 0
      ? 'no background budget set: background extraction is off (set one with `engram configure budget.<backend> <tokens>`)'
      : 'budget spent: background extraction paused until the rolling day frees tokens'
    : `${u.remaining.toLocaleString('en-US')} left`;
  return `${u.backend}: ${used.toLocaleString('en-US')} of ${limit} tokens in the last 24 h (${u.calls} calls${cost}); ${state}`;
}
