// Proposals are data: what would be written, removed and relinked, with the hashes of the notes they were
// made from. Nothing changes until one is applied; a proposal whose sources changed is refused as stale.
import { EngramError } from '../errors';
import { upgradeFormat, type FormatSpec } from '../format-version';
import { stableId } from '../hash';
import type { LinkEdit, SplitPart } from './link-rewrite';

export const PROPOSAL_FORMAT = 1;

export type ProposalFamily = 'review' | 'restructure' | 'maintain';
/** `capture`: a note capture found in a session, held for the user's approval (capture.mode inbox). */
export type ProposalKind = 'promote' | 'extend' | 'delete' | 'merge' | 'hub' | 'split' | 'archive' | 'resolve' | 'capture';

export interface SourceRef {
  path: string;
  /** sha256 of the note's text when the proposal was made. */
  hash: string;
}

export interface FileWrite {
  path: string;
  /** The exact text that will be written. */
  text: string;
  /** Replaces the note at `path` (a source, checked by hash); absent = a new note. */
  replaces?: boolean;
}

/** How links across the vault follow the change; recomputed when applied so links added since are caught. */
export type RedirectSpec =
  /** `sections`: [merged note, heading of the kept note that already holds its text]: a bare link lands there. */
  | { kind: 'move'; moves: Array<[string, string]>; renames?: MergeRename[]; sections?: Array<[string, string]> }
  | { kind: 'split'; original: string; rest: string; parts: SplitPart[] };

/** Headings and block ids of a merged note renamed in the merged text (they clashed): links to them follow. */
export interface MergeRename {
  path: string;
  /** [heading as written, new heading]. */
  headings: Array<[string, string]>;
  /** [block id, new block id]. */
  blocks: Array<[string, string]>;
}

export interface FileRewrite {
  path: string;
  edits: LinkEdit[];
}

export interface Proposal {
  format: number;
  id: string;
  family: ProposalFamily;
  kind: ProposalKind;
  /** One line for people: what it does. */
  title: string;
  /** Why it was proposed (similarity, size, due date, the model's reason). */
  reason: string;
  createdAt: string;
  expiresAt: string;
  sources: SourceRef[];
  writes: FileWrite[];
  /** Notes moved to the trash. */
  trash: string[];
  /** Notes moved elsewhere in the vault (archive): [from, to]. */
  moves: Array<[string, string]>;
  redirect: RedirectSpec | null;
  /** The link rewrites as computed when proposed (a preview; applying recomputes them). */
  linkRewrites: FileRewrite[];
  /** Notes whose links to a changed note are left as written (invalid YAML, locked), with why. */
  leftAlone?: Array<{ path: string; links: number; why: string }>;
  /** Backend that produced it (review), for the log. */
  backend?: string;
  appliedAt?: string;
  /** Set while the proposal is being applied (the journal); a crash leaves it, and the next apply finishes or undoes it. */
  applying?: ApplyJournal;
}

/**
 * One vault change of an apply, with the texts that tell whether it happened: every step can be checked,
 * redone and undone from the vault alone, so a crash at any point can be completed or rolled back.
 */
export type ApplyStep =
  | { op: 'create'; path: string; text: string }
  | { op: 'write'; path: string; before: string; after: string; relink?: LinkEdit[] }
  | { op: 'trash'; path: string; before: string }
  | { op: 'rename'; from: string; to: string; text: string };

export interface ApplyJournal {
  /** Epoch ms when the apply started; both log entries carry it, so a re-run writes the same lines. */
  startedAt: number;
  /** Who started the apply: a resumed apply (by a host at its start) logs the same lines under the same name. */
  actor?: string;
  steps: ApplyStep[];
}

export type ProposalDraft = Omit<Proposal, 'format' | 'id' | 'createdAt' | 'expiresAt'>;

/** Same sources and same plan give the same id, so a later dry run shows the id an earlier one printed. */
export function makeProposal(draft: ProposalDraft, now: number, days: number): Proposal {
  const id = stableId([
    draft.kind,
    ...draft.sources.map((s) => `${s.path}:${s.hash}`),
    ...draft.writes.map((w) => `${w.path}:${w.text.length}`),
    ...draft.trash,
    // A sync conflict's choices touch the same files: the choice (in the title) tells them apart.
    ...(draft.kind === 'resolve' ? [draft.title] : []),
  ], 12);
  return { format: PROPOSAL_FORMAT, id, createdAt: new Date(now).toISOString(), expiresAt: new Date(now + days * 86_400_000).toISOString(), ...draft };
}

/** Where proposals are kept between runs (`vaults/<key>/proposals/` for the Node host). */
export interface ProposalStore {
  save(p: Proposal): Promise<void>;
  load(id: string): Promise<Proposal | null>;
  list(): Promise<Proposal[]>;
  remove(id: string): Promise<void>;
}

export class MemoryProposalStore implements ProposalStore {
  private readonly items = new Map<string, string>();
  save(p: Proposal): Promise<void> {
    this.items.set(p.id, JSON.stringify(p));
    return Promise.resolve();
  }
  load(id: string): Promise<Proposal | null> {
    const s = this.items.get(id);
    return Promise.resolve(s === undefined ? null : checkProposal(JSON.parse(s) as unknown, id));
  }
  list(): Promise<Proposal[]> {
    return Promise.resolve([...this.items.values()].map((s) => JSON.parse(s) as Proposal));
  }
  remove(id: string): Promise<void> {
    this.items.delete(id);
    return Promise.resolve();
  }
}

/** Validates a stored proposal's envelope: format version, id, arrays. */
export function checkProposal(raw: unknown, where: string): Proposal {
  const spec: FormatSpec<Proposal> = {
    name: `proposal ${where}`,
    current: PROPOSAL_FORMAT,
    field: 'format',
    validate: (p) => {
      if (typeof p.id !== 'string' || !Array.isArray(p.sources) || !Array.isArray(p.writes) || !Array.isArray(p.trash)) {
        throw new EngramError('format-version', `proposal ${where} is damaged`, 'run the dry run again to make a new one');
      }
      return { moves: [], linkRewrites: [], redirect: null, ...p } as unknown as Proposal;
    },
  };
  return upgradeFormat(spec, raw).data;
}

export function isExpired(p: Proposal, now: number): boolean {
  return pastExpiry(p.expiresAt, now);
}

/** Whether a stored proposal of either kind (a plan's, or a possible duplicate extraction filed) is past its expiry. */
export function pastExpiry(expiresAt: string | undefined, now: number): boolean {
  return expiresAt !== undefined && Date.parse(expiresAt) <= now;
}

/** The one refusal of a proposal past its expiry. */
export function expiredProposal(id: string, expiresAt: string): EngramError {
  return new EngramError('refused', `proposal ${id} expired at ${expiresAt}`, 'run the dry run again for a fresh proposal');
}

/** The one refusal of a proposal whose note changed (`why`) since it was made: nothing is changed. */
export function staleProposal(path: string, why: string): EngramError {
  return new EngramError('refused', `proposal is stale: ${path} ${why} since it was made; nothing was changed`, 'run the dry run again for a fresh proposal');
}

/** Drops expired proposals from the store; returns how many. */
export async function pruneExpired(store: ProposalStore, now: number): Promise<number> {
  let n = 0;
  for (const p of await store.list()) {
    // An interrupted apply stays until it is finished or rolled back.
    if (p.applying === undefined && (isExpired(p, now) || p.appliedAt !== undefined)) {
      await store.remove(p.id);
      n++;
    }
  }
  return n;
}
