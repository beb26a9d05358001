// Registers Engram with Claude Code (hooks in settings.json, the MCP server in ~/.claude.json or .mcp.json) and
// Codex (config.toml), merging into what is there, idempotently, with a backup; uninstall takes exactly that out
// and restores the original bytes when nothing else changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import { claudeDir, codexHome, engramHome, logsDir, shimPath } from '../hosting/paths.js';
import { atomicWriteFileSync } from '../hosting/atomic-write.js';
import { addHooks, addMcp, codexBlock, deepEqual, detectIndent, lineDiff, removeCodexBlock, removeHooks, removeMcp } from './registration.js';

export type Scope = 'user' | 'project';
type Json = Record<string, unknown>;

export interface Target {
  file: string;
  kind: 'json' | 'toml';
  add: (text: string | null) => string;
  remove: (text: string) => string | null;
  label: string;
}

/** What `engram setup` put into one vault's `.obsidian` (obsidian-plugin.ts), so uninstall takes out exactly that. */
export interface ObsidianPluginRecord {
  /** `<vault>/.obsidian/plugins/engram` */
  dir: string;
  /** Each copied file's SHA-256 as written: a file changed since (a store update) is no longer ours to remove. */
  files: Record<string, string>;
  /** community-plugins.json did not exist before: uninstall removes it again when it is left empty. */
  createdList: boolean;
  /** Folders setup created (deepest last); uninstall removes each that is empty again. */
  createdDirs: string[];
}

interface InstallRecord {
  format: number;
  files: Record<string, { existed: boolean; original: string | null; backup?: string }>;
  /** By vault path. */
  obsidianPlugins?: Record<string, ObsidianPluginRecord>;
}

function recordFile(env: NodeJS.ProcessEnv): string {
  return path.join(engramHome(env), 'install.json');
}

export function readRecord(env: NodeJS.ProcessEnv): InstallRecord {
  try {
    return JSON.parse(fs.readFileSync(recordFile(env), 'utf8')) as InstallRecord;
  } catch {
    return { format: 1, files: {} };
  }
}

export function writeRecord(env: NodeJS.ProcessEnv, rec: InstallRecord): void {
  fs.mkdirSync(engramHome(env), { recursive: true, mode: 0o700 });
  atomicWriteFileSync(recordFile(env), `${JSON.stringify(rec, null, 2)}\n`, { mode: 0o600 });
}

function parseJsonFile(file: string, text: string | null): Json {
  if (text === null || text.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    return v as Json;
  } catch (e) {
    throw new EngramError('invalid-config', `${file} is not valid JSON (${(e as Error).message}); not touching it`, 'fix the file by hand, then run `engram install` again');
  }
}

function jsonTarget(file: string, label: string, add: (j: Json) => Json, remove: (j: Json) => Json): Target {
  return {
    file,
    kind: 'json',
    label,
    add: (text) => {
      const next = add(parseJsonFile(file, text));
      return `${JSON.stringify(next, null, text ? detectIndent(text) : 2)}\n`;
    },
    remove: (text) => {
      const next = remove(parseJsonFile(file, text));
      return Object.keys(next).length ? `${JSON.stringify(next, null, detectIndent(text))}\n` : null;
    },
  };
}


/** What project-scope registrations run: the `engram` on each machine's PATH (`engram setup` links it). */
export const PORTABLE_COMMAND = 'engram';

/**
 * The variables `engram mcp` needs under Codex, which starts MCP servers with only HOME, PATH, TERM, LANG, SHELL (and
 * PWD and CA variables): where the state is (ENGRAM_HOME) and what places the host's socket (XDG_RUNTIME_DIR, else
 * TMPDIR), as this install sees them, so the server finds the same host a Claude Code hook started.
 */
export function codexEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = { ENGRAM_HOME: engramHome(env) };
  if (env.XDG_RUNTIME_DIR?.startsWith('/')) out.XDG_RUNTIME_DIR = env.XDG_RUNTIME_DIR;
  else if (env.TMPDIR) out.TMPDIR = env.TMPDIR;
  if (env.ENGRAM_VAULT) out.ENGRAM_VAULT = path.resolve(env.ENGRAM_VAULT);
  return out;
}

