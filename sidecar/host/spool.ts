// The host's side of the spool: claim entries by renaming them into claimed/, give back what a dead host claimed,
// and delete an entry only after the job that covers it has committed.
import fs from 'node:fs';
import path from 'node:path';
import type { SpoolEntry } from '../client/spool-writer.js';
import type { VaultState } from '../client/paths.js';

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
      const entry = JSON.parse(fs.readFileSync(to, 'utf8')) as SpoolEntry;
      if (typeof entry.sessionId !== 'string' || !entry.sessionId) throw new Error('no session id');
      if (typeof entry.format === 'number' && entry.format > 1) throw new Error(`spool format ${entry.format} is newer than this host`);
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
export function deferEntries(state: VaultState, files: string[]): void {
  const dir = path.join(state.spool, 'deferred');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = new Date();
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

/** Failed entries (an extraction that kept failing) are set aside in spool/failed/ for a person to look at. */
export function failEntries(state: VaultState, files: string[]): void {
  const dir = path.join(state.spool, 'failed');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const f of files) {
    try {
      fs.renameSync(f, path.join(dir, path.basename(f)));
    } catch {
      // gone already
    }
  }
}

/** Moves deferred entries older than `ageMs` back into the spool; returns how many. */
export function returnDeferred(state: VaultState, ageMs: number): number {
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
