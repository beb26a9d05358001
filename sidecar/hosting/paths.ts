// Where Engram's per-user and per-vault state lives, from core's layout (src/core/state.ts) with this process's
// facts. Small on purpose: hooks import it.
import fs from 'node:fs';
import path from 'node:path';
import { engramHome as coreHome, socketLocation, userState, vaultKey as coreKey, vaultState as coreVaultState, type VaultState as CoreVaultState } from '../../src/core/state.js';
import { homeDir, hostFacts } from './facts.js';

export function engramHome(env: NodeJS.ProcessEnv): string {
  return coreHome(hostFacts(env));
}

/** Claude Code's own folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`). */
export function claudeDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR ?? path.join(homeDir(env), '.claude');
}

export type Json = Record<string, unknown>;

/** A JSON file of Claude Code's that holds an object (settings, credentials, plugins), or undefined. */
export function readJson(file: string): Json | undefined {
  try {
    const v: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}


/** Codex's own folder: `$CODEX_HOME`, else `~/.codex` (its config.toml and its sessions/ live there). */
export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME ?? path.join(hostFacts(env).homeDir, '.codex');
}

/** The vault's real path (symlinks resolved) when it exists, else its absolute path. */
export function realVaultPath(vault: string): string {
  const abs = path.resolve(vault);
  try {
    return fs.realpathSync.native(abs);
  } catch {
    return abs;
  }
}

export function vaultKey(vault: string, platform: NodeJS.Platform = process.platform): string {
  return coreKey(realVaultPath(vault), platform);
}

/** A vault's state paths (core's one layout), with the vault's real path and the host's socket. */
export interface VaultState extends CoreVaultState {
  vault: string;
  socket: string;
}

export function vaultState(vault: string, env: NodeJS.ProcessEnv): VaultState {
  const facts = hostFacts(env);
  const real = realVaultPath(vault);
  const key = coreKey(real, facts.platform);
  return { ...coreVaultState(coreHome(facts), key, facts.platform), vault: real, socket: socketLocation(facts, key).path };
}

export function tokenPath(env: NodeJS.ProcessEnv): string {
  return userState(engramHome(env), process.platform).tokenFile;
}

export function logsDir(env: NodeJS.ProcessEnv): string {
  return userState(engramHome(env), process.platform).logsDir;
}

export function shimPath(env: NodeJS.ProcessEnv): string {
  return userState(engramHome(env), process.platform).shim;
}

/** Creates the socket directory 0700, and refuses one that another user owns. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/** Folders of a vault no host indexes or watches: Obsidian's config and trash, git, dependencies, and the lease (.engram). */
export const VAULT_IGNORED_DIRS: readonly string[] = ['.obsidian', '.trash', '.git', 'node_modules', '.engram'];
