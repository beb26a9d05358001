// The host's side of the spool: claim entries by renaming them into claimed/, give back what a dead host claimed,
// and delete an entry only after the job that covers it has committed.
import fs from 'node:fs';
import path from 'node:path';
import { readFormat } from '../../src/core/format-version.js';
import { SPOOL_FORMAT, type SpoolEntry } from './spool-writer.js';
import type { VaultState } from './paths.js';
import { setAsideDamagedLedger } from './ledger-repair.js';
import { tempPathFor } from './temp-files.js';
import { atomicWriteFileSync } from './atomic-write.js';
import { engramHome } from './paths.js';
import { errorMessage } from '../../src/core/errors.js';
import type { CaptureSpool } from '../../src/core/capture/capture.js';

export interface ClaimedEntry {
  file: string;
  entry: SpoolEntry;
}

export function ensureStateDirs(state: VaultState): void {
  for (const d of [state.dir, state.spool, state.claimed, state.jobs]) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
}

/** At start (we hold host.lock, so whoever claimed these is gone): put claimed entries back in the spool. */
export function returnClaimed(state: VaultState): number {
  let n = 0;
  for (const name of safeList(state.claimed)) {
    try {
      fs.renameSync(path.join(state.claimed, name), path.join(state.spool, name));
      n++;
    } catch {
      // already moved
    }
  }
  return n;
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  } catch {
    return [];
  }
}

export function spoolDepth(state: VaultState): number {
  return safeList(state.spool).length + safeList(state.claimed).length;
}

/** Claims every complete entry in the spool. Unreadable entries are set aside in spool/bad/ and logged. */
export function claimAll(state: VaultState, log: (msg: string) => void): ClaimedEntry[] {
  const out: ClaimedEntry[] = [];
  for (const name of safeList(state.spool)) {
    const from = path.join(state.spool, name);
    const to = path.join(state.claimed, name);
    try {
      fs.renameSync(from, to);
    } catch {
      continue; // someone else took it
    }
    try {
      const read = readFormat({ name: 'spool entry', current: SPOOL_FORMAT, field: 'format', validate: (d) => d as unknown as SpoolEntry }, fs.readFileSync(to, 'utf8'));
      if (!read) throw new Error('empty');
      const entry = read.data;
      if (typeof entry.sessionId !== 'string' || !entry.sessionId) throw new Error('no session id');
      out.push({ file: to, entry });
    } catch (e) {
      const bad = path.join(state.spool, 'bad');
      fs.mkdirSync(bad, { recursive: true });
      fs.renameSync(to, path.join(bad, name));
      log(`spool entry ${name} set aside: ${(e as Error).message}`);
    }
  }
  return out;
}

export function releaseEntries(files: string[]): void {
  for (const f of files) fs.rmSync(f, { force: true });
}

/** Puts claimed entries back (a job that could not finish before exit). */
export function unclaim(state: VaultState, files: string[]): void {
  for (const f of files) {
    try {
      fs.renameSync(f, path.join(state.spool, path.basename(f)));
    } catch {
      // gone already
    }
  }
}

/** Deferred entries (budget spent, session busy elsewhere) wait in spool/deferred/ and come back after a while. */
/**
 * Moves entries to `spool/deferred/`. `returnDeferred` brings an entry back once its mtime is `ageMs` old, so an entry
 * due at a known time (`retryAt`, a failed LLM call's backoff) is stamped `retryAt - ageMs`.
 */
export function deferEntries(state: VaultState, files: string[], retryAt?: string, ageMs = DEFER_AGE_MS): void {
  const dir = path.join(state.spool, 'deferred');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const due = retryAt ? Date.parse(retryAt) : NaN;
  const now = new Date(Number.isFinite(due) ? due - ageMs : Date.now());
  for (const f of files) {
    try {
      const to = path.join(dir, path.basename(f));
      fs.renameSync(f, to);
      fs.utimesSync(to, now, now);
    } catch {
      // gone already
    }
  }
}

/** Why events were set aside, and what brings them back. */
export type FailureKind = 'disk-full' | 'read-only' | 'damaged-state' | 'error';

export interface FailureCause {
  kind: FailureKind;
  message: string;
  /** The folder that was full or not writable, or the damaged state file. */
  where?: string;
  /** What a person does about it. */
  fix: string;
  /** Where to look to tell whether the cause is gone, when `where` is not known (a full disk: the vault and home). */
  probe?: string[];
}

/** Stored beside a set-aside entry as `<entry>.cause` (not `.json`: never claimed, never counted). */
export interface SetAsideRecord {
  cause: FailureCause;
  /** How many times these events were set aside (the backoff grows with it). */
  rounds: number;
  setAsideAt: number;
}

