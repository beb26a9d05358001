// Capture, composed: spooled hook events in, one extraction job per session through the queue, the retry policy
// (back to the spool, then set aside with the cause after three failures in a row), commits by the session-job
// policy. A host supplies the ports (the spool and transcripts on its disk, coverage, the extractor) and nudges it.
import { errorMessage } from '../errors.js';
import { JobQueue, type QueueStats } from '../jobs/queue.js';
import { jobForEvent, makeSessionJobRunner, mergeJobs, type SessionJobData, type SessionJobPorts, type SpooledEvent, type SpoolPort } from './session-jobs.js';
import { clientOfTranscript } from '../transcript/client.js';

/** The spool as capture takes events from it. */
export interface CaptureSpool extends SpoolPort {
  /** Takes every waiting event (the host moves it to its claimed folder). */
  claim(): Array<{ file: string; event: SpooledEvent }>;
  /** Puts a failed job's events back, to be retried on a later drain. */
  unclaim(files: string[]): void;
  /** Sets a job's events aside after repeated failures, with why (the host says how to fix it). */
  setAside(files: string[], error: unknown): string;
  /**
   * Housekeeping before a drain: events deferred until now, and set-aside events whose cause is gone, come back to
   * the spool. Returns what to say about it (nothing when nothing came back).
   */
  restore(): string[];
  /** Events waiting or claimed. */
  depth(): number;
}

export interface CapturePorts extends Omit<SessionJobPorts, 'spool'> {
  spool: CaptureSpool;
  /** Failures in a row after which a session's events are set aside (default 3). */
  giveUpAfter?: number;
}

export class Capture {
  readonly queue: JobQueue<SessionJobData>;

  constructor(private readonly ports: CapturePorts) {
    const runner = makeSessionJobRunner(ports);
    this.queue = new JobQueue<SessionJobData>((job) => (job.data.task ? job.data.task() : runner(job)), mergeJobs, {
      giveUpAfter: ports.giveUpAfter ?? 3,
      retry: (job, e) => {
        ports.activity?.({ kind: 'failure', session: job.data.sessionId, project: job.data.project, what: `capture job ${job.key}`, error: errorMessage(e), next: 'retry' });
        ports.spool.unclaim(job.data.files);
        ports.log('error', `job ${job.key} failed: ${errorMessage(e)}; retried on the next sweep`);
      },
      giveUp: (job, e, n) => {
        ports.activity?.({ kind: 'failure', session: job.data.sessionId, project: job.data.project, what: `capture job ${job.key} (failed ${n} times)`, error: errorMessage(e), next: 'set aside' });
        const where = ports.spool.setAside(job.data.files, e);
        ports.log('error', `job ${job.key} failed ${n} times (${errorMessage(e)}); ${where}`);
      },
    });
  }

  /** The periodic sweep: deferred and set-aside events whose time has come go back, then the spool is drained. */
  sweep(): void {
    for (const line of this.ports.spool.restore()) this.ports.log('info', line);
    if (this.ports.spool.depth()) this.drain();
  }

  /** Turns every waiting event into its session's job (twenty hooks for one session make one extraction). */
  drain(): void {
    for (const c of this.ports.spool.claim()) {
      const agent = clientOfTranscript(c.event.transcriptPath);
      this.ports.activity?.({ kind: 'event', event: c.event.event, session: c.event.sessionId, project: c.event.project, ...(agent ? { agent } : {}) });
      const job = jobForEvent(c.event, c.file);
      this.queue.push(job.key, job.data);
    }
  }

  /** An explicit request for one transcript (MCP `extract`): extracted whatever its growth. */
  request(sessionId: string, transcriptPath: string): void {
    this.queue.push(sessionId, { sessionId, transcriptPath, minBytes: 0, force: true, files: [] });
  }

  /** Runs a client's command in turn with the extraction jobs (never beside them). */
  runInTurn(id: string, task: () => Promise<void>): void {
    this.queue.push(id, { sessionId: id, minBytes: 0, force: true, files: [], task });
  }

  stats(): QueueStats {
    return this.queue.stats();
  }

  get busy(): boolean {
    return this.queue.busy || this.queue.stats().pending > 0;
  }
}