export function targets(opts: { scope: Scope; agent: 'claude' | 'codex'; cwd: string; env: NodeJS.ProcessEnv; shim: string }): Target[] {
  const { env, shim } = opts;
  if (opts.agent === 'codex') {
    const file = path.join(codexHome(env), 'config.toml');
    return [{
      file,
      kind: 'toml',
      label: 'Codex MCP server',
      add: (text) => `${removeCodexBlock(text ?? '')}${codexBlock(shim, codexEnv(env))}`,
      remove: (text) => removeCodexBlock(text),
    }];
  }
  const settings = opts.scope === 'user' ? path.join(claudeDir(env), 'settings.json') : path.join(opts.cwd, '.claude', 'settings.json');
  const mcp = opts.scope === 'user'
    ? (env.CLAUDE_CONFIG_DIR ? path.join(env.CLAUDE_CONFIG_DIR, '.claude.json') : path.join(env.HOME ?? os.homedir(), '.claude.json'))
    : path.join(opts.cwd, '.mcp.json');
  // Project files are committed and shared: they run `engram` from PATH (each teammate's own install), never this
  // machine's absolute paths.
  const command = opts.scope === 'project' ? PORTABLE_COMMAND : shim;
  return [
    jsonTarget(settings, 'Claude Code hooks', (j) => addHooks(j, command), removeHooks),
    jsonTarget(mcp, 'Claude Code MCP server', (j) => addMcp(j, command), removeMcp),
  ];
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** One shell word, single-quoted (for the shim, and for commands printed for the user to paste). */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** npm's npx cache (`~/.npm/_npx/<hash>/…`): npm cleans it, so nothing may point into it for good. */
export function inNpxCache(file: string): boolean {
  return /[\\/]_npx[\\/]/.test(file);
}

/**
 * The install the shim runs: the real path of the running CLI (`npx engram` inside a checkout runs it through a
 * link in npm's npx cache; the link's target, the checkout, is what stays). A CLI that itself lives in the npx cache
 * is refused: the cache is cleaned, and every hook would break with it.
 */
export function stableEntry(entry: string): string {
  let real = path.resolve(entry);
  try {
    real = fs.realpathSync(real);
  } catch {
    // not there: the caller reports it below
  }
  if (inNpxCache(real)) {
    throw new EngramError('refused', `engram is running from npm's npx cache (${real}), which npm cleans at any time; hooks pointed there would all break`, 'install it where it stays: clone the repository, `npm ci && npm run build`, then run `npx engram setup` (or `node dist/engram.mjs setup`) inside that checkout');
  }
  if (!fs.existsSync(real)) throw new EngramError('not-found', `the engram CLI is not at ${real}`, 'run `npm run build` in the checkout first');
  return real;
}

/** The text of the shim: runs the CLI with the Node that installed it; a hook never fails, even when both are gone. */
export function shimText(node: string, entry: string, logs: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    return [
      '@echo off',
      'rem Written by `engram install`: runs the engram CLI with the Node that installed it.',
      `if not exist "${entry}" (`,
      '  if "%~1"=="hook" exit /b 0',
      `  echo engram: ${entry} is missing; run engram install again from where Engram now lives 1>&2`,
      '  exit /b 1',
      ')',
      `if "%~1"=="hook" ( "${node}" "${entry}" %* 2>>"${path.win32.join(logs, 'hook.log')}" & exit /b 0 )`,
      `"${node}" "${entry}" %*`,
      '',
    ].join('\r\n');
  }
  return [
    '#!/bin/sh',
    '# Written by `engram install`: runs the engram CLI with the Node that installed it. A hook always exits 0:',
    '# when the install is gone it logs why; while it runs, its errors go to the log, never to Claude Code.',
    `node=${shq(node)}`,
    `entry=${shq(entry)}`,
    `logs=${shq(logs)}`,
    'log="$logs/hook.log"',
    'if [ "$1" = hook ] && [ ! -d "$logs" ]; then mkdir -p "$logs" 2>/dev/null; fi',
    'if [ ! -x "$node" ] || [ ! -f "$entry" ]; then',
    '  if [ "$1" = hook ]; then',
    '    printf \'%s hook %s: skipped, %s or %s is missing (moved or rebuilt?); run `engram install` again from where Engram lives\\n\' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$2" "$entry" "$node" >>"$log" 2>/dev/null',
    '    exit 0',
    '  fi',
    '  echo "engram: $entry (or $node) is missing: the install moved or was removed; run \\`node <checkout>/dist/engram.mjs install\\` from where Engram now lives" >&2',
    '  exit 1',
    'fi',
    'if [ "$1" = hook ]; then',
    '  # Errors to the log; when the log cannot be opened (a read-only $ENGRAM_HOME), the hook still runs and says so.',
    '  if { : >>"$log"; } 2>/dev/null; then "$node" "$entry" "$@" 2>>"$log"; else "$node" "$entry" "$@"; fi',
    '  exit 0',
    'fi',
    'exec "$node" "$entry" "$@"',
    '',
  ].join('\n');
}