/** Reads the cause of a failure from its error message (the errno text survives every wrapping). */
export function classifyFailure(message: string, engramHomeDir: string, vaultDir?: string): FailureCause {
  const quoted = /'(\/[^']+)'/.exec(message)?.[1];
  // The path an errno message quotes: a folder (access, mkdir) or a file in one (open of a temp file).
  const where = quoted ? (fs.statSync(quoted, { throwIfNoEntry: false })?.isDirectory() ? quoted : path.dirname(quoted)) : undefined;
  const retry = 'retried by itself once that is done, or now with `engram doctor --fix`';
  if (/ENOSPC|EDQUOT|no space left|quota exceeded/i.test(message)) {
    const probe = where ? [where] : [vaultDir, engramHomeDir].filter((d): d is string => Boolean(d));
    return { kind: 'disk-full', message, where, probe, fix: `free space on the disk holding ${where ?? probe.join(' and ')} (\`df -h ${where ?? probe.join(' ')}\`); ${retry}` };
  }
  if (/EROFS|read-only file system|EACCES|EPERM|permission denied/i.test(message)) {
    return { kind: 'read-only', message, where, fix: `make ${where ?? 'the vault'} writable (it is read-only or not yours); ${retry}` };
  }
  const damaged = /(\S+\.json(?:l)?) (?:is not valid JSON|has no version number)/.exec(message);
  if (damaged) {
    const file = path.isAbsolute(damaged[1]) ? damaged[1] : path.join(engramHomeDir, ...damaged[1].split('/'));
    return {
      kind: 'damaged-state',
      message,
      where: file,
      fix: `the state file ${file} is damaged: move it aside (\`mv '${file}' '${file}.damaged'\`) and Engram starts it afresh (notes already written stay; dedup skips what was extracted before); ${retry}`,
    };
  }
  return { kind: 'error', message, fix: 'see the host log in $ENGRAM_HOME/logs/; retried by itself later (after 10 min, then less often), or now with `engram doctor --fix`' };
}

function causeFile(failedDir: string, name: string): string {
  return path.join(failedDir, `${name}.cause`);
}

function readRecord(failedDir: string, name: string): SetAsideRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(causeFile(failedDir, name), 'utf8')) as SetAsideRecord;
  } catch {
    return undefined;
  }
}

/**
 * Failed entries (an extraction that kept failing) are set aside in spool/failed/ with their cause; they are retried
 * when the cause is gone, after a growing delay, and on `engram doctor --fix` (retrySetAside).
 */
export function failEntries(state: VaultState, files: string[], cause?: FailureCause): void {
  const dir = path.join(state.spool, 'failed');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const f of files) {
    const name = path.basename(f);
    try {
      fs.renameSync(f, path.join(dir, name));
    } catch {
      continue; // gone already
    }
    const before = readRecord(dir, name);
    const record: SetAsideRecord = {
      cause: cause ?? { kind: 'error', message: 'unknown', fix: 'see the host log in $ENGRAM_HOME/logs/' },
      rounds: (before?.rounds ?? 0) + 1,
      setAsideAt: Date.now(),
    };
    try {
      atomicWriteFileSync(causeFile(dir, name), JSON.stringify(record), { mode: 0o600 });
    } catch {
      // a full disk: the entry is set aside without its cause (shown as unknown, retried on the backoff)
    }
  }
}

/** The wait before set-aside events are retried whatever the cause: 10 min, 30 min, 1.5 h, … at most 6 h. */
export function retryBackoffMs(rounds: number): number {
  return Math.min(6 * 3600_000, 10 * 60_000 * 3 ** Math.max(0, rounds - 1));
}

/** Whether the cause of a failure is gone, as far as one can tell without running the job again. */
export function causeGone(cause: FailureCause): boolean {
  if (cause.kind === 'disk-full') {
    const dirs = cause.probe?.length ? cause.probe : cause.where ? [cause.where] : [];
    return dirs.length > 0 && dirs.every((d) => {
      try {
        const st = fs.statfsSync(d);
        return st.bavail * st.bsize > 4 * 1024 * 1024;
      } catch {
        return false;
      }
    });
  }
  const where = cause.where;
  if (!where) return false;
  try {
    if (cause.kind === 'damaged-state') {
      if (!fs.existsSync(where)) return true;
      JSON.parse(fs.readFileSync(where, 'utf8'));
      return true;
    }
    if (cause.kind === 'read-only') {
      // Probe with a file named like every Engram temp file (the crash cleanup removes it if we die here).
      const probe = tempPathFor(path.join(where, 'write-probe'));
      fs.writeFileSync(probe, '');
      fs.rmSync(probe, { force: true });
      return true;
    }
  } catch {
    return false;
  }
  return false;
}

