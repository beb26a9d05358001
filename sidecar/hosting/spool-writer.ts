// Writes one hook event to the vault's spool durably (node/atomic-write.ts), and records events that could not be.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFileSync } from './atomic-write.js';

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

export function spoolFileName(now = Date.now()): string {
  return `${String(now).padStart(14, '0')}-${process.pid}-${randomBytes(4).toString('hex')}.json`;
}

/** Returns the final path of the entry. A write that fails (a full disk) leaves no temp file behind. */
export function writeSpoolEntry(spoolDir: string, entry: SpoolEntry): string {
  fs.mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  const name = spoolFileName();
  const final = path.join(spoolDir, name);
  atomicWriteFileSync(final, JSON.stringify(entry), { mode: 0o600 });
  return final;
}

/** Hook events that could not be spooled (a full disk): one marker file each, which `status` and `doctor` show. */
export const LOST_PREFIX = 'lost-event-';

export interface LostEvent {
  file: string;
  at: string;
  event: string;
  code: string;
  sessionId?: string;
  message?: string;
}

/**
 * Records that a hook event was lost. The marker's name alone carries when, which event and why, so that it says
 * something even where not one byte more fits: creating an empty file needs no data block. Returns where it went.
 */
export function recordLostEvent(dirs: string[], info: { event: string; sessionId: string; error: unknown }): string | undefined {
  const code = ((info.error as NodeJS.ErrnoException)?.code ?? 'ERROR').replace(/[^A-Z0-9_]/gi, '');
  const name = `${LOST_PREFIX}${Date.now()}-${info.event.replace(/[^A-Za-z]/g, '')}-${code}-${process.pid}.json`;
  for (const dir of dirs) {
    const file = path.join(dir, name);
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx', 0o600);
    } catch {
      continue;
    }
    try {
      fs.writeSync(fd, JSON.stringify({ sessionId: info.sessionId, message: (info.error as Error)?.message ?? String(info.error) }));
    } catch {
      // the name says enough
    } finally {
      fs.closeSync(fd);
    }
    return file;
  }
  return undefined;
}

/** The lost-event markers in these folders, oldest first. */
export function listLostEvents(dirs: string[]): LostEvent[] {
  const out: LostEvent[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      const m = /^lost-event-(\d+)-([A-Za-z]*)-([A-Z0-9_]*)-\d+\.json$/i.exec(n);
      if (!m) continue;
      const file = path.join(dir, n);
      let extra: { sessionId?: string; message?: string } = {};
      try {
        extra = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof extra;
      } catch {
        // empty: written on a full disk
      }
      out.push({ file, at: new Date(Number(m[1])).toISOString(), event: m[2], code: m[3], sessionId: extra.sessionId, message: extra.message });
    }
  }
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** What a lost event's error code means for a person. */
export function lossCause(code: string): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'the disk holding $ENGRAM_HOME was full';
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return '$ENGRAM_HOME was not writable';
  return `the spool write failed (${code})`;
}
