// Asking the vault's host to hand over (`host.release`): it finishes or returns its job, saves, releases the lock and
// the socket, and exits. `engram serve --stop` and the Obsidian plugin taking over from a daemon both use this.
import { lockIsLive, readLock } from './election.js';
import type { VaultState } from './paths.js';
import { HostConnection, isNoHost } from './connection.js';

export interface Released {
  /** The host that was asked (none: no host answered). */
  pid?: number;
  host?: string;
  /** The lock is free: the next host may take it. */
  free: boolean;
}

/** Asks the host to release and waits (polling the lock, up to `waitMs`) until it has. */
export async function releaseHost(state: VaultState, env: NodeJS.ProcessEnv, reason: string, opts: { client: string; waitMs?: number }): Promise<Released> {
  let conn: HostConnection | undefined;
  try {
    conn = await HostConnection.open({ socket: state.socket, env, deadline: Date.now() + 2000, client: opts.client });
  } catch (e) {
    if (!isNoHost(e)) throw e;
  }
  const asked = conn ? { pid: conn.hello.pid, host: conn.hello.host } : {};
  if (conn) {
    await conn.call('host.release', { reason }, Date.now() + 5000).catch(() => undefined);
    conn.close();
  }
  // The host finishes its running job first (up to 20 s), then saves and releases.
  const until = Date.now() + (opts.waitMs ?? 30_000);
  while (lockIsLive(readLock(state.lock))) {
    if (Date.now() > until) return { ...asked, free: false };
    await new Promise((r) => setTimeout(r, 50));
  }
  return { ...asked, free: true };
}
