// Host election through host.lock (O_EXCL). The lock holds pid + process start time; a lock whose process is gone
// (or whose pid was reused by another process) is stale and may be taken, under a short takeover lock so that two
// starters never both take it.
import fs from 'node:fs';
import os from 'node:os';

export const LOCK_FORMAT = 1;

export interface LockInfo {
  format: number;
  pid: number;
  /** Process start time (Linux: clock ticks since boot from /proc; elsewhere absent). */
  startTime?: string;
  host: 'daemon' | 'plugin';
  hostname: string;
  since: string;
}

/** The fields of /proc/<pid>/stat after the command name (which is in parentheses and may contain spaces). */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The process's state letter from /proc (R, S, D; T stopped by a signal, t by a debugger; Z a zombie), if known. */
export function processState(pid: number): string | undefined {
  return procStat(pid)?.[0];
}

export function processStartTime(pid: number): string | undefined {
  // Field 22 of stat.
  return procStat(pid)?.[19];
}

/**
 * Whether a process is running. A zombie (killed, not yet reaped by its parent: in a container whose PID 1 never
 * reaps, for ever) still answers kill(pid, 0) but runs nothing: it is dead. So is a pid we may not signal only when
 * /proc says so.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procStat(pid)?.[0];
  return state !== 'Z' && state !== 'X' && state !== 'x';
}

export function readLock(file: string): LockInfo | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
    return typeof data.pid === 'number' ? data : undefined;
  } catch {
    return undefined;
  }
}

/** Is the lock's owner still the process that wrote it? */
export function lockIsLive(info: LockInfo | undefined): boolean {
  if (!info) return false;
  // Another machine (a synced home): never steal. A lock that names no machine (an older version's, or one written
  // by hand) is judged by its pid like our own: a dead pid's lock is stale whatever its other fields.
  if (typeof info.hostname === 'string' && info.hostname !== '' && info.hostname !== os.hostname()) return true;
  if (!processAlive(info.pid)) return false;
  if (info.startTime) {
    const now = processStartTime(info.pid);
    if (now && now !== info.startTime) return false; // pid reused
  }
  return true;
}

function tryCreate(file: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    fs.writeSync(fd, JSON.stringify(info));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

export type ElectionResult = { won: true; info: LockInfo } | { won: false; owner: LockInfo | undefined };

export function acquireHostLock(file: string, host: 'daemon' | 'plugin' = 'daemon'): ElectionResult {
  const info: LockInfo = {
    format: LOCK_FORMAT,
    pid: process.pid,
    startTime: processStartTime(process.pid),
    host,
    hostname: os.hostname(),
    since: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(file, info)) return { won: true, info };
    const owner = readLock(file);
    if (owner === undefined) {
      // Half-written by a starter that is writing it right now, or garbage left by a crash.
      const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if (age < 2000) return { won: false, owner: undefined };
    } else if (lockIsLive(owner)) return { won: false, owner };
    // Stale: take it under a takeover lock, re-checking inside, so racing starters cannot both win.
    const takeover = `${file}.takeover`;
    const st = fs.statSync(takeover, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > 10_000) fs.rmSync(takeover, { force: true });
    if (!tryCreate(takeover, info)) return { won: false, owner };
    try {
      const again = readLock(file);
      if (again && JSON.stringify(again) !== JSON.stringify(owner)) return { won: false, owner: again };
      fs.rmSync(file, { force: true });
      if (tryCreate(file, info)) return { won: true, info };
    } finally {
      fs.rmSync(takeover, { force: true });
    }
  }
  return { won: false, owner: readLock(file) };
}

/** Removes the lock only if it is still ours. */
export function releaseHostLock(file: string): void {
  const info = readLock(file);
  if (info && info.pid === process.pid) fs.rmSync(file, { force: true });
}
