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
  /** Most milliseconds one call may spend waiting between attempts, in all (default 60 s). */
  maxWaitMs?: number;
  /** Injected so tests do not sleep. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 1000, maxDelayMs: 30_000, maxWaitMs: 60_000 };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait before the next attempt, or undefined when the call should give up now. */
export function retryDelay(e: BackendError, attempt: number, waited: number, policy: RetryPolicy, random: () => number = Math.random): number | undefined {
  // A server that did not answer within the deadline will most likely not answer the next one either.
  if (!e.transient || e.failure === 'timeout' || attempt >= policy.attempts) return undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * (0.5 + random() / 2);
  const asked = e.retryAfterSec !== undefined ? e.retryAfterSec * 1000 : 0;
  // A server asking for more than the longest backoff is told "later": the window is retried by a later run.
  if (asked > policy.maxDelayMs) return undefined;
  const delay = Math.max(asked, backoff);
  if (waited + delay > (policy.maxWaitMs ?? DEFAULT_RETRY.maxWaitMs ?? Infinity)) return undefined;
  return delay;
}

export async function withRetry<T>(call: (attempt: number) => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY): Promise<{ value: T; attempts: number }> {
  const sleep = policy.sleep ?? realSleep;
  const random = policy.random ?? Math.random;
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return { value: await call(attempt), attempts: attempt };
    } catch (e) {
      const delay = e instanceof BackendError ? retryDelay(e, attempt, waited, policy, random) : undefined;
      if (delay === undefined) {
        if (e instanceof BackendError) e.attempts = attempt;
        throw e;
      }
      waited += delay;
      await sleep(delay);
    }
  }
}
