// Retries transient backend failures with exponential backoff and jitter; anything else fails at once.
import { BackendError } from './backend-error.js';

export interface RetryPolicy {
  /** Attempts in all, including the first. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Injected so tests do not sleep. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function withRetry<T>(call: (attempt: number) => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY): Promise<{ value: T; attempts: number }> {
  const sleep = policy.sleep ?? realSleep;
  const random = policy.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return { value: await call(attempt), attempts: attempt };
    } catch (e) {
      if (!(e instanceof BackendError) || !e.transient || attempt >= policy.attempts) throw e;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const asked = e.retryAfterSec !== undefined ? e.retryAfterSec * 1000 : 0;
      await sleep(Math.min(policy.maxDelayMs, Math.max(asked, backoff * (0.5 + random() / 2))));
    }
  }
}