/** The CLI file a shim runs (undefined when the text is not a shim Engram wrote). */
export function shimTarget(text: string): string | undefined {
  const posix = /^entry='((?:[^']|'\\'')*)'$/m.exec(text);
  if (posix) return posix[1].replace(/'\\''/g, "'");
  return /if not exist "([^"]+)"/.exec(text)?.[1] ?? /exec "[^"]+" "([^"]+)"/.exec(text)?.[1];
}

/** The stable shim hook and MCP registrations point at: moving the checkout means re-running install, nothing else. */
export function writeShim(env: NodeJS.ProcessEnv, entry: string): string {
  const shim = shimPath(env);
  const target = stableEntry(entry);
  fs.mkdirSync(path.dirname(shim), { recursive: true, mode: 0o700 });
  const text = shimText(process.execPath, target, logsDir(env));
  if (readText(shim) !== text) {
    atomicWriteFileSync(shim, text, { mode: 0o755 });
  }
  return shim;
}

export interface ChangeReport {
  file: string;
  label: string;
  status: 'added' | 'unchanged' | 'removed' | 'restored' | 'absent' | 'would change';
  diff?: string;
  backup?: string;
}

export function install(ts: Target[], env: NodeJS.ProcessEnv, dryRun: boolean): ChangeReport[] {
  const rec = readRecord(env);
  const out: ChangeReport[] = [];
  for (const t of ts) {
    const before = readText(t.file);
    const after = t.add(before);
    if (after === before) {
      out.push({ file: t.file, label: t.label, status: 'unchanged' });
      continue;
    }
    if (dryRun) {
      out.push({ file: t.file, label: t.label, status: 'would change', diff: lineDiff(before ?? '', after) });
      continue;
    }
    let backup: string | undefined;
    if (!rec.files[t.file]) {
      if (before !== null) {
        backup = `${t.file}.engram-backup`;
        // With the original's permissions: ~/.claude.json may be private.
        atomicWriteFileSync(backup, before, { mode: fs.statSync(t.file).mode & 0o7777 });
      }
      rec.files[t.file] = { existed: before !== null, original: before, backup };
    }
    atomicWriteFileSync(t.file, after);
    out.push({ file: t.file, label: t.label, status: 'added', backup: rec.files[t.file].backup });
  }
  if (!dryRun) writeRecord(env, rec);
  return out;
}

/** The files that still hold registrations `engram install` wrote (and `uninstall` has not taken out). */
export function remainingRegistrations(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(readRecord(env).files).filter((f) => fs.existsSync(f));
}

export function uninstall(ts: Target[], env: NodeJS.ProcessEnv, dryRun: boolean): ChangeReport[] {
  const rec = readRecord(env);
  const out: ChangeReport[] = [];
  for (const t of ts) {
    const current = readText(t.file);
    if (current === null) {
      out.push({ file: t.file, label: t.label, status: 'absent' });
      continue;
    }
    const stripped = t.remove(current);
    const orig = rec.files[t.file];
    let next: string | null = stripped;
    let status: ChangeReport['status'] = 'removed';
    // Nothing else changed since install: put the original bytes back exactly (or remove a file we created).
    if (orig) {
      const same = t.kind === 'json'
        ? deepEqual(stripped === null ? {} : JSON.parse(stripped), orig.original ? JSON.parse(orig.original) : {})
        : (stripped ?? '') === (orig.original ?? '');
      if (same) {
        next = orig.original;
        status = 'restored';
      }
    }
    if (next === current) {
      // Nothing of ours left in it (taken out by hand): it no longer counts as a registration.
      if (!dryRun && orig) {
        if (orig.backup) fs.rmSync(orig.backup, { force: true });
        delete rec.files[t.file];
      }
      out.push({ file: t.file, label: t.label, status: 'unchanged' });
      continue;
    }
    if (dryRun) {
      out.push({ file: t.file, label: t.label, status: 'would change', diff: lineDiff(current, next ?? '') });
      continue;
    }
    if (next === null) fs.rmSync(t.file, { force: true });
    else atomicWriteFileSync(t.file, next);
    if (orig?.backup) fs.rmSync(orig.backup, { force: true });
    delete rec.files[t.file];
    out.push({ file: t.file, label: t.label, status });
  }
  if (!dryRun) writeRecord(env, rec);
  return out;
}
