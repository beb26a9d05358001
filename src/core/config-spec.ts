// The kinds of configuration key: each with its type, default, validation and description (config.ts lists the keys).
import { posixPath, vaultPath, win32Path } from './path.js';
import { CAPTURE_MODES, parseModeRules } from './capture/mode.js';

export type ConfigValue = string | number | boolean | null | string[];

export interface KeySpec<T extends ConfigValue = ConfigValue> {
  type: 'text' | 'path' | 'paths' | 'folder' | 'folders' | 'url' | 'integer' | 'boolean' | 'choice' | 'modes';
  default: T;
  description: string;
  /** For `choice`. */
  values?: readonly string[];
  min?: number;
  max?: number;
  /** Environment variable that overrides the file (default ENGRAM_<KEY>); null = none. */
  env?: string | null;
  /** Turns user input (CLI text or a JSON value) into a valid value, or returns an error message. */
  check(value: unknown): { ok: true; value: T } | { ok: false; error: string };
}

type Check<T extends ConfigValue> = KeySpec<T>['check'];

function spec<T extends ConfigValue>(s: Omit<KeySpec<T>, 'check'>, check: Check<T>): KeySpec<T> {
  return { ...s, check };
}

const fail = (error: string) => ({ ok: false as const, error });

export function textKey(def: string, description: string): KeySpec<string> {
  return spec({ type: 'text', default: def, description }, (v) =>
    typeof v === 'string' && v.trim() !== '' && !v.includes('\0') ? { ok: true, value: v.trim() } : fail('a non-empty text'),
  );
}

/** An absolute path (POSIX or Windows) or one starting with `~`; null means unset. */
export function pathKey(def: string | null, description: string, env?: string | null): KeySpec<string | null> {
  return spec({ type: 'path', default: def, description, env }, (v) => {
    if (v === null || v === '') return { ok: true, value: null };
    if (typeof v !== 'string' || v.includes('\0')) return fail('an absolute path');
    if (!(posixPath.isAbsolute(v) || win32Path.isAbsolute(v) || v === '~' || v.startsWith('~/') || v.startsWith('~\\'))) return fail('an absolute path');
    return { ok: true, value: v };
  });
}

const isAbsoluteOrHome = (v: string) => posixPath.isAbsolute(v) || win32Path.isAbsolute(v) || v === '~' || v.startsWith('~/') || v.startsWith('~\\');

/**
 * A list of absolute paths: a JSON array in config.json; on the command line or in the environment one text with
 * the paths separated by the platform's list separator (`:`, or `;` on Windows) or by newlines. Empty = none.
 */
export function pathsKey(description: string): KeySpec<string[]> {
  return spec({ type: 'paths', default: [], description }, (v) => {
    const sep = typeof v === 'string' && /^[a-zA-Z]:[\\/]/.test(v.trim()) ? /[;\n]/ : /[:;\n]/;
    const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(sep) : null;
    if (list === null) return fail('a list of absolute paths');
    const out: string[] = [];
    for (const p of list) {
      if (typeof p !== 'string' || p.includes('\0')) return fail('a list of absolute paths');
      const t = p.trim();
      if (t === '') continue;
      if (!isAbsoluteOrHome(t)) return fail(`a list of absolute paths ("${t}" is relative)`);
      out.push(t);
    }
    return { ok: true, value: out };
  });
}

/** A folder inside the vault, e.g. `Engram/Inbox`. */
export function folderKey(def: string, description: string): KeySpec<string> {
  return spec({ type: 'folder', default: def, description }, (v) => {
    if (typeof v !== 'string') return fail('a folder inside the vault');
    try {
      return { ok: true, value: vaultPath(v) };
    } catch {
      return fail('a folder inside the vault (relative, no `..`)');
    }
  });
}

/** Folders inside the vault: a JSON array in config.json, or one text with the folders separated by commas or newlines. */
export function foldersKey(def: string[], description: string): KeySpec<string[]> {
  return spec({ type: 'folders', default: def, description }, (v) => {
    const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,\n]/) : null;
    if (list === null) return fail('a list of folders inside the vault');
    const out: string[] = [];
    for (const f of list) {
      if (typeof f !== 'string') return fail('a list of folders inside the vault');
      if (f.trim() === '') continue;
      try {
        out.push(vaultPath(f.trim()));
      } catch {
        return fail(`a list of folders inside the vault ("${f.trim()}" is not relative, or has \`..\`)`);
      }
    }
    return { ok: true, value: out };
  });
}

