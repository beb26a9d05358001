// What a running daemon is to its protocol handlers (sidecar/host/handlers.ts): its vault, engine, capture and hooks.
import type { Curation } from '../../src/core/curate/service.js';
import type { Engine } from '../../src/core/engine.js';
import type { Capture } from '../../src/core/capture/capture.js';
import type { VaultState } from '../node/paths.js';
import type { CoverageStore } from './coverage.js';
import type { Logger } from './logger.js';

export interface RunningHost {
  state: VaultState;
  engine: Engine;
  /** Spooled events to extraction jobs, and the clients' commands run in turn with them. */
  capture: Capture;
  coverage: CoverageStore;
  /** Curation for this vault: forget (archive, logged) and recall statistics. */
  curation: Curation;
  startedAt: number;
  idleMs: number;
  log: Logger;
  drain(): void;
  shutdown(reason: string): Promise<void>;
}
