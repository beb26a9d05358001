// How far each session has been extracted (bytes and records), so Stop re-queues only sessions that grew and a
// spooled event is satisfied once its transcript size is covered. It lives in the extractor's ledger
// (src/core/extract/journal.ts), read and changed only through its JobStore: one file, one format, one lock.
import fs from 'node:fs';
import { JobStore } from '../../src/core/extract/journal.js';
import type { CoveragePort, RunRecord, SessionCoverage } from '../../src/core/capture/session-jobs.js';
import { NodeStateStore } from './node-state-store.js';

/** Capture's coverage port (src/core/capture/session-jobs.ts) over the vault's ledger under $ENGRAM_HOME. */
export class CoverageStore implements CoveragePort {
  private readonly jobs: JobStore;

  constructor(engramHome: string, vaultKey: string) {
    this.jobs = new JobStore(new NodeStateStore(engramHome), `vaults/${vaultKey}`);
  }

  get(key: string): Promise<SessionCoverage | undefined> {
    return this.jobs.captured(key);
  }

  runs(): Promise<RunRecord[]> {
    return this.jobs.recentRuns();
  }

  record(key: string, coverage: SessionCoverage | undefined, run: RunRecord): Promise<void> {
    return this.jobs.recordCapture(key, coverage, run);
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
