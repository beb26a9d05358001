// The state layout of docs/files.md: $ENGRAM_HOME, the per-vault key and folders, the socket path.
// Pure: the host passes in its platform, home folder, temp folder and environment.
import { EngramError } from './errors.js';
import { sha256Hex } from './hash.js';
import { pathOpsFor, posixPath, type PathOps } from './path.js';

/** What the host knows about where it runs (Node: process.platform, os.homedir(), os.tmpdir(), process.env, …). */
export interface HostFacts {
  platform: string;
  homeDir: string;
  tmpDir: string;
  env: Record<string, string | undefined>;
  /** POSIX user id (socket folder name); absent on Windows. */
  uid?: number;
  /** User name (Windows pipe name). */
  userName?: string;
}

function expandHome(p: string, facts: HostFacts): string {
  if (p === '~') return facts.homeDir;
  if (p.startsWith('~/') || (facts.platform === 'win32' && p.startsWith('~\\'))) return pathOpsFor(facts.platform).join(facts.homeDir, p.slice(2));
  return p;
}

/** $ENGRAM_HOME (must be absolute; `~` expanded), else `~/.engram`. */
export function engramHome(facts: HostFacts): string {
  const p = pathOpsFor(facts.platform);
  const set = facts.env.ENGRAM_HOME?.trim();
  if (set) {
    const home = expandHome(set, facts);
    if (!p.isAbsolute(home)) {
      throw new EngramError('invalid-config', `ENGRAM_HOME must be an absolute path, got "${set}"`, 'set it to a full path or unset it to use ~/.engram');
    }
    return p.normalize(home);
  }
  return p.join(facts.homeDir, '.engram');
}

/**
 * The per-vault key: the first 16 hex digits of sha256 of the vault's real path. macOS and Windows file systems
 * are usually case-insensitive (and macOS may hand back NFD names), so there the path is folded first: one vault, one key.
 */
export function vaultKey(realPath: string, platform: string): string {
  const ops = pathOpsFor(platform);
  let p = ops.normalize(platform === 'win32' ? realPath.replace(/\//g, '\\') : realPath);
  // A trailing separator does not make another folder (but a bare root keeps its own).
  while (p.length > 1 && (p.endsWith('/') || p.endsWith('\\')) && !/^[A-Za-z]:\\$/.test(p)) p = p.slice(0, -1);
  if (platform === 'darwin' || platform === 'win32') p = p.normalize('NFC').toLowerCase();
  return sha256Hex(p).slice(0, 16);
}

export interface UserState {
  home: string;
  configFile: string;
  /** 256-bit token for the host socket (0600). */
  tokenFile: string;
  logsDir: string;
  binDir: string;
  /** The stable shim that hook and MCP registrations point at (`bin/engram`, `bin/engram.cmd` on Windows). */
  shim: string;
  vaultsDir: string;
}

export function userState(home: string, platform: string): UserState {
  const p = pathOpsFor(platform);
  const binDir = p.join(home, 'bin');
  return {
    home,
    configFile: p.join(home, 'config.json'),
    tokenFile: p.join(home, 'token'),
    logsDir: p.join(home, 'logs'),
    binDir,
    shim: p.join(binDir, platform === 'win32' ? 'engram.cmd' : 'engram'),
    vaultsDir: p.join(home, 'vaults'),
  };
}

export interface VaultState {
  key: string;
  dir: string;
  /** The index snapshot (one file, written atomically). */
  snapshot: string;
  ledger: string;
  spool: string;
  claimed: string;
  jobs: string;
  proposals: string;
  /** Which process hosts the vault. */
  lock: string;
}

export function vaultState(home: string, key: string, platform: string): VaultState {
  if (!/^[0-9a-f]{16}$/.test(key)) throw new EngramError('usage', `not a vault key: ${key}`);
  const p: PathOps = pathOpsFor(platform);
  const dir = p.join(home, 'vaults', key);
  return {
    key,
    dir,
    snapshot: p.join(dir, 'snapshot'),
    ledger: p.join(dir, 'ledger.json'),
    spool: p.join(dir, 'spool'),
    claimed: p.join(dir, 'claimed'),
    jobs: p.join(dir, 'jobs'),
    proposals: p.join(dir, 'proposals'),
    lock: p.join(dir, 'host.lock'),
  };
}

/** Unix socket paths must fit in sockaddr_un (104 bytes on macOS, 108 on Linux); Engram keeps them under 100. */
export const SOCKET_PATH_MAX_BYTES = 100;

export interface SocketLocation {
  /** The socket (or named pipe) path to bind or connect to. */
  path: string;
  /** The private folder to create with mode 0700 first; absent for Windows pipes. */
  dir?: string;
}

function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

/**
 * `$XDG_RUNTIME_DIR/engram/<key>.sock`, else `<tmpdir>/engram-<uid>/<key>.sock`, else `/tmp/engram-<uid>/<key>.sock`
 * (the first that fits in 100 bytes); on Windows `\\.\pipe\engram-<user>-<key>`.
 */
export function socketLocation(facts: HostFacts, key: string): SocketLocation {
  if (facts.platform === 'win32') {
    const user = (facts.userName ?? facts.env.USERNAME ?? 'user').replace(/[^A-Za-z0-9._-]/g, '_');
    return { path: `\\\\.\\pipe\\engram-${user}-${key}` };
  }
  const uid = facts.uid ?? 0;
  const candidates: string[] = [];
  const xdg = facts.env.XDG_RUNTIME_DIR;
  if (xdg && xdg.startsWith('/')) candidates.push(posixPath.join(xdg, 'engram'));
  if (facts.tmpDir.startsWith('/')) candidates.push(posixPath.join(facts.tmpDir, `engram-${uid}`));
  candidates.push(`/tmp/engram-${uid}`);
  for (const dir of candidates) {
    const path = posixPath.join(dir, `${key}.sock`);
    if (byteLength(path) < SOCKET_PATH_MAX_BYTES) return { path, dir };
  }
  // Unreachable in practice: /tmp/engram-<uid>/<16 hex>.sock is about 40 bytes.
  throw new EngramError('io', 'no socket path under 100 bytes is available');
}
