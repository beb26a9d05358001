// Turns claimed spool entries into extraction jobs, one per session, and commits them: coverage first, then the
// spool entries are deleted (a crash in between means a harmless redo, never a loss).
import fs from 'node:fs';
import { errorMessage } from '../../src/core/errors.js';
import type { Job } from '../../src/core/jobs/queue.js';
import { CoverageStore, countRecords } from './coverage.js';
import { releaseEntries } from './spool.js';
import { allowedTranscript } from '../node/transcript-roots.js';
import { isEngramOwnTranscript } from '../node/transcript-files.js';

export interface SessionJobData {
  sessionId: string;
  transcriptPath?: string;
  /** The job must cover at least this many bytes of the transcript. */
  minBytes: number;
  /** PreCompact, SessionEnd and explicit requests always run; Stop alone only when the session grew enough. */
  force: boolean;
  files: string[];
  project?: string;
  cwd?: string;
  /** A forced backend (setup's `rules` backlog pass); coverage is kept apart from the configured backend's. */
  backend?: 'rules';
  /** A command a client asked the host to run in turn with extraction jobs (`engram extract`); settles itself. */
  task?: () => Promise<void>;
}

/** Queue and coverage key: a forced-backend pass never counts as the configured backend's extraction. */
export function jobKey(sessionId: string, backend?: string): string {
  return backend ? `${backend}:${sessionId}` : sessionId;
}

export function mergeJobs(a: SessionJobData, b: SessionJobData): SessionJobData {
  return {
    sessionId: a.sessionId,
    transcriptPath: b.transcriptPath ?? a.transcriptPath,
    minBytes: Math.max(a.minBytes, b.minBytes),
    force: a.force || b.force,
    files: [...a.files, ...b.files],
    project: b.project ?? a.project,
    cwd: b.cwd ?? a.cwd,
    backend: a.backend ?? b.backend,
  };
}

export interface ExtractRequest {
  sessionId: string;
  transcriptPath: string;
  project?: string;
  cwd?: string;
  /** Bytes already covered by earlier runs (a hint; the extractor's ledger is the authority). */
  fromBytes: number;
  backend?: 'rules';
}

export interface ExtractOutcome {
  notes: number;
  outcome?: string;
  /** Not done yet for a reason that passes (budget spent, session busy elsewhere): keep the events for later. */
  deferred?: boolean;
  /** When a deferred session is due again (a failed LLM call's backoff); else the host's usual wait. */
  retryAt?: string;
}

export type TranscriptExtractor = (req: ExtractRequest) => Promise<ExtractOutcome>;

export interface SessionJobDeps {
  coverage: CoverageStore;
  roots: () => string[];
  extractor: TranscriptExtractor;
  thresholds: () => { turns: number; bytes: number };
  log: (level: 'info' | 'warn' | 'error', msg: string) => void;
  /** Test hook: stay inside the job this long before committing (to kill a host mid-job). */
  delayMs?: number;
  /** Sets spool entries aside to be retried later (deferred jobs). */
  defer: (files: string[], retryAt?: string) => void;
}

export function makeSessionJobRunner(deps: SessionJobDeps): (job: Job<SessionJobData>) => Promise<void> {
  return async ({ data }) => {
    const key = jobKey(data.sessionId, data.backend);
    const done = (outcome: string, notes = 0, bytes = 0) => {
      deps.coverage.record(key, undefined, { sessionId: key, at: new Date().toISOString(), outcome, notes, bytes });
      releaseEntries(data.files);
      deps.log('info', `session ${key}: ${outcome}`);
    };
    if (!data.transcriptPath) return done('no transcript path in the hook payload');
    const file = allowedTranscript(data.transcriptPath, deps.roots());
    if (!file) return done(`transcript refused (outside the agent folders or missing): ${data.transcriptPath}`);
    const size = fs.statSync(file).size;
    const covered = deps.coverage.get(key)?.bytes ?? 0;
    if (size <= covered && data.minBytes <= covered) return done('already covered');
    // The same test the transcript listers apply: its first user message opens with Engram's prompt marker.
    if (await isEngramOwnTranscript(file)) return done('skipped: Engram\'s own nested session');
    if (!data.force) {
      const t = deps.thresholds();
      const grewBytes = size - covered;
      const grewTurns = countRecords(file, covered, size);
      if (grewBytes < t.bytes && grewTurns < t.turns) return done(`skipped: grew ${grewTurns} records / ${grewBytes} bytes since last extraction`);
    }
    if (deps.delayMs) await new Promise((r) => setTimeout(r, deps.delayMs));
    let result: ExtractOutcome;
    try {
      result = await deps.extractor({ sessionId: data.sessionId, transcriptPath: file, project: data.project, cwd: data.cwd, fromBytes: covered, backend: data.backend });
    } catch (e) {
      // Leave the entries claimed: a restarted host returns them to the spool and retries.
      deps.log('error', `session ${data.sessionId}: extraction failed: ${errorMessage(e)}`);
      throw e;
    }
    if (result.deferred) {
      deps.coverage.record(key, undefined, { sessionId: key, at: new Date().toISOString(), outcome: result.outcome ?? 'deferred', notes: result.notes, bytes: covered });
      deps.defer(data.files, result.retryAt);
      deps.log('info', `session ${key}: ${result.outcome ?? 'deferred'}; retried later`);
      return;
    }
    const records = countRecords(file, 0, size);
    deps.coverage.record(
      key,
      { bytes: size, records, transcriptPath: file, at: new Date().toISOString(), notes: result.notes },
      { sessionId: key, at: new Date().toISOString(), outcome: result.outcome ?? 'extracted', notes: result.notes, bytes: size },
    );
    releaseEntries(data.files);
    deps.log('info', `session ${data.sessionId}: extracted up to ${size} bytes, ${result.notes} notes`);
  };
}
