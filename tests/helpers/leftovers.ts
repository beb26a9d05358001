// Nothing a test starts outlives it (issue 27). Every test run has a marker in its environment, which every process
// the tests start inherits: ENGRAM_TEST_RUN (the run, set by tests/helpers/run-reporter.ts) and ENGRAM_TEST_SCOPE (the
// test file, set by tests/helpers/test-setup.ts). A registry holds the teardowns of what tests made (sandboxes, temp
// folders, the shared Chromium); after each test file they all run, whatever failed, then the file's processes still
// alive are killed, found by their marker (a host a hook started detached has no other handle). At the end of a run
// the reporter fails it if anything carrying the run's marker, or anything in the run's temp folder, is left.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export const RUN_VAR = 'ENGRAM_TEST_RUN';
export const SCOPE_VAR = 'ENGRAM_TEST_SCOPE';

interface Teardown {
  what: string;
  run: () => Promise<void> | void;
  /** At process exit only synchronous work runs. */
  runSync: () => void;
}

// One list per process, whatever copy of this module a test file loaded (Vitest loads the modules afresh per file).
const registry = globalThis as { engramTeardowns?: Teardown[] };
const pending: Teardown[] = (registry.engramTeardowns ??= []);

/** Registers a teardown that runs after the test file even if the test never reaches its own; returns its removal. */
export function onTeardown(what: string, run: () => Promise<void> | void, runSync: () => void): () => void {
  const t: Teardown = { what, run, runSync };
  pending.push(t);
  return () => {
    const i = pending.indexOf(t);
    if (i >= 0) pending.splice(i, 1);
  };
}

/** Runs every pending teardown, newest first; one that throws does not stop the others. Returns the failures. */
export async function tearDownAll(): Promise<Error[]> {
  const errors: Error[] = [];
  for (const t of pending.splice(0).reverse()) {
    try {
      await t.run();
    } catch (e) {
      errors.push(new Error(`teardown of ${t.what} failed: ${(e as Error).message}`));
    }
  }
  return errors;
}

export function tearDownAllSync(): void {
  for (const t of pending.splice(0).reverse()) {
    try {
      t.runSync();
    } catch {
      // the others still run
    }
  }
}

/** The environment a process started with, or null when it is gone or not ours to read (Linux /proc). */
function environOf(pid: number): string[] | null {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
  } catch {
    return null;
  }
}

function cmdlineOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ');
  } catch {
    return '';
  }
}

function parentOf(pid: number): number {
  try {
    // The command name (in parentheses) may hold spaces: the fields after its closing parenthesis.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

/**
 * The build service esbuild keeps beside the process that called it (Vitest's own, the browser bundles): it belongs to
 * that process, not to a test, and exits with it.
 */
function isEsbuildService(pid: number): boolean {
  return /esbuild.* --service=/.test(cmdlineOf(pid));
}

export interface Found {
  pid: number;
  command: string;
}

/**
 * Live processes whose environment has `name`=`value` (or, with `prefix`, a value starting with it), other than this
 * process, its children in `exceptChildrenOf` and esbuild's build services. Zombies have no environment to read.
 */
export function processesMarked(name: string, value: string, opts: { prefix?: boolean; exceptChildrenOf?: number } = {}): Found[] {
  if (process.platform !== 'linux' || !fs.existsSync('/proc/self/environ')) return [];
  const wanted = `${name}=${value}`;
  return scanProc((pid) => (environOf(pid) ?? []).some((kv) => (opts.prefix ? kv.startsWith(wanted) : kv === wanted)), opts);
}

/** The processes /proc lists that `hit` picks, other than this one, children of `exceptChildrenOf` and esbuild's services. */
function scanProc(hit: (pid: number) => boolean, opts: { exceptChildrenOf?: number }): Found[] {
  const out: Found[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || !hit(pid)) continue;
    if (opts.exceptChildrenOf !== undefined && parentOf(pid) === opts.exceptChildrenOf) continue;
    if (isEsbuildService(pid)) continue;
    out.push({ pid, command: cmdlineOf(pid).slice(0, 200) });
  }
  return out;
}

/** Each process once (found by its marker and by its folder). */
export function unique(found: Found[]): Found[] {
  return [...new Map(found.map((f) => [f.pid, f])).values()];
}

/**
 * Live processes that run in `dir` or name it (their working folder, a value in their environment, their command line)
 * without carrying a marker: what a tool starts with an environment of its own (Codex starts its MCP servers with a
 * few variables only, so `engram mcp` under a test's Codex has no run marker, but runs in the test's folder). Without
 * /proc (macOS), the command lines `ps` lists.
 */
export function processesUnder(dir: string, opts: { exceptChildrenOf?: number } = {}): Found[] {
  const inside = (p: string): boolean => p === dir || p.startsWith(`${dir}/`);
  const names = (text: string): boolean => text.includes(dir);
  const out: Found[] = [];
  if (!fs.existsSync('/proc/self/environ')) {
    let listing = '';
    try {
      listing = execFileSync('ps', ['-A', '-ww', '-o', 'pid=', '-o', 'args='], { encoding: 'utf8' });
    } catch {
      return [];
    }
    for (const line of listing.split('\n')) {
      const m = /^\s*(\d+)\s+(.*)$/.exec(line);
      if (m && Number(m[1]) !== process.pid && names(m[2])) out.push({ pid: Number(m[1]), command: m[2].slice(0, 200) });
    }
    return out;
  }
  const cwdOf = (pid: number): string => {
    try {
      return fs.readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      return ''; // gone, or not ours to read
    }
  };
  return scanProc((pid) => (inside(cwdOf(pid)) || (environOf(pid) ?? []).some((kv) => names(kv)) || names(cmdlineOf(pid))) && running(pid), opts);
}

/**
 * Whether `pid` still runs: unlike kill(pid, 0) (host.ts's `alive`), a zombie (dead, its exit status not collected yet,
 * as under a container's init) does not.
 */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return !fs.existsSync('/proc/self/stat');
  }
}

/** Kills `pids` (and the process group of each that leads one: a detached host's children). */
export function killAll(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // not a group leader
    }
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** Waits (polling) until `probe` holds or `ms` pass; returns whether it held. */
export async function settle(probe: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (probe()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Kills the processes found by `find` until none is left (a dying host may start no one, but a racing hook may). */
export async function killMarked(find: () => Found[], ms = 10_000): Promise<Found[]> {
  const killed = new Map<number, Found>();
  const gone = await settle(() => {
    const left = find();
    for (const f of left) killed.set(f.pid, f);
    killAll(left.map((f) => f.pid));
    return left.length === 0;
  }, ms);
  if (!gone) throw new Error(`could not stop ${find().map((f) => `${f.pid} (${f.command})`).join(', ')}`);
  return [...killed.values()];
}

function isRetryable(e: unknown): boolean {
  return ['ENOTEMPTY', 'EBUSY', 'EPERM', 'EMFILE', 'ENFILE'].includes((e as NodeJS.ErrnoException).code ?? '');
}

/**
 * Removes a folder, retrying while something still finishing a write refills it (ENOTEMPTY) or holds it (EBUSY);
 * `between` runs before each retry (a sandbox kills its processes again).
 */
export async function removeFolder(dir: string, between: () => void = () => undefined, attempts = 20): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      return;
    } catch (e) {
      if (!isRetryable(e) || i >= attempts) throw e;
      between();
      await new Promise((r) => setTimeout(r, 100 * Math.min(i, 10)));
    }
  }
}

export function removeFolderSync(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}
