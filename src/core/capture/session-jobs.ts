// Capture's policy: spooled hook events become one extraction job per session; a Stop re-queues only a session that
// grew enough since its last extraction; a job commits coverage first, then releases its events (a crash in between
// means a harmless redo, never a loss). The host supplies the ports: transcripts on disk, coverage, the spool.
import { errorMessage } from '../errors.js';
import type { Job } from '../jobs/queue.js';
import type { ActivityInput, BeatActivity, WindowActivity } from '../activity/record.js';

export interface SessionJobData {
  sessionId: string;
  transcriptPath?: string;
  /** The job must cover at least this many bytes of the transcript. */
  minBytes: number;
  /** PreCompact, SessionEnd and explicit requests always run; Stop alone only when the session grew enough. */
  force: boolean;
  /** The spool entries this job answers for (released when it is done, set aside when it keeps failing). */
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

/** What a spooled hook event says (the spool entry's fields the policy reads). */
export interface SpooledEvent {
  event: string;
  sessionId: string;
  transcriptPath?: string;
  transcriptBytes?: number;
  project?: string;
  cwd?: string;
  backend?: 'rules';
}

/** The job a spooled event asks for: every event but Stop forces an extraction. */
export function jobForEvent(e: SpooledEvent, file: string): Job<SessionJobData> {
  return {
    key: jobKey(e.sessionId, e.backend),
    data: { sessionId: e.sessionId, backend: e.backend, transcriptPath: e.transcriptPath, minBytes: e.transcriptBytes ?? 0, force: e.event !== 'Stop', files: [file], project: e.project, cwd: e.cwd },
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
  /** For the activity record: the transcript's agent, each window's call, and the beats filed or proposed. */
  agent?: string;
  windows?: WindowActivity[];
  beats?: BeatActivity[];
  /** Notes injected into the session that its assistant text names; secrets redacted in the transcript, by kind. */
  cited?: string[];
  redactions?: Record<string, number>;
}

export type TranscriptExtractor = (req: ExtractRequest) => Promise<ExtractOutcome>;

/** How far a session was extracted (capture's part of the extractor's ledger, src/core/extract/journal.ts). */
export interface SessionCoverage {
  bytes: number;
  records: number;
  transcriptPath: string;
  at: string;
  notes: number;
}

export interface RunRecord {
  sessionId: string;
  at: string;
  outcome: string;
  notes: number;
  bytes: number;
}

/** Coverage and runs by job key; the host keeps them in the extractor's ledger, which another process may change too. */
export interface CoveragePort {
  get(key: string): Promise<SessionCoverage | undefined>;
  /** One durable change: the new coverage (undefined when nothing was extracted) with the run. */
  record(key: string, coverage: SessionCoverage | undefined, run: RunRecord): Promise<void>;
}

/** Transcripts as the host sees them. */
export interface TranscriptPort {
  /** The transcript's real path when it is one the host may read (the agents' folders, configured ones); else undefined. */
  allowed(path: string): string | undefined;
  size(path: string): number;
  /** Records (lines) between two byte offsets. */
  countRecords(path: string, from: number, to: number): number;
  /** One of Engram's own nested calls (its first user message opens with Engram's prompt marker). */
  isEngramOwn(path: string): Promise<boolean>;
}

/** The spool entries of a job. */
export interface SpoolPort {
  /** Done with them: remove. */
  release(files: string[]): void;
  /** Not now (budget, backoff): back for later, at `retryAt` when given. */
  defer(files: string[], retryAt?: string): void;
}

export interface SessionJobPorts {
  coverage: CoveragePort;
  transcripts: TranscriptPort;
  spool: SpoolPort;
  extractor: TranscriptExtractor;
  thresholds: () => { turns: number; bytes: number };
  log: (level: 'info' | 'warn' | 'error', msg: string) => void;
  now?: () => number;
  /** Awaited inside the job before it extracts (the host's option: tests hold a job in flight to kill or race). */
  hold?: () => Promise<void>;
  /** The activity record (src/core/activity/record.ts): events seen, extractions, failures. */
  activity?: (entry: ActivityInput) => void;
}

export function makeSessionJobRunner(ports: SessionJobPorts): (job: Job<SessionJobData>) => Promise<void> {
  const now = () => new Date(ports.now?.() ?? Date.now()).toISOString();
  return async ({ data }) => {
    const key = jobKey(data.sessionId, data.backend);
    const noted = (r: ExtractOutcome) =>
      ports.activity?.({ kind: 'extract', session: data.sessionId, project: data.project, agent: r.agent, outcome: r.outcome ?? (r.deferred ? 'deferred' : 'extracted'), notes: r.notes, windows: r.windows ?? [], beats: r.beats ?? [], ...(r.deferred ? { deferred: true } : {}), ...(r.cited?.length ? { cited: r.cited } : {}), ...(r.redactions ? { redactions: r.redactions } : {}) });
    const done = async (outcome: string, notes = 0, bytes = 0) => {
      ports.activity?.({ kind: 'extract', session: data.sessionId, project: data.project, outcome, notes, windows: [], beats: [] });
      await ports.coverage.record(key, undefined, { sessionId: key, at: now(), outcome, notes, bytes });
      ports.spool.release(data.files);
      ports.log('info', `session ${key}: ${outcome}`);
    };
    if (!data.transcriptPath) return done('no transcript path in the hook payload');
    const file = ports.transcripts.allowed(data.transcriptPath);
    if (!file) return done(`transcript refused (outside the agent folders or missing): ${data.transcriptPath}`);
    const size = ports.transcripts.size(file);
    const covered = (await ports.coverage.get(key))?.bytes ?? 0;
    if (size <= covered && data.minBytes <= covered) return done('already covered');
    if (await ports.transcripts.isEngramOwn(file)) return done('skipped: Engram\'s own nested session');
    if (!data.force) {
      const t = ports.thresholds();
      const grewBytes = size - covered;
      const grewTurns = ports.transcripts.countRecords(file, covered, size);
      if (grewBytes < t.bytes && grewTurns < t.turns) return done(`skipped: grew ${grewTurns} records / ${grewBytes} bytes since last extraction`);
    }
    await ports.hold?.();
    let result: ExtractOutcome;
    try {
      result = await ports.extractor({ sessionId: data.sessionId, transcriptPath: file, project: data.project, cwd: data.cwd, fromBytes: covered, backend: data.backend });
    } catch (e) {
      // Leave the entries claimed: a restarted host returns them to the spool and retries.
      ports.log('error', `session ${data.sessionId}: extraction failed: ${errorMessage(e)}`);
      throw e;
    }
    noted(result);
    if (result.deferred) {
      // The events are set aside for later before the run is recorded: whoever reads the run finds them kept.
      ports.spool.defer(data.files, result.retryAt);
      await ports.coverage.record(key, undefined, { sessionId: key, at: now(), outcome: result.outcome ?? 'deferred', notes: result.notes, bytes: covered });
      ports.log('info', `session ${key}: ${result.outcome ?? 'deferred'}; retried later`);
      return;
    }
    const records = ports.transcripts.countRecords(file, 0, size);
    await ports.coverage.record(
      key,
      { bytes: size, records, transcriptPath: file, at: now(), notes: result.notes },
      { sessionId: key, at: now(), outcome: result.outcome ?? 'extracted', notes: result.notes, bytes: size },
    );
    ports.spool.release(data.files);
    ports.log('info', `session ${data.sessionId}: extracted up to ${size} bytes, ${result.notes} notes`);
  };
}
