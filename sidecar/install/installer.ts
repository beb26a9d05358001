// Registers Engram with Claude Code (hooks in settings.json, the MCP server in ~/.claude.json or .mcp.json) and
// Codex (config.toml), merging into what is there, idempotently, with a backup; uninstall takes exactly that out
// and restores the original bytes when nothing else changed.
import fs from 'node:fs';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import { claudeDir, codexHome, engramHome, logsDir, shimPath } from '../hosting/paths.js';
import { atomicWriteFileSync } from '../hosting/atomic-write.js';
import { readRecord, shimText, writeRecord } from '../hosting/install-facts.js';
import { CODEX_HOOK_EVENTS, addHooks, addMcp, codexBlock, deepEqual, detectIndent, lineDiff, removeCodexBlock, removeHooks, removeMcp } from './registration.js';
import { homeDir } from '../hosting/facts.js';

export type Scope = 'user' | 'project';
type Json = Record<string, unknown>;

export interface Target {
  file: string;
  kind: 'json' | 'toml';
  add: (text: string | null) => string;
  remove: (text: string) => string | null;
  label: string;
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
    // Codex's own hooks (it runs them once the user has trusted them in Codex's /hooks); the MCP server serves recall
    // either way, and the host follows the rollouts, so a session whose hooks do not run is captured too.
    return [{
      file,
      kind: 'toml',
      label: 'Codex MCP server',
      add: (text) => `${removeCodexBlock(text ?? '')}${codexBlock(shim, codexEnv(env))}`,
      remove: (text) => removeCodexBlock(text),
    }, jsonTarget(path.join(codexHome(env), 'hooks.json'), 'Codex hooks', (j) => addHooks(j, shim, CODEX_HOOK_EVENTS), removeHooks)];
  }
  const settings = opts.scope === 'user' ? path.join(claudeDir(env), 'settings.json') : path.join(opts.cwd, '.claude', 'settings.json');
  const mcp = opts.scope === 'user'
    ? (env.CLAUDE_CONFIG_DIR ? path.join(env.CLAUDE_CONFIG_DIR, '.claude.json') : path.join(homeDir(env), '.claude.json'))
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
