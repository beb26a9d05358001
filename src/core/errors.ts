// Typed errors with messages a user can act on.

export type ErrorCode =
  | 'usage'
  | 'not-found'
  | 'conflict'
  | 'invalid-yaml'
  | 'invalid-config'
  | 'format-version'
  | 'io'
  | 'backend'
  | 'budget'
  | 'timeout'
  | 'protocol'
  | 'refused';

export class EngramError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** What the user can do about it, e.g. "set it with `engram configure vault_path …`". */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'EngramError';
  }
}

export function isEngramError(e: unknown, code?: ErrorCode): e is EngramError {
  return e instanceof EngramError && (code === undefined || e.code === code);
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
