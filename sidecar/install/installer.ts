// Registers Engram with Claude Code (hooks in settings.json, the MCP server in ~/.claude.json or .mcp.json) and
// Codex (config.toml), merging into what is there, idempotently, with a backup; uninstall takes exactly that out
// and restores the original bytes when nothing else changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import { engramHome, shimPath } from '../client/paths.js';
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

interface InstallRecord {
  format: number;
  files: Record<string, { existed: boolean; original: string | null; backup?: string }>;
}

function recordFile(env: NodeJS.ProcessEnv): string {
  return path.join(engramHome(env), 'install.json');
}

function readRecord(env: NodeJS.ProcessEnv): InstallRecord {
  try {
    return JSON.parse(fs.readFileSync(recordFile(env), 'utf8')) as InstallRecord;
  } catch {
    return { format: 1, files: {} };
  }
}

function writeRecord(env: NodeJS.ProcessEnv, rec: InstallRecord): void {
  fs.mkdirSync(engramHome(env), { recursive: true, mode: 0o700 });
  fs.writeFileSync(recordFile(env), `${JSON.stringify(rec, null, 2)}\n`, { mode: 0o600 });
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

export function claudeDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR ?? path.join(env.HOME ?? os.homedir(), '.claude');
}

export function targets(opts: { scope: Scope; agent: 'claude' | 'codex'; cwd: string; env: NodeJS.ProcessEnv; shim: string }): Target[] {
  const { env, shim } = opts;
  if (opts.agent === 'codex') {
    const file = path.join(env.CODEX_HOME ?? path.join(env.HOME ?? os.homedir(), '.codex'), 'config.toml');
    return [{
      file,
      kind: 'toml',
      label: 'Codex MCP server',
      add: (text) => `${removeCodexBlock(text ?? '')}${codexBlock(shim)}`,
      remove: (text) => removeCodexBlock(text),
    }];
  }
  const settings = opts.scope === 'user' ? path.join(claudeDir(env), 'settings.json') : path.join(opts.cwd, '.claude', 'settings.json');
  const mcp = opts.scope === 'user'
    ? (env.CLAUDE_CONFIG_DIR ? path.join(env.CLAUDE_CONFIG_DIR, '.claude.json') : path.join(env.HOME ?? os.homedir(), '.claude.json'))
    : path.join(opts.cwd, '.mcp.json');
  return [
    jsonTarget(settings, 'Claude Code hooks', (j) => addHooks(j, shim), removeHooks),
    jsonTarget(mcp, 'Claude Code MCP server', (j) => addMcp(j, shim), removeMcp),
  ];
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function writeAtomic(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.engram-${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** The stable shim hook and MCP registrations point at: moving the checkout means re-running install, nothing else. */
export function writeShim(env: NodeJS.ProcessEnv, entry: string): string {
  const shim = shimPath(env);
  fs.mkdirSync(path.dirname(shim), { recursive: true, mode: 0o700 });
  const text = process.platform === 'win32'
    ? `@"${process.execPath}" "${entry}" %*\r\n`
    : `#!/bin/sh\n# Written by \`engram install\`: runs the engram CLI with the Node that installed it.\nexec "${process.execPath}" "${entry}" "$@"\n`;
  if (readText(shim) !== text) {
    writeAtomic(shim, text);
    if (process.platform !== 'win32') fs.chmodSync(shim, 0o755);
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
        fs.writeFileSync(backup, before);
      }
      rec.files[t.file] = { existed: before !== null, original: before, backup };
    }
    writeAtomic(t.file, after);
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
      out.push({ file: t.file, label: t.label, status: 'unchanged' });
      continue;
    }
    if (dryRun) {
      out.push({ file: t.file, label: t.label, status: 'would change', diff: lineDiff(current, next ?? '') });
      continue;
    }
    if (next === null) fs.rmSync(t.file, { force: true });
    else writeAtomic(t.file, next);
    if (orig?.backup) fs.rmSync(orig.backup, { force: true });
    delete rec.files[t.file];
    out.push({ file: t.file, label: t.label, status });
  }
  if (!dryRun) writeRecord(env, rec);
  return out;
}
