// A host that holds host.lock but answers nothing: stopped (SIGSTOP, a debugger) or with its event loop stuck. Its lock
// is live, so no new host would ever start and every hook would time out against it. A client that times out asks
// here: a stopped daemon, or one whose heartbeat has not moved for HUNG_AFTER_MS, is killed and its lock taken over
// by the next start. The Obsidian plugin's host is never killed (it is Obsidian): status says what to do instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockIsLive, processAlive, processState, readLock, type LockInfo } from './election.js';

/** How often a host touches its heartbeat file (a timer: it moves only while the event loop runs). */
export const HEARTBEAT_MS = 5_000;
/** A heartbeat this old, with the host not answering, means its event loop is stuck. */
export const HUNG_AFTER_MS = 60_000;

export function heartbeatPath(stateDir: string): string {
  return path.join(stateDir, 'host.alive');
}

/** Touches the heartbeat file now and every HEARTBEAT_MS; returns the stop. */
export function startHeartbeat(stateDir: string): () => void {
  const file = heartbeatPath(stateDir);
  const beat = () => {
    try {
      fs.writeFileSync(file, String(process.pid), { mode: 0o600 });
    } catch {
      // a full or read-only disk: the heartbeat is only a hint
    }
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}

export interface HungHost {
  owner: LockInfo;
  why: string;
  /** Engram's own daemon, which may be killed and replaced (the Obsidian plugin's host is not). */
  replaceable: boolean;
}

/**
 * Why the live host holding the lock cannot answer, or undefined when it may only be busy (or is not on this machine,
 * or none holds the lock).
 */
export function hungHost(state: { dir: string; lock: string }, now = Date.now()): HungHost | undefined {
  const owner = readLock(state.lock);
  if (!owner || !lockIsLive(owner)) return undefined;
  if (typeof owner.hostname === 'string' && owner.hostname !== '' && owner.hostname !== os.hostname()) return undefined;
  const replaceable = owner.host !== 'plugin';
  const st = processState(owner.pid);
  if (st === 'T' || st === 't') return { owner, replaceable, why: `pid ${owner.pid} is stopped (SIGSTOP or a debugger) and answers nothing` };
  const beat = fs.statSync(heartbeatPath(state.dir), { throwIfNoEntry: false });
  // A heartbeat older than the lock is a previous host's: judge only this host's own.
  if (beat && beat.mtimeMs >= Date.parse(owner.since) - 1000 && now - beat.mtimeMs > HUNG_AFTER_MS) {
    return { owner, replaceable, why: `pid ${owner.pid} has not run its event loop for ${Math.round((now - beat.mtimeMs) / 1000)} s` };
  }
  return undefined;
}

/**
 * Kills a hung daemon (SIGKILL reaches a stopped process too) and waits, briefly, until it is gone, so that the next
 * start takes its lock. Returns whether it is gone.
 */
export async function killHungHost(hung: HungHost, waitMs = 3000): Promise<boolean> {
  if (!hung.replaceable) return false;
  try {
    process.kill(hung.owner.pid, 'SIGKILL');
  } catch {
    // gone already
  }
  const until = Date.now() + waitMs;
  while (processAlive(hung.owner.pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
