// Every file Engram stores carries a format version: a newer one is refused with a clear message, an older one migrated.
import { EngramError } from './errors.js';

export interface FormatSpec<T> {
  /** What the file is, for messages: "config.json", "ledger", "job journal". */
  name: string;
  current: number;
  /** The key that holds the version: `version` (the default), or `format` (proposals, spool entries, host files). */
  field?: 'version' | 'format';
  /** migrations[n] turns a version-n object into a version-(n+1) object. */
  migrations?: Record<number, (old: Record<string, unknown>) => Record<string, unknown>>;
  /** Checks the current-version shape and returns it typed; throws EngramError('invalid-config' | 'format-version', …). */
  validate?: (data: Record<string, unknown>) => T;
}

function labelOf(spec: FormatSpec<unknown>, where?: string): string {
  return where ? `${spec.name} (${where})` : spec.name;
}

/**
 * The text of a versioned file, read as `upgradeFormat` reads it; undefined when there is no file yet (missing or
 * empty text). Damage is reported with the name first ("<name> is not valid JSON", "<name> has no version number"):
 * the spool's failure classifier (sidecar/hosting/spool.ts) knows a damaged state file by those words.
 */
export function readFormat<T = Record<string, unknown>>(spec: FormatSpec<T>, text: string | undefined, where?: string): { data: T; migratedFrom?: number } | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new EngramError('format-version', `${labelOf(spec, where)} is not valid JSON`, 'move it aside and run again');
  }
  return upgradeFormat(spec, raw, where);
}

/** Reads the version of a parsed file, refuses newer ones, and migrates older ones step by step. */
export function upgradeFormat<T = Record<string, unknown>>(spec: FormatSpec<T>, raw: unknown, where?: string): { data: T; migratedFrom?: number } {
  const label = labelOf(spec, where);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new EngramError('format-version', `${label} is not a JSON object`);
  }
  let data = raw as Record<string, unknown>;
  const field = spec.field ?? 'version';
  const v = data[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new EngramError('format-version', `${label} has no version number (found ${JSON.stringify(v)})`);
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
    data = { ...step(data), [field]: at + 1 };
    at++;
  }
  const typed = spec.validate ? spec.validate(data) : (data as T);
  return at === v ? { data: typed } : { data: typed, migratedFrom: v };
}
