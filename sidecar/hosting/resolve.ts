// Finds, on disk, what core's resolution rules need: the nearest .claude/engram.local.json, the git top level,
// the vault's real path and key, and the state folders for it.
import fs from 'node:fs';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import { noVaultError, parseGitFile, parseLocalSettings, projectFromRecords, repositoryFolderOf, resolveProject, resolveVault, type LocalSettings, type ResolvedProject, type ResolvedVault } from '../../src/core/resolve.js';
import { homeRelative } from '../../src/core/transcript/redact.js';
import type { SessionMeta } from '../../src/core/transcript/types.js';
import { engramHome, vaultKey, vaultState, type HostFacts, type VaultState } from '../../src/core/state.js';
import type { ConfigReader } from './config-file.js';

/** The nearest `.claude/engram.local.json` at or above `cwd`, parsed; null if there is none. */
export function findLocalSettings(cwd: string): LocalSettings | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const file = path.join(dir, '.claude', 'engram.local.json');
    let text: string | undefined;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) return parseLocalSettings(text, file, dir);
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The folder that names the git repository containing `cwd` (linked worktrees give their main repository), or null. */
export function gitTopLevel(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(dotGit);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) return dir;
    if (st?.isFile()) {
      const gitdirRaw = parseGitFile(fs.readFileSync(dotGit, 'utf8'));
      if (!gitdirRaw) return dir;
      const gitdir = path.resolve(dir, gitdirRaw);
      try {
        const commondir = fs.readFileSync(path.join(gitdir, 'commondir'), 'utf8');
        return repositoryFolderOf(gitdir, commondir, process.platform);
      } catch {
        // No commondir: a submodule (or an old-style worktree), named by its own folder.
        return dir;
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

export function projectFor(cwd: string): ResolvedProject {
  return resolveProject({ local: findLocalSettings(cwd), gitTopLevel: gitTopLevel(cwd), cwd: path.resolve(cwd), platform: process.platform });
}

/** The git repositories on disk beside a gone folder and one level up (where a deleted worktree's repository still lives). */
function repositoriesNear(cwd: string): string[] {
  const out: string[] = [];
  let dir = path.dirname(path.resolve(cwd));
  for (let up = 0; up < 2; up++, dir = path.dirname(dir)) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) if (fs.existsSync(path.join(dir, n, '.git'))) out.push(path.join(dir, n));
  }
  return out;
}

/**
 * Sets a session's project when its reader left it unset: the resolver above while the session's folder (or a parent
 * that names the repository) is on disk; for a folder that is gone, what the transcript records (projectFromRecords),
 * with the reason it is a guess kept for the note (home folders written as `~`).
 */
export function setSessionProject(meta: SessionMeta, homeDir: string, known?: string[]): void {
  if (meta.project || !meta.cwd) return;
  const resolved = projectFor(meta.cwd);
  if (resolved.source !== 'folder' || fs.existsSync(meta.cwd)) {
    meta.project = resolved.name;
    return;
  }
  const r = projectFromRecords({ cwd: meta.cwd, otherCwds: meta.otherCwds, gitBranch: meta.gitBranch, known: [...(known ?? []), ...repositoriesNear(meta.cwd)], platform: process.platform });
  meta.project = r.name;
  if (r.guess) meta.projectGuess = homeRelative(r.guess.split(homeDir).join('~')).text;
}

export interface VaultContext extends ResolvedVault {
  /** The real path (symlinks resolved), from which the key is computed. */
  realPath: string;
  key: string;
  state: VaultState;
}

/**
 * Resolves the vault for a command (or null when none is configured anywhere). Does not require it to exist.
 * config.json is read only when nothing earlier in the order names a vault, so a broken file cannot block `--vault`.
 */
export function findVault(facts: HostFacts, cwd: string, option: string | undefined, config: ConfigReader): ResolvedVault | null {
  const base = { option, env: facts.env, cwd, homeDir: facts.homeDir, platform: facts.platform };
  const early = option?.trim() || facts.env.ENGRAM_VAULT?.trim() ? resolveVault(base) : null;
  if (early) return early;
  const local = findLocalSettings(cwd);
  if (local?.vault) return resolveVault({ ...base, local });
  return resolveVault({ ...base, local, configVaultPath: config().get('vault_path') });
}

/** Resolves the vault and checks it is an existing folder; errors say how to set one. */
export function requireVault(facts: HostFacts, cwd: string, option: string | undefined, config: ConfigReader): VaultContext {
  const found = findVault(facts, cwd, option, config);
  if (!found) throw noVaultError();
  let realPath: string;
  try {
    realPath = fs.realpathSync.native(found.path);
  } catch {
    throw new EngramError('not-found', `vault path does not exist: ${found.path} (from ${found.origin})`, 'set it with `engram configure vault_path <path>`');
  }
  if (!fs.statSync(realPath).isDirectory()) throw new EngramError('not-found', `vault path is not a folder: ${found.path} (from ${found.origin})`);
  const key = vaultKey(realPath, facts.platform);
  return { ...found, realPath, key, state: vaultState(engramHome(facts), key, facts.platform) };
}
