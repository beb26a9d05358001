// Every file Engram stores carries a format version: a newer one is refused with a clear message, an older one migrated.
import { EngramError } from './errors.js';

export interface FormatSpec<T> {
  /** What the file is, for messages: "config.json", "ledger", "job journal". */
  name: string;
  current: number;
  /** migrations[n] turns a version-n object into a version-(n+1) object. */
  migrations?: Record<number, (old: Record<string, unknown>) => Record<string, unknown>>;
  /** Checks the current-version shape and returns it typed; throws EngramError('invalid-config' | 'format-version', …). */
  validate?: (data: Record<string, unknown>) => T;
}

/** Reads the `version` of a parsed file, refuses newer ones, and migrates older ones step by step. */
export function upgradeFormat<T = Record<string, unknown>>(spec: FormatSpec<T>, raw: unknown, where?: string): { data: T; migratedFrom?: number } {
  const label = where ? `${spec.name} (${where})` : spec.name;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new EngramError('format-version', `${label} is not a JSON object`);
  }
  let data = raw as Record<string, unknown>;
  const v = data.version;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new EngramError('format-version', `${label} has no valid format version (found ${JSON.stringify(v)})`);
  }
  if (v > spec.current) {
    throw new EngramError(
      'format-version',
      `${label} has format version ${v}, newer than this engram understands (${spec.current})`,
      'update engram (npm run build in its checkout), or move the file aside',
    );
  }
  let at = v;
  while (at < spec.current) {
    const step = spec.migrations?.[at];
    if (!step) throw new EngramError('format-version', `${label} has format version ${at}, which this engram cannot migrate`);
    data = { ...step(data), version: at + 1 };
    at++;
  }
  const typed = spec.validate ? spec.validate(data) : (data as T);
  return at === v ? { data: typed } : { data: typed, migratedFrom: v };
}
