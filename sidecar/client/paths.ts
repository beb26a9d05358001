// Where Engram's per-user and per-vault state lives (DESIGN "Where things live"). Small on purpose: hooks import it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function engramHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.ENGRAM_HOME ? path.resolve(env.ENGRAM_HOME) : path.join(os.homedir(), '.engram');
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

/** First 16 hex digits of sha256 of the vault's real path, case-folded where the file system usually is. */
export function vaultKey(vault: string, platform: NodeJS.Platform = process.platform): string {
  let p = realVaultPath(vault);
  if (platform === 'darwin' || platform === 'win32') p = p.toLowerCase();
  return createHash('sha256').update(p).digest('hex').slice(0, 16);
}

export interface VaultState {
  vault: string;
  key: string;
  dir: string;
  spool: string;
  claimed: string;
  jobs: string;
  lock: string;
  socket: string;
}

export function vaultState(vault: string, env: NodeJS.ProcessEnv = process.env): VaultState {
  const real = realVaultPath(vault);
  const key = vaultKey(real);
  const dir = path.join(engramHome(env), 'vaults', key);
  return {
    vault: real,
    key,
    dir,
    spool: path.join(dir, 'spool'),
    claimed: path.join(dir, 'claimed'),
    jobs: path.join(dir, 'jobs'),
    lock: path.join(dir, 'host.lock'),
    socket: socketPath(key, env),
  };
}

export function tokenPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(engramHome(env), 'token');
}

export function logsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(engramHome(env), 'logs');
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(engramHome(env), 'config.json');
}

function uid(): string {
  return typeof process.getuid === 'function' ? String(process.getuid()) : os.userInfo().username;
}

/** The private directory that holds the sockets (0700, ours). */
export function socketDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'engram');
  return path.join(os.tmpdir(), `engram-${uid()}`);
}

export function socketPath(key: string, env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') return `\\\\.\\pipe\\engram-${os.userInfo().username}-${key}`;
  const p = path.join(socketDir(env), `${key}.sock`);
  // sun_path holds about 104 bytes; fall back to the short tmp location when XDG_RUNTIME_DIR is too deep.
  if (Buffer.byteLength(p) < 100) return p;
  return path.join(os.tmpdir(), `engram-${uid()}`, `${key}.sock`);
}

/** Creates the socket directory 0700, and refuses one that another user owns or others can enter. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}
