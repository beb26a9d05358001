// How far each session has been extracted (bytes and records), so Stop re-queues only sessions that grew and a
// spooled event is satisfied once its transcript size is covered.
import fs from 'node:fs';
import { EngramError } from '../../src/core/errors.js';
import { atomicWriteFileSync } from '../node/atomic-write.js';
import type { CoveragePort, RunRecord, SessionCoverage } from '../../src/core/capture/session-jobs.js';

export const COVERAGE_FORMAT = 1;

interface CoverageFile {
  format: number;
  sessions: Record<string, SessionCoverage>;
  runs: RunRecord[];
}

/** sessions.json: capture's coverage port (src/core/capture/session-jobs.ts) on disk. */
export class CoverageStore implements CoveragePort {
  private data: CoverageFile = { format: COVERAGE_FORMAT, sessions: {}, runs: [] };

  constructor(private readonly file: string) {
    try {
      const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as CoverageFile;
      if (raw.format > COVERAGE_FORMAT) {
        throw new EngramError('format-version', `${file} has format ${raw.format}, newer than this engram`, 'update engram');
      }
      this.data = { format: COVERAGE_FORMAT, sessions: raw.sessions ?? {}, runs: raw.runs ?? [] };
    } catch (e) {
      if (e instanceof EngramError) throw e;
    }
  }

  get(sessionId: string): SessionCoverage | undefined {
    return this.data.sessions[sessionId];
  }

  runs(): RunRecord[] {
    return this.data.runs;
  }

  record(sessionId: string, cov: SessionCoverage | undefined, run: RunRecord): void {
    if (cov) this.data.sessions[sessionId] = cov;
    this.data.runs.push(run);
    if (this.data.runs.length > 50) this.data.runs.splice(0, this.data.runs.length - 50);
    this.save();
  }

  private save(): void {
    atomicWriteFileSync(this.file, JSON.stringify(this.data), { mode: 0o600 });
  }
}

/** Counts conversation records (user/assistant lines) in a byte range of a JSONL transcript. */
export function countRecords(file: string, from: number, to: number): number {
  if (to <= from) return 0;
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(to - from, 64 * 1024 * 1024));
    fs.readSync(fd, buf, 0, buf.length, from);
    const text = buf.toString('utf8');
    return (text.match(/"type"\s*:\s*"(user|assistant)"/g) ?? []).length;
  } finally {
    fs.closeSync(fd);
  }
}
