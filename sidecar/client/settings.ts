// Reads the few config values clients need (vault, hook deadlines, injection budgets) without loading the engine.
import fs from 'node:fs';
import path from 'node:path';
import { configPath } from './paths.js';

export interface ClientSettings {
  vault_path?: string;
  /** ms a SessionStart hook waits for the host. */
  session_start_deadline_ms: number;
  /** ms a UserPromptSubmit hook waits for the host. */
  prompt_deadline_ms: number;
  session_start_max_chars: number;
  prompt_max_chars: number;
  prompt_max_items: number;
  /** Minutes of no requests after which a daemon exits. */
  idle_minutes: number;
  /** A Stop re-queues a session only when it grew by this many turns (records) ... */
  stop_min_new_turns: number;
  /** ... or this many bytes since its last extraction. */
  stop_min_new_bytes: number;
  inject: boolean;
}

export const CLIENT_DEFAULTS: ClientSettings = {
  session_start_deadline_ms: 1500,
  prompt_deadline_ms: 800,
  session_start_max_chars: 4000,
  prompt_max_chars: 1500,
  prompt_max_items: 5,
  idle_minutes: 60,
  stop_min_new_turns: 6,
  stop_min_new_bytes: 16_384,
  inject: true,
};

export function readRawConfig(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  try {
    const data: unknown = JSON.parse(fs.readFileSync(configPath(env), 'utf8'));
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function clientSettings(env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const raw = readRawConfig(env);
  const out: ClientSettings = { ...CLIENT_DEFAULTS };
  for (const key of Object.keys(CLIENT_DEFAULTS) as (keyof ClientSettings)[]) {
    const val = raw[key];
    if (typeof val === typeof CLIENT_DEFAULTS[key] && val !== undefined) (out as unknown as Record<string, unknown>)[key] = val;
  }
  if (typeof raw.vault_path === 'string') out.vault_path = raw.vault_path;
  return out;
}

export interface LocalProjectFile {
  vault?: string;
  project?: string;
  capture?: boolean;
}

/** The nearest `.claude/engram.local.json` above `cwd`, with its directory. */
export function findLocalFile(cwd: string): { dir: string; data: LocalProjectFile } | undefined {
  let dir = path.resolve(cwd);
  for (;;) {
    const file = path.join(dir, '.claude', 'engram.local.json');
    try {
      const data = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalProjectFile;
      if (data && typeof data === 'object') return { dir, data };
    } catch {
      // absent or unreadable: keep looking upward
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export interface ResolvedVault {
  vault: string;
  source: 'option' | 'env' | 'local-file' | 'config';
}

/** DESIGN "Which vault": --vault, ENGRAM_VAULT, the nearest .claude/engram.local.json, config.json's vault_path. */
export function resolveVault(opts: { vault?: string; cwd: string; env?: NodeJS.ProcessEnv }): ResolvedVault | undefined {
  const env = opts.env ?? process.env;
  if (opts.vault) return { vault: path.resolve(opts.cwd, opts.vault), source: 'option' };
  if (env.ENGRAM_VAULT) return { vault: path.resolve(opts.cwd, env.ENGRAM_VAULT), source: 'env' };
  const local = findLocalFile(opts.cwd);
  if (local?.data.vault) return { vault: path.resolve(local.dir, local.data.vault), source: 'local-file' };
  const cfg = clientSettings(env).vault_path;
  if (cfg) return { vault: path.resolve(cfg), source: 'config' };
  return undefined;
}

/** DESIGN "Which project": the local file's project, else the git top level's name, else the cwd's name. */
export function resolveProject(cwd: string): string {
  const local = findLocalFile(cwd);
  if (local?.data.project) return local.data.project;
  let dir = path.resolve(cwd);
  for (;;) {
    const git = path.join(dir, '.git');
    try {
      const st = fs.statSync(git);
      if (st.isDirectory()) return path.basename(dir);
      // A worktree: `.git` is a file pointing into the main repository's .git/worktrees/<name>.
      const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(git, 'utf8'));
      if (m) {
        const gitdir = path.resolve(dir, m[1].trim());
        const idx = gitdir.lastIndexOf(`${path.sep}.git${path.sep}`);
        return path.basename(idx >= 0 ? gitdir.slice(0, idx) : dir);
      }
      return path.basename(dir);
    } catch {
      const up = path.dirname(dir);
      if (up === dir) return path.basename(path.resolve(cwd));
      dir = up;
    }
  }
}

export function captureEnabled(cwd: string): boolean {
  return findLocalFile(cwd)?.data.capture !== false;
}
