// What a running daemon is to its protocol handlers (sidecar/host/handlers.ts): its vault, engine, queue and hooks.
import type { Curation } from '../../src/core/curate/service.js';
import type { Engine } from '../../src/core/engine.js';
import type { JobQueue } from '../../src/core/jobs/queue.js';
import type { VaultState } from '../node/paths.js';
import type { CoverageStore } from './coverage.js';
import type { Logger } from './logger.js';
import type { SessionJobData } from '../../src/core/capture/session-jobs.js';

export interface RunningHost {
  state: VaultState;
  engine: Engine;
  queue: JobQueue<SessionJobData>;
  coverage: CoverageStore;
  /** Curation for this vault: forget (archive, logged) and recall statistics. */
  curation: Curation;
  startedAt: number;
  idleMs: number;
  log: Logger;
  drain(): void;
  shutdown(reason: string): Promise<void>;
}