export interface SetAsideEntry {
  name: string;
  file: string;
  record?: SetAsideRecord;
}

export function listSetAside(state: VaultState): SetAsideEntry[] {
  const dir = path.join(state.spool, 'failed');
  return safeList(dir).map((name) => ({ name, file: path.join(dir, name), record: readRecord(dir, name) }));
}

/**
 * Puts set-aside events back in the spool when their cause is gone, or their backoff has passed, or always with
 * `force` (`engram doctor --fix`). Cause files of events no longer set aside are removed. Returns how many came back.
 */
export function retrySetAside(state: VaultState, opts: { force?: boolean; now?: number } = {}): number {
  const dir = path.join(state.spool, 'failed');
  const now = opts.now ?? Date.now();
  let n = 0;
  const waiting = new Set(safeList(dir));
  for (const name of waiting) {
    const record = readRecord(dir, name);
    const since = now - (record?.setAsideAt ?? 0);
    // A cause that looks gone is tried at once the first time, then no more often than every 1, 2, 4 … min (a probe
    // can be wrong: 4 MB free may not be enough).
    const probeWait = record && record.rounds > 1 ? Math.min(3600_000, 60_000 * 2 ** (record.rounds - 2)) : 0;
    const due = opts.force || since >= retryBackoffMs(record?.rounds ?? 1) || (record !== undefined && since >= probeWait && causeGone(record.cause));
    if (!due) continue;
    try {
      fs.renameSync(path.join(dir, name), path.join(state.spool, name));
      n++;
    } catch {
      // taken already
    }
  }
  // A cause file stays while its event is retried (so the next set-aside counts rounds); once the event is done it goes.
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((x) => x.endsWith('.json.cause'));
  } catch {
    // no folder
  }
  for (const c of names) {
    const entry = c.slice(0, -'.cause'.length);
    const pending = [dir, state.spool, state.claimed, path.join(state.spool, 'deferred')].some((d) => fs.existsSync(path.join(d, entry)));
    if (!pending) fs.rmSync(path.join(dir, c), { force: true });
  }
  return n;
}

/** Moves deferred entries older than `ageMs` back into the spool; returns how many. */
/** How long a deferred entry waits when no retry time is known (budget spent, session busy elsewhere). */
export const DEFER_AGE_MS = 3_600_000;

export function returnDeferred(state: VaultState, ageMs = DEFER_AGE_MS): number {
  const dir = path.join(state.spool, 'deferred');
  let n = 0;
  for (const name of safeList(dir)) {
    const f = path.join(dir, name);
    const st = fs.statSync(f, { throwIfNoEntry: false });
    if (!st || Date.now() - st.mtimeMs < ageMs) continue;
    try {
      fs.renameSync(f, path.join(state.spool, name));
      n++;
    } catch {
      // taken already
    }
  }
  return n;
}

export function setAsideCounts(state: VaultState): { deferred: number; failed: number } {
  return { deferred: safeList(path.join(state.spool, 'deferred')).length, failed: safeList(path.join(state.spool, 'failed')).length };
}

/** Capture's spool port over these files (src/core/capture/capture.ts holds the policy). */
export function spoolPort(state: VaultState, env: NodeJS.ProcessEnv, deferAge: number, log: (level: 'warn', msg: string) => void): CaptureSpool {
  return {
    claim: () => claimAll(state, (m) => log('warn', m)).map((c) => ({ file: c.file, event: c.entry })),
    release: releaseEntries,
    defer: (files, retryAt) => deferEntries(state, files, retryAt, deferAge),
    unclaim: (files) => unclaim(state, files),
    setAside: (files, e) => {
      const cause = classifyFailure(errorMessage(e), engramHome(env), state.vault);
      // The ledger itself is damaged: set it aside and start a new one; the events run again on the next sweep.
      const moved = cause.kind === 'damaged-state' && cause.where === state.ledger ? setAsideDamagedLedger(state) : undefined;
      if (moved) {
        unclaim(state, files);
        return `the ledger was damaged: set aside as ${moved}, a new one started; its events are back in the spool`;
      }
      failEntries(state, files, cause);
      return `its events are in ${state.spool}/failed/ (${cause.kind}; fix: ${cause.fix})`;
    },
    // Deferred events (budget spent, session busy elsewhere) come back hourly, a failed LLM call's session at its
    // backoff time (deferEntries stamps it so); set-aside events once their cause looks gone.
    restore: () => {
      returnDeferred(state, deferAge);
      const again = retrySetAside(state);
      return again ? [`retrying ${again} events set aside in spool/failed/ (their cause looks gone, or their wait is over)`] : [];
    },
    depth: () => spoolDepth(state),
  };
}
