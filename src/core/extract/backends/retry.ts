// Retries transient backend failures with exponential backoff and jitter, within a cap on attempts and on the time
// spent waiting; anything else fails at once. A failed call is not the end of its window: the window stays pending
// and a later run retries it, so one call never waits long (a hung server is not asked again, a Retry-After longer
// than the longest backoff ends the call).
import { BackendError } from './backend-error.js';

export interface RetryPolicy {
  /** Attempts in all, including the first. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * No attempt starts later than this many milliseconds after the first one did (attempts and waits count; default
   * 60 s): a call that already took long (a CLI retrying on its own) is not started again.
   */
  maxElapsedMs?: number;
  /** Injected so tests do not sleep. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 1000, maxDelayMs: 30_000, maxElapsedMs: 60_000 };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait before the next attempt (`elapsed`: ms since the first attempt started), or undefined to give up now. */
export function retryDelay(e: BackendError, attempt: number, elapsed: number, policy: RetryPolicy, random: () => number = Math.random): number | undefined {
  // A server that did not answer within the deadline will most likely not answer the next one either.
  if (!e.transient || e.failure === 'timeout' || attempt >= policy.attempts) return undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * (0.5 + random() / 2);
  const asked = e.retryAfterSec !== undefined ? e.retryAfterSec * 1000 : 0;
  // A server asking for more than the longest backoff is told "later": the window is retried by a later run.
  if (asked > policy.maxDelayMs) return undefined;
  const delay = Math.max(asked, backoff);
  if (elapsed + delay > (policy.maxElapsedMs ?? DEFAULT_RETRY.maxElapsedMs ?? Infinity)) return undefined;
  return delay;
}

export async function withRetry<T>(call: (attempt: number) => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY): Promise<{ value: T; attempts: number }> {
  const sleep = policy.sleep ?? realSleep;
  const random = policy.random ?? Math.random;
  const now = policy.now ?? Date.now;
  const started = now();
  let slept = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return { value: await call(attempt), attempts: attempt };
    } catch (e) {
      // Injected sleeps take no time: count them too, so the cap holds in tests as it does for real.
      const elapsed = Math.max(now() - started, slept);
      const delay = e instanceof BackendError ? retryDelay(e, attempt, elapsed, policy, random) : undefined;
      if (delay === undefined) {
        if (e instanceof BackendError) e.attempts = attempt;
        throw e;
      }
      slept += delay;
      await sleep(delay);
    }
  }
}
