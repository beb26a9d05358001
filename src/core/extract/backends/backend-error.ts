// The typed error every backend throws: transient failures (429, 5xx, network, timeout) are retried, the rest are not.
import { EngramError } from '../../errors.js';
import type { BackendName } from './types.js';

export type BackendFailure = 'rate-limit' | 'server' | 'network' | 'timeout' | 'auth' | 'request' | 'reply' | 'not-installed';

export class BackendError extends EngramError {
  /** Requests the call made before it gave up (set by the retry loop). */
  attempts?: number;

  constructor(
    readonly backend: BackendName,
    readonly failure: BackendFailure,
    message: string,
    hint?: string,
    /** Seconds the server asked us to wait (Retry-After). */
    readonly retryAfterSec?: number,
    readonly status?: number,
  ) {
    super(failure === 'timeout' ? 'timeout' : 'backend', `${backend} backend: ${message}`, hint);
    this.name = 'BackendError';
  }

  get transient(): boolean {
    return this.failure === 'rate-limit' || this.failure === 'server' || this.failure === 'network' || this.failure === 'timeout';
  }
}

/** Maps an HTTP status to a failure kind. */
export function failureForStatus(status: number): BackendFailure {
  if (status === 429 || status === 529) return 'rate-limit';
  if (status >= 500) return 'server';
  if (status === 401 || status === 403) return 'auth';
  return 'request';
}
