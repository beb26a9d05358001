// What a host gives the engine: its ports, configuration, index, log and the services it composes.
import type { Ports } from '../ports.js';
import type { StateStore } from '../extract/state-store.js';
import type { CurationOptions } from '../curate/service.js';
import type { CapturePorts } from '../capture/capture.js';
import type { ActivityRecord } from '../activity/record.js';
import { DEFAULT_GATE, type GateConfig } from '../recall/gate.js';
import { DEFAULT_TRUST, type TrustConfig } from '../recall/trust.js';
import { NO_PRIVATE_ZONES, type PrivateZones } from '../note/private-zone.js';
import type { EngineIndex, EngineLog } from './index-port.js';

export interface EngineConfig {
  /** `log`: Engram's change log (who moved what); like the archive, never recalled unless asked for by folder. */
  folders: { inbox: string; projects: string; working: string; archive: string; log: string };
  gate: GateConfig;
  /** Folders the engine ignores: the host passes the vault's config folder (Vault#configDir) and trash. */
  ignore: string[];
  /** Which folders hold outside text, which the user's own (recall/trust.ts). */
  trust: TrustConfig;
  /** Folders and tags never injected nor given to agents (note/private-zone.ts). */
  privateZones: PrivateZones;
}

/** A note a hook would have injected but held back, as the activity record shows it. */
export interface Withheld {
  event: 'SessionStart' | 'UserPromptSubmit';
  path: string;
  /** The passage that matched, when the note is held back for that passage only. */
  heading?: string;
  reason: string;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  folders: { inbox: 'Engram/Inbox', projects: 'Engram/Projects', working: 'Engram/Working memory', archive: 'Engram/Archive', log: 'Engram/Log' },
  gate: DEFAULT_GATE,
  ignore: ['.trash', '.git'],
  trust: DEFAULT_TRUST,
  privateZones: NO_PRIVATE_ZONES,
};


export interface EngineOptions {
  ports: Ports;
  config?: Partial<EngineConfig>;
  index?: EngineIndex;
  log?: EngineLog;
  /** Told of each note a hook held back (outside text, words addressed to an AI): the activity record's feed. */
  onWithheld?: (w: Withheld) => void;
  /**
   * Curation for this vault (review, restructure, maintain, apply, forget): the host's state store, settings and
   * backend; the engine gives it the vault, the clock and its index's vectors. Without it forget is unavailable.
   */
  curation?: Omit<CurationOptions, 'vault' | 'clock' | 'yieldNow' | 'vectors'>;
  /** Capture (spooled hook events to extraction jobs) over the host's spool, transcript and coverage ports. */
  capture?: CapturePorts;
  /**
   * Where the engine keeps what must outlive a restart, in the host's state store under `dir` (the daemon:
   * vaults/<key>): which notes each session was given (injected.json: a restarted host still never injects a note
   * twice), and each note's metadata and terms (notes.json: a restart reads only the notes that changed).
   */
  persist?: { store: StateStore; dir: string };
  /** The activity record (src/core/activity/record.ts): every injection, with what was withheld and why. */
  activity?: ActivityRecord;
}
