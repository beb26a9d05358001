// One name for every temp file Engram writes before an atomic rename (node/atomic-write.ts, the one writer):
// `.<name>.engram-tmp-<pid>-<8 hex>`, beside its target. The crash cleanup (at host start, and before an extraction)
// removes exactly that pattern, in $ENGRAM_HOME and in the vault, when the writer is gone; it never touches a file of
// the user's. Client-safe: no npm imports (hooks load it).
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { processAlive } from './election.js';

const TEMP_RE = /^\..+\.engram-tmp-(\d+)-[0-9a-f]{8}$/;
/** Names earlier versions used, removed in $ENGRAM_HOME only: `snapshot.<pid>.tmp`, `<state>.<pid>.<hex>.tmp`. */
const LEGACY_STATE_RE = /^.+\.(\d+)(?:\.[0-9a-f]{8})?\.tmp$/;
/** ... and beside notes (hidden files only: the user's own files are never matched): `.<note>.<pid>.<hex>.tmp`. */
const LEGACY_NOTE_RE = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;
/** A temp file older than this is a leftover even when its pid now belongs to some other live process. */
const STALE_MS = 24 * 3600_000;

/** The temp path for an atomic write of `target`. */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.engram-tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
}

export function isTempName(name: string): boolean {
  return TEMP_RE.test(name);
}

/** The pid that wrote a temp file of ours (current or legacy names), or undefined when the name is not ours. */
function tempOwner(name: string, legacy: 'state' | 'vault' | 'none' = 'none'): number | undefined {
  const m = TEMP_RE.exec(name) ?? (legacy === 'state' ? LEGACY_STATE_RE.exec(name) : legacy === 'vault' ? LEGACY_NOTE_RE.exec(name) : null);
  return m ? Number(m[1]) : undefined;
}

function leftover(full: string, owner: number, now: number): boolean {
  if (owner === process.pid) return false;
  if (!processAlive(owner)) return true;
  const st = fs.statSync(full, { throwIfNoEntry: false });
  return st !== undefined && now - st.mtimeMs > STALE_MS;
}

export interface CleanupTarget {
  dir: string;
  /** Which older names count as ours here. */
  legacy: 'state' | 'vault';
  /** How deep to go (0: this folder's files only). */
  maxDepth?: number;
}

/**
 * Removes temp files whose writer is gone (killed mid-write), walking each folder; dot folders (.git, .obsidian,
 * .trash) are not entered. Returns the removed paths.
 */
export async function removeTempLeftovers(targets: CleanupTarget[]): Promise<string[]> {
  const removed: string[] = [];
  const now = Date.now();
  const walk = async (dir: string, t: CleanupTarget, depth: number): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && depth < (t.maxDepth ?? 32)) await walk(full, t, depth + 1);
        continue;
      }
      if (!e.isFile()) continue;
      const owner = tempOwner(e.name, t.legacy);
      if (owner === undefined || !leftover(full, owner, now)) continue;
      try {
        await fsp.rm(full, { force: true });
        removed.push(full);
      } catch {
        // not ours to remove after all (permissions): left alone
      }
    }
  };
  for (const t of targets) await walk(t.dir, t, 0);
  return removed;
}
