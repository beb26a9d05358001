// Starts a detached host for a vault without waiting for it: a hook must never block on a daemon's start-up.
// One start at a time: many hooks at once (a burst of Stop events with no host) start one `serve`, not one each.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { lockIsLive, processAlive, readLock } from './election.js';
import { engramHome, logsDir, vaultState } from './paths.js';
import { thisDevice } from './device.js';
import { heldElsewhere, readLease } from './vault-lease.js';

/** A start claimed this long ago whose host has not taken host.lock yet is presumed failed; the next caller retries. */
export const START_CLAIM_MS = 15_000;

/** The file a starter holds while its host starts (the host removes it once it holds host.lock). */
export function startClaimPath(stateDir: string): string {
  return path.join(stateDir, 'host.starting');
}

/** The script that runs `engram` (the bundle or the stable shim's target): a host starts from the same one. */
export function engramEntry(): string {
  return process.argv[1];
}

interface StartClaim {
  /** The starter, then (once spawned) the host it started. */
  pid: number;
  at: number;
}

function readClaim(file: string): StartClaim | undefined {
  try {
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as StartClaim;
    return typeof c.pid === 'number' && typeof c.at === 'number' ? c : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the start claim (O_EXCL); a claim whose process is gone, or that is too old, is taken over once. */
function claimStart(file: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, at: Date.now() } satisfies StartClaim), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return true; // cannot coordinate (read-only state?): just start
    }
    const claim = readClaim(file);
    const age = Date.now() - (claim?.at ?? fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age < START_CLAIM_MS && (claim === undefined || processAlive(claim.pid))) return false;
    fs.rmSync(file, { force: true });
  }
  return false;
}

/**
 * Starts `engram serve` for the vault, detached, unless a host already holds host.lock or another caller is starting
 * one right now. Returns the new process's pid, or undefined when nothing was started.
 */
export function startHostDetached(vault: string, env: NodeJS.ProcessEnv): number | undefined {
  const state = vaultState(vault, env);
  if (lockIsLive(readLock(state.lock))) return undefined;
  // Another device hosts this synced vault: no host here (hooks' events wait in the spool until its lease expires).
  if (heldElsewhere(readLease(state.vault), thisDevice(engramHome(env)))) return undefined;
  fs.mkdirSync(state.dir, { recursive: true, mode: 0o700 });
  const claimFile = startClaimPath(state.dir);
  if (!claimStart(claimFile)) return undefined;
  // A host that took host.lock (and dropped its claim) between our first look and our claim: nothing to start.
  if (lockIsLive(readLock(state.lock))) {
    fs.rmSync(claimFile, { force: true });
    return undefined;
  }
  const dir = logsDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const childEnv: NodeJS.ProcessEnv = { ...env, ENGRAM_DAEMON: '1' };
  delete childEnv.ENGRAM_NESTED;
  const child = spawn(process.execPath, [engramEntry(), 'serve', '--vault', vault], {
    detached: true,
    stdio: 'ignore',
    env: childEnv,
    cwd: path.dirname(engramEntry()),
    windowsHide: true,
  });
  child.on('error', () => fs.rmSync(claimFile, { force: true }));
  child.unref();
  if (child.pid) {
    try {
      fs.writeFileSync(claimFile, JSON.stringify({ pid: child.pid, at: Date.now() } satisfies StartClaim), { mode: 0o600 });
    } catch {
      // the claim still names us; it expires
    }
  }
  return child.pid;
}

/**
 * Whether a host for this state folder is on its way: one holds host.lock (and will listen), or a start claim names
 * a live process. False once a start has failed (an invalid config makes `serve` exit): then nobody should wait.
 */
export function hostStarting(state: { dir: string; lock: string }): boolean {
  if (lockIsLive(readLock(state.lock))) return true;
  const claim = readClaim(startClaimPath(state.dir));
  return claim !== undefined && Date.now() - claim.at < START_CLAIM_MS && processAlive(claim.pid);
}

/** Called by the host once it holds host.lock: the start is over. */
export function releaseStartClaim(stateDir: string): void {
  fs.rmSync(startClaimPath(stateDir), { force: true });
}
