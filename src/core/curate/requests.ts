// What curation is asked and what it answers: the requests and results of review, restructure, maintain, apply and
// forget (the protocol's results are these).
import type { BackendName } from '../config';
import type { ApplyResult } from './apply';
import type { SyncConflict } from './conflicts';
import type { DuplicateRecord } from './duplicates';
import type { StaleNote } from './maintain';
import type { Proposal } from './proposals';
import type { DueNote } from './review';

/** Who acts, for the vault's Engram log (`cli`, `mcp`, `plugin`). */
export interface Actor {
  actor?: string;
}

export interface ReviewRequest extends Actor {
  /** Notes due on or before today plus this many days (default 7). */
  dueWithinDays?: number;
  /** Backend for this plan (default: the configured one). */
  backend?: BackendName;
}

export interface ReviewPlanResult {
  horizonDays: number;
  due: DueNote[];
  groups: string[][];
  proposals: Proposal[];
  problems: string[];
  /** Copies a sync tool left beside notes, each with its proposals (keep mine, keep theirs, merge both). */
  conflicts: SyncConflict[];
}

export interface RestructureRequest extends Actor {
  folder?: string;
  /** Similarity for merge candidates (0..1; default the settings' 0.88). */
  threshold?: number;
  /** Backend that writes each merge as one note, grounded in the notes (only when asked: a plan calls no model by default). */
  backend?: BackendName;
}

export interface RestructurePlanResult {
  /** What "close in meaning" was measured with. */
  vectors: string;
  pairsCompared: number;
  notesConsidered: number;
  ms: number;
  proposals: Proposal[];
  /** Possible duplicates extraction recorded; applying one merges the notes. */
  duplicates: DuplicateRecord[];
  /** Proposals left out because the user rejected them and their notes have not changed since. */
  rejected?: number;
}

export interface MaintainRequest extends Actor {
  /** Move the notes past forget_after into the archive (else only list them). */
  apply?: boolean;
  staleDays?: number;
}

export interface MaintainResult {
  staleDays: number;
  archive: Array<{ id: string; from: string; to: string; reason: string }>;
  /** Applied moves, `from → to`. */
  applied: string[];
  failed: string[];
  stale: StaleNote[];
  orphans: string[];
  duplicates: Array<{ why: string; notes: string[] }>;
}

export interface ApplyOutcome {
  id: string;
  ok: boolean;
  error?: string;
  result?: Omit<ApplyResult, 'proposal'> & { kind: string; title: string };
}

/** The user's own text for a note a proposal creates (a promotion edited before approving). */
export interface ProposalEdit {
  id: string;
  path: string;
  text: string;
}

/** Wraps one apply (the CLI lets an apply under way finish on Ctrl-C, and says which ids were left). */
export type ApplyGuard = (id: string, later: string[], run: () => Promise<ApplyResult>) => Promise<ApplyResult>;

export interface ForgetResult {
  path: string;
  archivedTo: string;
  relinked: string[];
  log: string;
}
