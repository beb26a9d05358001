// What a running host (the daemon, the Obsidian plugin or the CLI's in-process host) is to its protocol handlers (sidecar/hosting/handlers.ts):
// its vault, engine, capture and lifecycle.
import type { Curation } from '../../src/core/curate/service.js';
import type { Engine } from '../../src/core/engine.js';
import type { VaultPort } from '../../src/core/ports.js';
import type { Capture } from '../../src/core/capture/capture.js';
import type { VaultState } from './paths.js';
import type { CoverageStore } from './coverage.js';
import type { Logger } from './logger.js';
import type { FaultHit } from './fault.js';
import type { ConfigReader } from './config-file.js';

export type HostKind = 'daemon' | 'plugin';

export interface RunningHost {
  /** `cli`: the CLI's in-process host, opened for one command while no host is live (in-process.ts). */
  kind: HostKind | 'cli';
  state: VaultState;
  /** The vault as this host writes it (the fs adapter, or Obsidian's API in the plugin). */
  vault: VaultPort;
  engine: Engine;
  /** Spooled events to extraction jobs, and the clients' commands run in turn with them. */
  capture: Capture;
  coverage: CoverageStore;
  /** Curation for this vault: forget (archive, logged) and recall statistics. */
  curation: Curation;
  startedAt: number;
  /** The daemon exits after this long without a request; the plugin host stays while Obsidian is open. */
  idleMs?: number;
  log: Logger;
  /** The configuration as it is now, handed in by the entry point that opened this host (read at each use). */
  config: ConfigReader;
  /** The crash switch this host read at its start (ENGRAM_FAULT): one count per point among its writes. */
  fault: FaultHit;
  drain(): void;
  /** Saves the index and the engine's state (the CLI's own host: Ctrl-C lets a save under way finish); default engine.save(). */
  save?(): Promise<void>;
  shutdown(reason: string): Promise<void>;
}
