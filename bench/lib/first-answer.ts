// The host's CPU time from its exec to its first answered context request: a host started detached as a hook starts
// one (`engram serve` with ENGRAM_DAEMON), one client that asks for context as soon as the socket appears, and the
// host's user + system time read from /proc the moment the answer is in. On a loaded machine the wall time moves with
// the load; this CPU time barely does, so it is the figure to compare builds by (Linux only: it reads /proc).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { HostConnection, isNoHost } from '../../sidecar/hosting/connection.js';
import { vaultState } from '../../sidecar/hosting/paths.js';

export interface FirstAnswer {
  /** Host CPU (user + system) from exec to the first context answer. */
  cpuMs: number;
  /** Wall time from the spawn to the answer. */
  ms: number;
  /** Characters of context in that answer. */
  chars: number;
  /** When the answer came in, on the monotonic clock in µs (a --cpu-prof profile's clock: cut it there). */
  atUs: number;
}

const TICK_MS = 1000 / 100; // USER_HZ: /proc/<pid>/stat counts clock ticks of 10 ms.

function cpuOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
}

/** Starts a host for `vault` (none may run), asks it for `prompt`'s context, and stops it. */
export async function firstAnswer(cli: string, vault: string, env: NodeJS.ProcessEnv, prompt: string, extraNodeArgs: string[] = []): Promise<FirstAnswer> {
  const state = vaultState(vault, env);
  const t0 = performance.now();
  const host = spawn(process.execPath, [...extraNodeArgs, cli, 'serve', '--vault', vault], { env: { ...env, ENGRAM_DAEMON: '1' }, stdio: 'ignore' });
  const exited = new Promise((r) => host.on('exit', r));
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (host.exitCode !== null) throw new Error(`the host exited (${host.exitCode}) before it answered`);
      try {
        const conn = await HostConnection.open({ socket: state.socket, env, deadline, client: 'hook' });
        try {
          const r = await conn.call('context', { event: 'UserPromptSubmit', sessionId: `first-${Date.now()}`, prompt, cwd: vault, maxChars: 6000, maxItems: 5 }, deadline);
          const cpuMs = cpuOf(host.pid!);
          return { cpuMs, ms: performance.now() - t0, chars: r.text?.length ?? 0, atUs: Number(process.hrtime.bigint() / 1000n) };
        } finally {
          conn.close();
        }
      } catch (e) {
        if (!isNoHost(e)) throw e;
      }
      if (Date.now() > deadline) throw new Error('the host did not answer within 120 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    host.kill('SIGTERM');
    await exited;
  }
}