export function urlKey(def: string, description: string): KeySpec<string> {
  return spec({ type: 'url', default: def, description }, (v) => {
    if (typeof v !== 'string' || !/^https?:\/\/\S+$/.test(v)) return fail('an http(s) URL');
    try {
      new URL(v);
    } catch {
      return fail('an http(s) URL');
    }
    return { ok: true, value: v.replace(/\/+$/, '') };
  });
}

/** An http(s) URL, or null (unset). */
export function optionalUrlKey(description: string): KeySpec<string | null> {
  return spec({ type: 'url', default: null, description }, (v) => {
    if (v === null || v === '') return { ok: true, value: null };
    const checked = urlKey('', description).check(v);
    return checked.ok ? { ok: true, value: checked.value } : checked;
  });
}

export function intKey(def: number, description: string, min = 0, max = Number.MAX_SAFE_INTEGER): KeySpec<number> {
  return spec({ type: 'integer', default: def, description, min, max }, (v) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) return fail(`a whole number from ${min} to ${max}`);
    return { ok: true, value: n };
  });
}

export function choiceKey<const V extends string>(values: readonly V[], def: V, description: string): KeySpec<V> {
  return spec({ type: 'choice', default: def, description, values }, (v) =>
    typeof v === 'string' && (values as readonly string[]).includes(v) ? { ok: true, value: v as V } : fail(`one of ${values.join(', ')}`),
  );
}

export function boolKey(def: boolean, description: string): KeySpec<boolean> {
  return spec({ type: 'boolean', default: def, description }, (v) => {
    if (typeof v === 'boolean') return { ok: true, value: v };
    const s = typeof v === 'string' ? v.trim().toLowerCase() : '';
    if (['true', 'yes', 'on', '1'].includes(s)) return { ok: true, value: true };
    if (['false', 'no', 'off', '0'].includes(s)) return { ok: true, value: false };
    return fail('true or false');
  });
}

/** Tags or names: a JSON array in config.json, or one text separated by commas or newlines (a leading `#` is dropped). */
export function textListKey(description: string): KeySpec<string[]> {
  return spec({ type: 'text', default: [], description }, (v) => {
    const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,\n]/) : null;
    if (list === null || list.some((x) => typeof x !== 'string' || x.includes('\0'))) return fail('a list of names separated by commas');
    return { ok: true, value: (list as string[]).map((x) => x.trim().replace(/^#/, '')).filter(Boolean) };
  });
}

/** Write control rules: `name=mode` entries (a JSON array in config.json, or one text separated by commas or newlines). */
export function modeRulesKey(description: string): KeySpec<string[]> {
  return spec({ type: 'modes', default: [], description, values: CAPTURE_MODES }, (v) => {
    const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,\n]/) : null;
    if (list === null || list.some((x) => typeof x !== 'string')) return fail(`a list of name=${CAPTURE_MODES.join('|')} entries`);
    const entries = (list as string[]).map((x) => x.trim()).filter(Boolean);
    const parsed = parseModeRules(entries);
    return parsed.ok ? { ok: true, value: entries } : fail(`a list of name=${CAPTURE_MODES.join('|')} entries (${parsed.error})`);
  });
}

/** A postgres:// URL without a password (the password comes from ENGRAM_TEAM_PASSWORD, never from this file), or null. */
export function teamUrlKey(description: string): KeySpec<string | null> {
  return spec({ type: 'url', default: null, description }, (v) => {
    if (v === null || v === '') return { ok: true, value: null };
    if (typeof v !== 'string' || !/^postgres(?:ql)?:\/\/\S+$/.test(v)) return fail('a postgres:// URL');
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return fail('a postgres:// URL');
    }
    if (u.password) return fail('a postgres:// URL without a password (set ENGRAM_TEAM_PASSWORD instead: a password is never written to the configuration)');
    if (!u.username) return fail('a postgres:// URL that names your database user (postgres://you@host/db): what you promote is in that name');
    return { ok: true, value: v };
  });
}

/** Text, or null (unset). */
export function optionalTextKey(description: string): KeySpec<string | null> {
  return spec({ type: 'text', default: null, description }, (v) => {
    if (v === null || v === '') return { ok: true, value: null };
    return typeof v === 'string' && v.trim() !== '' && !v.includes('\0') ? { ok: true, value: v.trim() } : fail('a non-empty text');
  });
}
