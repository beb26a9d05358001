// Which vault and which project (docs/files.md): pure decisions over what the host found on disk.
import { EngramError } from './errors.js';
import { upgradeFormat } from './format-version.js';
import { pathOpsFor } from './path.js';

/** `.claude/engram.local.json` in a project: which vault, which project name, and whether to capture there. */
export interface LocalSettings {
  /** The file itself (for messages). */
  file: string;
  /** The project folder (the parent of `.claude/`); relative paths in the file are relative to it. */
  projectDir: string;
  vault?: string;
  project?: string;
  /** `false` turns capture off in this project. */
  capture: boolean;
}

export const LOCAL_SETTINGS_FORMAT_VERSION = 1;

/** Parses engram.local.json. Users write it by hand, so `version` may be missing (taken as 1); a newer one is refused. */
export function parseLocalSettings(text: string, file: string, projectDir: string): LocalSettings {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new EngramError('invalid-config', `${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new EngramError('invalid-config', `${file} must hold a JSON object`);
  const withVersion = { version: LOCAL_SETTINGS_FORMAT_VERSION, ...(raw as Record<string, unknown>) };
  const data = upgradeFormat({ name: 'engram.local.json', current: LOCAL_SETTINGS_FORMAT_VERSION }, withVersion, file).data;
  const bad = (key: string, want: string) => new EngramError('invalid-config', `${file}: "${key}" must be ${want}`);
  const out: LocalSettings = { file, projectDir, capture: true };
  if (data.vault !== undefined) {
    if (typeof data.vault !== 'string' || data.vault.trim() === '') throw bad('vault', 'a path');
    out.vault = data.vault;
  }
  if (data.project !== undefined) {
    if (typeof data.project !== 'string' || data.project.trim() === '') throw bad('project', 'a name');
    out.project = data.project.trim();
  }
  if (data.capture !== undefined) {
    if (typeof data.capture !== 'boolean') throw bad('capture', 'true or false');
    out.capture = data.capture;
  }
  return out;
}

export type VaultSource = 'option' | 'environment' | 'local settings' | 'config';

export interface ResolvedVault {
  /** Absolute path (not yet real-path'd: the host does that before computing the vault key). */
  path: string;
  source: VaultSource;
  /** Human-readable origin: `--vault`, `ENGRAM_VAULT`, the local settings file, or config.json. */
  origin: string;
}

export interface VaultInputs {
  option?: string;
  env: Record<string, string | undefined>;
  local?: LocalSettings | null;
  configVaultPath?: string | null;
  cwd: string;
  homeDir: string;
  platform: string;
}

function absolutize(p: string, base: string, homeDir: string, platform: string): string {
  const ops = pathOpsFor(platform);
  let s = p.trim();
  if (s === '~') s = homeDir;
  else if (s.startsWith('~/') || (platform === 'win32' && s.startsWith('~\\'))) s = ops.join(homeDir, s.slice(2));
  return ops.isAbsolute(s) ? ops.normalize(s) : ops.join(base, s);
}

/** --vault, else ENGRAM_VAULT, else `vault` in the nearest engram.local.json, else config's vault_path; null if none. */
export function resolveVault(i: VaultInputs): ResolvedVault | null {
  const abs = (p: string, base: string) => absolutize(p, base, i.homeDir, i.platform);
  if (i.option?.trim()) return { path: abs(i.option, i.cwd), source: 'option', origin: '--vault' };
  const env = i.env.ENGRAM_VAULT?.trim();
  if (env) return { path: abs(env, i.cwd), source: 'environment', origin: 'ENGRAM_VAULT' };
  if (i.local?.vault) return { path: abs(i.local.vault, i.local.projectDir), source: 'local settings', origin: i.local.file };
  if (i.configVaultPath?.trim()) return { path: abs(i.configVaultPath, i.homeDir), source: 'config', origin: 'config.json vault_path' };
  return null;
}

export function noVaultError(): EngramError {
  return new EngramError(
    'not-found',
    'no vault configured',
    'run `engram setup` (or set one with `engram configure vault_path <path>`, pass --vault <path>, or set ENGRAM_VAULT)',
  );
}

export interface ResolvedProject {
  name: string;
  source: 'local settings' | 'git' | 'folder';
  /** False when the project's engram.local.json says `capture: false`. */
  capture: boolean;
}

/** `project` in engram.local.json, else the git top level's base name (worktrees share it), else the cwd's base name. */
export function resolveProject(i: { local?: LocalSettings | null; gitTopLevel?: string | null; cwd: string; platform: string }): ResolvedProject {
  const ops = pathOpsFor(i.platform);
  const capture = i.local?.capture ?? true;
  if (i.local?.project) return { name: i.local.project, source: 'local settings', capture };
  if (i.gitTopLevel) {
    const name = ops.basename(i.gitTopLevel);
    if (name) return { name, source: 'git', capture };
  }
  return { name: ops.basename(i.cwd) || 'default', source: 'folder', capture };
}

/** The `gitdir:` of a `.git` file (worktrees, submodules), or null. */
export function parseGitFile(text: string): string | null {
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return m ? m[1] : null;
}

/**
 * The folder that names a linked worktree's repository, from its git dir and that dir's `commondir` file:
 * `<main>/.git` → `<main>`; a bare `<name>.git` → `<name>` (so every worktree of one repository shares a project).
 */
export function repositoryFolderOf(gitdir: string, commondir: string, platform: string): string {
  const ops = pathOpsFor(platform);
  const c = commondir.trim();
  const common = (ops.isAbsolute(c) ? ops.normalize(c) : ops.join(gitdir, c)).replace(/[\\/]+$/, '');
  const base = ops.basename(common);
  if (base === '.git') return ops.dirname(common);
  if (base.endsWith('.git')) return ops.join(ops.dirname(common), base.slice(0, -4));
  return common;
}

export interface RecordedProject {
  name: string;
  /** Absent when the records say it plainly (a worktree layout); otherwise why the name is a guess, for the note. */
  guess?: string;
}

const WORKTREE_DIR = /^(?:\.worktrees?|worktrees?)$/i;
const WORKTREE_SUFFIX = /^(.+?)[-_.](?:worktrees?|wt)$/i;

/** The repository a worktree path names: `<repo>/.worktrees/<n>`, `<repo>/.claude/worktrees/<n>`, `<repo>/.git/worktrees/<n>`, `<repo>-worktrees/<n>`; null otherwise. */
function worktreeRepository(parts: string[]): string | null {
  for (let k = parts.length - 2; k >= 1; k--) {
    const seg = parts[k];
    if (WORKTREE_DIR.test(seg)) {
      let j = k - 1;
      if (j >= 1 && /^\.(?:claude|git)$/i.test(parts[j])) j--;
      if (parts[j]) return parts[j].replace(/\.git$/i, '') || null;
    }
    const m = WORKTREE_SUFFIX.exec(seg);
    if (m) return m[1];
  }
  return null;
}

/**
 * How many folders up a branch-named checkout sits below the folder that holds the repositories: `…/soph-multi-session`
 * for branch `soph/multi-session` (1), `…/gtrrz-victor/improve-status` for `gtrrz-victor/improve-status` or for a
 * later branch `gtrrz-victor/other` (2); 0 when the folder does not look named after a branch.
 */
function branchDepth(parts: string[], branch: string | undefined): number {
  if (!branch) return 0;
  const b = branch.toLowerCase().split(/[/\\]+/).filter(Boolean);
  const p = parts.map((x) => x.toLowerCase());
  const base = p[p.length - 1] ?? '';
  if (b.length > 1 && p.slice(-b.length).join('/') === b.join('/')) return b.length;
  if (base === b.join('-') || base === b[b.length - 1] || base === b.join('/')) return 1;
  if (b.length > 1 && p[p.length - 2] === b[0]) return 2;
  return 0;
}

/**
 * The project of a session whose folder no longer exists (setup's backlog: sessions of deleted worktrees), from what
 * its transcript records: the worktree layout of its cwd, the other folders it ran in, and the projects already seen
 * near it (`known`: the folders of other sessions, e.g. `/src/acme/cli`) before the folder's own name.
 */
export function projectFromRecords(i: { cwd: string; otherCwds?: string[]; gitBranch?: string; known?: string[]; platform: string }): RecordedProject {
  const ops = pathOpsFor(i.platform);
  const split = (p: string) => p.split(/[\\/]+/).filter(Boolean);
  const parts = split(i.cwd);
  const base = parts[parts.length - 1] ?? '';
  const layout = worktreeRepository(parts);
  if (layout) return { name: layout };
  const depth = branchDepth(parts, i.gitBranch);
  // Another folder of the same session that is not itself a worktree: where the repository lives.
  for (const other of i.otherCwds ?? []) {
    const op = split(other);
    const name = worktreeRepository(op) ?? op[op.length - 1];
    if (name && name !== base && (depth > 0 || worktreeRepository(op))) return { name, guess: `the session's folder ${i.cwd} no longer exists; it also ran in ${other}` };
  }
  const gone = `the session's folder ${i.cwd} no longer exists`;
  // The projects seen near it, and how many sessions each had (the repository people work in most).
  const trim = (k: string) => k.replace(/[\\/]+$/, '');
  const known = (i.known ?? []).map(trim).filter((k) => k !== trim(i.cwd));
  const count = new Map<string, number>();
  for (const k of known) count.set(ops.basename(k), (count.get(ops.basename(k)) ?? 0) + 1);
  const childrenOf = (dir: string) => [...new Set(known.filter((k) => ops.dirname(k) === dir).map((k) => ops.basename(k)))].filter((n) => n && n !== base);
  const parent = ops.dirname(trim(i.cwd));
  // `cli-completion-updater` or `20260205-cli` beside `cli`: a checkout named after its repository.
  const named = childrenOf(parent)
    .filter((n) => { const b = base.toLowerCase(); const x = n.toLowerCase(); return b.startsWith(`${x}-`) || b.endsWith(`-${x}`); })
    .sort((a, b) => b.length - a.length);
  if (named.length) return { name: named[0], guess: `${gone}; named after ${ops.join(parent, named[0])} beside it` };
  if (depth > 0) {
    // A branch-named checkout: the project most seen in the folder that holds it.
    let dir = trim(i.cwd);
    for (let k = 0; k < depth; k++) dir = ops.dirname(dir);
    const near = childrenOf(dir).sort((a, b) => (count.get(b) ?? 0) - (count.get(a) ?? 0));
    // Two projects seen as often beside it: no way to tell which.
    if (near.length > 1 && (count.get(near[0]) ?? 0) === (count.get(near[1]) ?? 0)) return { name: base || 'default', guess: `${gone}; named after the folder` };
    if (near.length) return { name: near[0], guess: `${gone} (named after branch ${i.gitBranch}); ${ops.join(dir, near[0])} is the project most seen beside it` };
  }
  return { name: base || 'default', guess: `${gone}; named after the folder` };
}
