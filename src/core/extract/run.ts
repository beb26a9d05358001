// What one extraction run takes and reports (shared by the session pipeline and the window caller).
import type { Ports } from '../ports.js';
import type { CapturePolicy } from '../capture/mode.js';
import type { PrivateZones } from '../note/private-zone.js';
import type { WindowActivity } from '../activity/record.js';
import type { Session } from '../transcript/types.js';
import type { LlmBackend } from './backends/types.js';
import type { DedupThresholds, SimilarNotes } from './dedup.js';
import type { PendingWindows } from './journal.js';
import type { EngramSourceKind, FolderConfig } from './note-writer.js';
import type { StateStore } from './state-store.js';
import type { BudgetConfig } from './usage.js';
import type { VaultCatalog } from './vault-catalog.js';
import type { Rejection } from './validate.js';
import type { ExtractWindowOptions } from './window.js';
import type { FaultHook, NoteOutcome } from './write-beats.js';

/** Why a window's call failed, as the runs log, the ledger and `engram status` say it. */
export interface WindowFailure {
  window: string;
  /** BackendError failure kind, or 'error' for anything else. */
  failure: string;
  reason: string;
  hint?: string;
  /** Requests the call made. */
  attempts: number;
  ms: number;
}

export interface ExtractSessionOptions {
  ports: Pick<Ports, 'vault' | 'clock'>;
  state: StateStore;
  /** `vaults/<key>` under $ENGRAM_HOME. */
  vaultDir: string;
  backend: LlmBackend;
  session: Session;
  source?: EngramSourceKind;
  /** Background runs stop when the day's budget is spent; foreground runs (a command the user typed) do not. */
  mode?: 'background' | 'foreground';
  dryRun?: boolean;
  maxBeats?: number;
  types?: readonly string[];
  folders?: FolderConfig;
  reviewDays?: number;
  budgets?: BudgetConfig;
  validatePass?: boolean;
  /** First wait before a background run retries a session whose windows failed (doubles per failure; 5 min). */
  retryBaseMs?: number;
  window?: ExtractWindowOptions;
  /** Dedup's similarity source; a word-overlap search over the vault by default. */
  similar?: (catalog: VaultCatalog) => SimilarNotes & { add?(path: string, text: string): void };
  dedup?: DedupThresholds;
  waitForGit?: () => Promise<void>;
  fault?: FaultHook;
  /** Progress: windows done of total. */
  onWindow?: (done: number, total: number) => void;
  vaultName?: string;
  /** A catalog loaded once for many sessions (an import); it learns the notes each run writes. */
  catalog?: VaultCatalog;
  /** Private zones (note/private-zone.ts): their notes' titles and tags are never named to the model. */
  privateZones?: PrivateZones;
  /** Write control (capture/mode.ts): beats written, held as proposals for review, or not captured. Default: all written. */
  capture?: CapturePolicy;
}

export interface ExtractRun {
  sessionId: string;
  backend: string;
  model: string;
  dryRun: boolean;
  skipped?: string;
  /** Why it was skipped, for code to act on (`skipped` is for people): `never` (nothing to extract), `busy` (another process holds the session: try later). */
  skippedKind?: 'never' | 'busy';
  windows: { total: number; replayed: number; called: number; notDone: number };
  /** `proposed`: held for review (capture.mode inbox); `notCaptured`: dropped by capture.mode off for their type. */
  beats: { extracted: number; rejected: number; created: number; extended: number; alreadyWritten: number; duplicates: number; proposed: number; notCaptured: number };
  notes: NoteOutcome[];
  rejected: (Rejection & { window: string })[];
  proposals: string[];
  tokens: { input: number; output: number };
  costUsd: number;
  llmMs: number;
  durationMs: number;
  budgetStopped?: string;
  errors: string[];
  /** Windows whose call failed: they stay pending (not in the ledger) and are retried by a later run. */
  failed: WindowFailure[];
  /** Each window's model call this run (backend, tokens, time, outcome), for the activity record. */
  calls?: WindowActivity[];
  /** The session's failure record after this run (set while windows are pending). */
  pending?: PendingWindows;
  /** A background run that did not call: the session's failed windows wait for their retry time. */
  waiting?: string;
  /** A dry run with an LLM backend calls nothing: what a real run would send. */
  wouldSend?: { windows: number; inputTokens: number };
}

