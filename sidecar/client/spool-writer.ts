// Writes one hook event to the vault's spool durably: temp name, fsync, rename, directory fsync.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SPOOL_FORMAT = 1;

export interface SpoolEntry {
  format: number;
  event: string;
  sessionId: string;
  transcriptPath?: string;
  /** Transcript size when spooled: the job must cover at least this much (invariant 2). */
  transcriptBytes?: number;
  cwd?: string;
  project?: string;
  spooledAt: string;
  payload: unknown;
  /** Forces a backend for this entry (setup queues old transcripts with `rules` only). */
  backend?: 'rules';
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot fsync a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function spoolFileName(now = Date.now()): string {
  return `${String(now).padStart(14, '0')}-${process.pid}-${randomBytes(4).toString('hex')}.json`;
}

/** Returns the final path of the entry. */
export function writeSpoolEntry(spoolDir: string, entry: SpoolEntry): string {
  fs.mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  const name = spoolFileName();
  const tmp = path.join(spoolDir, `.${name}.tmp`);
  const final = path.join(spoolDir, name);
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(entry));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, final);
  fsyncDir(spoolDir);
  return final;
}
