// A sandbox for sidecar tests: temporary HOME, ENGRAM_HOME, XDG_RUNTIME_DIR and vault, plus the hosts it started
// (always killed afterwards, so tests never leak daemons).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath } from './cli.js';
import { makeTempDir, removeDir } from './temp.js';
import { killAll, killMarked, onTeardown, processesMarked, processesUnder, removeFolder, removeFolderSync, unique, type Found } from './leftovers.js';
import { repoRoot } from './shared.js';
import { vaultState } from '../../sidecar/hosting/paths.js';

/** Host options a user never sets, given to a test host as flags (tests/helpers/host-entry.ts). */
export interface TestHostOptions {
  sweepMs?: number;
  jobDelayMs?: number;
  deferRetryMs?: number;
  idleMs?: number;
  embeddings?: false;
}

const hostEntry = path.join(repoRoot, 'tests', 'helpers', 'host-entry.ts');

function hostEntryArgs(vault: string, o: TestHostOptions): string[] {
  const args = ['--import', 'tsx', hostEntry, '--vault', vault];
  const flags: [string, number | undefined][] = [['--sweep-ms', o.sweepMs], ['--job-delay-ms', o.jobDelayMs], ['--defer-retry-ms', o.deferRetryMs], ['--idle-ms', o.idleMs]];
  for (const [flag, value] of flags) if (value !== undefined) args.push(flag, String(value));
  if (o.embeddings === false) args.push('--no-embeddings');
  return args;
}

export interface Sandbox {
  root: string;
  home: string;
  engramHome: string;
  vault: string;
  env: NodeJS.ProcessEnv;
  children: ChildProcess[];
  /**
   * Starts `engram serve --foreground` for the vault (not waiting). With options, the same host from the sources
   * through the test entry (tests/helpers/host-entry.ts), since `engram serve` has no flags for them.
   */
  serve(extraEnv?: NodeJS.ProcessEnv, options?: TestHostOptions): ChildProcess;
  writeNote(rel: string, text: string): string;
  /** Every log under $ENGRAM_HOME/logs (hook.log, the host's log, the activity record), for a failure message. */
  logs(): string;
  cleanup(): Promise<void>;
}

export function pidsFromLocks(engramHome: string): number[] {
  const out: number[] = [];
  const vaults = path.join(engramHome, 'vaults');
  for (const key of fs.existsSync(vaults) ? fs.readdirSync(vaults) : []) {
    // The host, and a host still starting (its start claim names it until it holds host.lock).
    for (const file of ['host.lock', 'host.starting']) {
      try {
        out.push((JSON.parse(fs.readFileSync(path.join(vaults, key, file), 'utf8')) as { pid: number }).pid);
      } catch {
        // none
      }
    }
  }
  return out;
}

/**
 * The text of every log Engram keeps under `engramHome`/logs (hook.log, host-<key>.log, the activity record), each
 * under its name, oldest generation first: what a failing test prints so that its failure explains itself.
 */
export function engramLogs(engramHome: string): string {
  const dir = path.join(engramHome, 'logs');
  const generation = (f: string) => Number(/\.(\d+)$/.exec(f)?.[1] ?? 0);
  const files = fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : [];
  files.sort((a, b) => a.replace(/\.\d+$/, '').localeCompare(b.replace(/\.\d+$/, '')) || generation(b) - generation(a));
  if (!files.length) return `(no logs in ${dir})`;
  return files.map((f) => `--- ${f}\n${fs.readFileSync(path.join(dir, f), 'utf8').trimEnd()}`).join('\n');
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `fn` until it gives a value; past `ms`, fails naming `what`, with what `explain` says (e.g. `sb.logs`). */
export async function waitFor<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000, what = 'condition', explain?: () => string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${explain ? `\n${explain()}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until `child` (from `sb.serve`) holds the vault's host lock and listens. Send hooks only after this: a hook
 * that finds no host starts a plain `engram serve`, which would win the election without the test's options.
 */
export async function hostListening(sb: Sandbox, child: ChildProcess, ms = 30_000): Promise<void> {
  const state = vaultState(sb.vault, sb.env);
  await waitFor(() => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the test host exited (${child.exitCode ?? child.signalCode}) before it listened`);
    let owner: number | undefined;
    try {
      owner = (JSON.parse(fs.readFileSync(state.lock, 'utf8')) as { pid?: number }).pid;
    } catch {
      // no lock yet
    }
    return owner === child.pid && fs.existsSync(state.socket);
  }, ms, 'the test host to listen');
}

export function makeSandbox(): Sandbox {
  const root = makeTempDir('engram-sbx-');
  const home = path.join(root, 'home');
  const engramHome = path.join(root, 'engram');
  const vault = path.join(root, 'vault');
  const run = path.join(root, 'run');
  for (const d of [home, engramHome, vault, run]) fs.mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    USERPROFILE: home,
    ENGRAM_HOME: engramHome,
    XDG_RUNTIME_DIR: run,
    ENGRAM_VAULT: vault,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
  };
  delete env.ENGRAM_NESTED;
  delete env.ENGRAM_DAEMON;
  const children: ChildProcess[] = [];
  const sb: Sandbox = {
    root, home, engramHome, vault, env, children,
    serve(extraEnv = {}, options) {
      const args = options ? hostEntryArgs(vault, options) : [cliPath, 'serve', '--foreground', '--vault', vault];
      const child = spawn(process.execPath, args, { env: { ...env, ...extraEnv }, cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      return child;
    },
    writeNote(rel, text) {
      const file = path.join(vault, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return file;
    },
    logs: () => engramLogs(engramHome),
    async cleanup() {
      untrackSandbox();
      // Kill first, whatever fails after: a folder that will not go must not keep a host running.
      const stopped = await killMarked(sandboxProcesses).then(() => null, (e: unknown) => e as Error);
      await removeFolder(root, () => killAll(sandboxProcesses().map((f) => f.pid)));
      removeDir(root);
      if (stopped) throw stopped;
    },
  };
  // The sandbox's processes: the ones it spawned, and every one whose environment names its ENGRAM_HOME (a host a
  // hook started detached, whose lock may be gone already); without /proc, the pids its locks name.
  const sandboxProcesses = (): Found[] => {
    const running = children.filter((c) => c.pid && c.exitCode === null && c.signalCode === null).map((c) => ({ pid: c.pid!, command: c.spawnargs.join(' ') }));
    const marked = fs.existsSync('/proc/self/environ')
      ? processesMarked('ENGRAM_HOME', engramHome)
      : pidsFromLocks(engramHome).filter(alive).map((pid) => ({ pid, command: 'a host named by a lock' }));
    // A process a tool started with an environment of its own (Codex's MCP servers) carries no ENGRAM_HOME, but runs
    // in the sandbox or names it.
    return unique([...running, ...marked, ...processesUnder(root)]);
  };
  const untrackSandbox = onTeardown(`sandbox ${root}`, () => sb.cleanup(), () => {
    killAll(sandboxProcesses().map((f) => f.pid));
    removeFolderSync(root);
  });
  return sb;
}

/** Puts a copy of `fixture` where Claude Code keeps a session's transcript in the sandbox; returns its path. */
export function sessionTranscript(sb: Sandbox, sessionId: string, fixture: string, project = '-home-dev-acme'): string {
  const dir = path.join(sb.home, '.claude', 'projects', project);
  fs.mkdirSync(dir, { recursive: true });
  const transcript = path.join(dir, `${sessionId}.jsonl`);
  fs.copyFileSync(fixture, transcript);
  return transcript;
}
