// A burst of real `engram hook Stop` processes at once with no host running: how many `serve` processes they start,
// and how long each hook takes. Used by tests/e2e/recovery.test.ts and bench/host-start.bench.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { cliPath } from './cli.js';
import { waitFor, type Sandbox } from './host.js';
import { repoRoot } from './shared.js';
import { HostConnection } from '../../sidecar/hosting/connection.js';
import { vaultState } from '../../sidecar/hosting/paths.js';

const fixture = path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl');

/** Live processes whose command line contains every one of `parts`. */
export function processesWith(parts: string[]): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      const state = fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && parts.every((p) => cmd.includes(p))) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

export interface BurstResult {
  /** `serve` processes the hooks started (each one counted by the entry wrapper as it starts). */
  hostsStarted: number;
  hookMs: number[];
  sessions: string[];
  hostPid: number;
}

/**
 * Runs `n` Stop hooks at once (one session each) and waits until exactly the host is left: every `serve` the hooks
 * spawned has either exited or is the host that answers on the socket.
 */
export async function hookBurst(sb: Sandbox, n: number, cli = cliPath): Promise<BurstResult> {
  const count = path.join(sb.root, 'serves.txt');
  const entry = path.join(sb.root, 'entry.mjs');
  // Counts each run (the hooks run through it, so the `serve` they start does too), then runs the real CLI.
  fs.writeFileSync(entry, `import fs from 'node:fs';\nfs.appendFileSync(${JSON.stringify(count)}, process.pid + ' ' + process.argv.slice(2).join(' ') + '\\n');\nawait import(${JSON.stringify(new URL(`file://${cli}`).href)});\n`);
  fs.rmSync(count, { force: true });
  const proj = path.join(sb.home, '.claude', 'projects', '-burst');
  fs.mkdirSync(proj, { recursive: true });
  const sessions = Array.from({ length: n }, (_, i) => `22222222-bbbb-4bbb-8bbb-${String(i).padStart(12, '0')}`);
  for (const s of sessions) fs.copyFileSync(fixture, path.join(proj, `${s}.jsonl`));
  const env = sb.env;
  const hookMs = await Promise.all(
    sessions.map(
      (s) =>
        new Promise<number>((resolve, reject) => {
          const t0 = performance.now();
          const child = spawn(process.execPath, [entry, 'hook', 'Stop'], { env, cwd: sb.root, stdio: ['pipe', 'ignore', 'ignore'] });
          child.on('error', reject);
          child.on('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`hook exited ${code}`))));
          child.stdin.end(JSON.stringify({ session_id: s, transcript_path: path.join(proj, `${s}.jsonl`), cwd: sb.root, hook_event_name: 'Stop' }));
        }),
    ),
  );
  const state = vaultState(sb.vault, sb.env);
  const hostPid = await waitFor(async () => {
    const conn = await HostConnection.open({ socket: state.socket, env: sb.env, deadline: Date.now() + 1000 }).catch(() => undefined);
    conn?.close();
    return conn?.hello.pid;
  }, 60_000, 'a host to answer');
  // Every spawned serve exists by the time its hook exited; wait for the losers (if any) to finish leaving.
  await waitFor(() => {
    const serves = processesWith([entry, 'serve']);
    return serves.length === 1 && serves[0] === hostPid;
  }, 60_000, 'only the host to be left');
  const hostsStarted = fs.readFileSync(count, 'utf8').split('\n').filter((l) => / serve /.test(l)).length;
  return { hostsStarted, hookMs, sessions, hostPid };
}
