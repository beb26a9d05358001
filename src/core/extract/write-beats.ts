// Writes one journalled window's beats into the vault: skips ids already there (a replay), dedups, links
// only to notes that exist, and records possible duplicates as proposals. Waits while git is busy.
import { isEngramError } from '../errors.js';
import { sha256Hex, stableId } from '../hash.js';
import type { VaultPort } from '../ports.js';
import type { Beat } from './beat.js';
import { decide, beatText, type DedupThresholds, type SimilarNotes } from './dedup.js';
import type { JournalEntry } from './journal.js';
import { uniqueNotePath } from '../note/filename.js';
import { editFrontmatter } from '../note/frontmatter-edit.js';
import { createNoteUnique, isoWithOffset } from '../note/write-beat.js';
import { beatFolder, renderExtension, renderNote, type FolderConfig, type Provenance } from './note-writer.js';
import type { StateStore } from './state-store.js';
import type { VaultCatalog } from './vault-catalog.js';
import type { SessionMeta } from '../transcript/types.js';
import { captureModeFor, type CapturePolicy } from '../capture/mode.js';
import { makeProposal } from '../curate/proposals.js';
import { StateProposalStore } from '../curate/stores.js';

/** How long a held beat waits for the user's decision (proposals expire; a held beat should not, in practice). */
const INBOX_DAYS = 3650;

/** `proposed`: held as a proposal for review (capture.mode inbox); `not-captured`: its type's capture is off. */
export type NoteAction = 'created' | 'extended' | 'already-written' | 'duplicate-skipped' | 'proposed' | 'not-captured';

export interface NoteOutcome {
  action: NoteAction;
  path: string;
  title: string;
  type: string;
  engramId: string;
  /** Set when a possible-duplicate proposal was recorded, or the beat is held as a proposal (`proposed`). */
  proposal?: string;
}

export type FaultHook = (point: 'after-journal' | 'after-note' | 'before-ledger', count: number) => void;

export interface WriteContext {
  vault: VaultPort;
  state: StateStore;
  vaultDir: string;
  catalog: VaultCatalog;
  similar: SimilarNotes & { add?(path: string, text: string): void };
  meta: SessionMeta;
  source: Provenance['source'];
  folders: FolderConfig;
  reviewDays: number;
  dedup?: DedupThresholds;
  now: () => number;
  dryRun: boolean;
  fault?: FaultHook;
  /** Resolves when the vault's git is not busy (no index.lock, no rebase). */
  waitForGit?: () => Promise<void>;
  notesWritten: number;
  /** Write control: beats written (default), held as proposals, or not captured (capture/mode.ts). */
  capture?: CapturePolicy;
}

/**
 * engram_id = hash(session id, window range, beat index); a part of a split turn adds its part number to the range.
 * An LLM backend's beats add 'llm', so that they never pass for the `rules` beats of the same window (setup's offline
 * pass) and are written or deduplicated on their own merits.
 */
export function beatId(entry: Pick<JournalEntry, 'sessionId' | 'firstUuid' | 'lastUuid' | 'part'> & { backend?: string }, index: number): string {
  const range = entry.part ? [entry.firstUuid, entry.lastUuid, `part ${entry.part.index}/${entry.part.count}`] : [entry.firstUuid, entry.lastUuid];
  const kind = entry.backend !== undefined && entry.backend !== 'rules' ? ['llm'] : [];
  return stableId(['beat', entry.sessionId, ...range, index, ...kind], 16);
}

/**
 * The time a beat is written with (`created`, `updated`, `review_after`, the footer's date): the time of the window's
 * last turn, from the transcript, when it has one. So the same beat written on two machines (a synced vault, the same
 * session extracted on both before a sync) is the same bytes, and the sync has nothing to conflict on.
 */
export function beatTime(entry: Pick<JournalEntry, 'lastTimestamp'>, now: () => number): number {
  const t = entry.lastTimestamp === undefined ? NaN : Date.parse(entry.lastTimestamp);
  return Number.isFinite(t) ? t : now();
}

/**
 * A note for this beat that reached the vault after the catalog was read (written by another device and synced in, or
 * by another process): looked for at the beat's own file name. Returns its path when it carries the beat's engram_id.
 */
async function arrivedSince(ctx: WriteContext, folder: string, title: string, id: string): Promise<string | undefined> {
  if (ctx.dryRun) return undefined;
  const path = uniqueNotePath(folder, title, []);
  if (ctx.catalog.notes.has(path)) return undefined;
  const file = await ctx.vault.read(path).catch(() => undefined);
  if (!file) return undefined;
  ctx.catalog.add(path, file.text);
  return ctx.catalog.ids.get(id);
}

/** Creates the note with the note layer's one writer (file name, collision rule), knowing the vault from the catalog. */
function createNote(ctx: WriteContext, folder: string, title: string, text: string): Promise<string> {
  const known = ctx.catalog.notes.keys();
  return ctx.dryRun ? Promise.resolve(uniqueNotePath(folder, title, known)) : createNoteUnique(ctx.vault, folder, title, text, known);
}

async function recordProposal(ctx: WriteContext, newPath: string, newText: string, dup: { path: string; score: number; reason: string }, id: string): Promise<string> {
  const existing = await ctx.vault.read(dup.path).catch(() => undefined);
  const now = ctx.now();
  const proposalId = `dup-${id}`;
  const proposal = {
    version: 1,
    id: proposalId,
    kind: 'possible-duplicate',
    created: new Date(now).toISOString(),
    expires: new Date(now + 7 * 86_400_000).toISOString(),
    reason: dup.reason,
    score: Math.round(dup.score * 1000) / 1000,
    notes: [
      { path: newPath, hash: sha256Hex(newText), role: 'new' },
      { path: dup.path, hash: existing ? sha256Hex(existing.text) : null, role: 'existing' },
    ],
  };
  if (!ctx.dryRun) await ctx.state.write(`${ctx.vaultDir}/proposals/${proposalId}.json`, `${JSON.stringify(proposal, null, 1)}\n`);
  return proposalId;
}

async function extendNote(ctx: WriteContext, path: string, beat: Beat, prov: Provenance, at: number): Promise<boolean> {
  if (ctx.dryRun) return true;
  const file = await ctx.vault.read(path);
  let head: string;
  try {
    // A splice of the one key: the rest of the user's frontmatter stays byte for byte.
    head = editFrontmatter(file.text, { set: { updated: isoWithOffset(at) } }, path).text;
  } catch (e) {
    // Frontmatter Engram cannot edit safely: leave the note alone; the beat becomes its own note.
    if (isEngramError(e, 'invalid-yaml') || isEngramError(e, 'refused')) return false;
    throw e;
  }
  const next = head.replace(/\s*$/, '\n') + renderExtension(beat, prov, at);
  try {
    await ctx.vault.writeIfUnchanged(path, file.text, next);
  } catch (e) {
    // The user edited the note meanwhile: do not fight them; write the beat as its own note instead.
    if (isEngramError(e, 'conflict')) return false;
    throw e;
  }
  ctx.catalog.add(path, next);
  return true;
}

/**
 * capture.mode inbox: the note the beat would make, held as a review proposal (`capture`); nothing is written into the
 * vault until the user approves it in the review pane or with `engram review --apply <id>`.
 */
async function holdForReview(ctx: WriteContext, beat: Beat, prov: Provenance, at: number, base: Pick<NoteOutcome, 'title' | 'type' | 'engramId'>): Promise<NoteOutcome> {
  const related = beat.related.map((t) => ctx.catalog.resolveTitle(t)).filter((t): t is string => t !== undefined && t !== beat.title);
  const text = renderNote(beat, prov, [...new Set(related)], at, ctx.reviewDays);
  const path = uniqueNotePath(beatFolder(beat, ctx.meta.project, ctx.folders), beat.title, ctx.catalog.notes.keys());
  const session = ctx.meta.sessionId.slice(0, 8);
  const proposal = makeProposal({
    family: 'review',
    kind: 'capture',
    title: `New ${beat.type}: ${beat.title}`,
    reason: `captured from session ${session}${ctx.meta.project ? ` (${ctx.meta.project})` : ''}; capture.mode is inbox`,
    sources: [],
    writes: [{ path, text }],
    trash: [],
    moves: [],
    redirect: null,
    linkRewrites: [],
  }, ctx.now(), INBOX_DAYS);
  if (!ctx.dryRun) await new StateProposalStore(ctx.state, `${ctx.vaultDir}/proposals`).save(proposal);
  return { ...base, action: 'proposed', path, proposal: proposal.id };
}

export async function writeBeats(ctx: WriteContext, entry: JournalEntry): Promise<NoteOutcome[]> {
  const out: NoteOutcome[] = [];
  for (let i = 0; i < entry.beats.length; i++) {
    const beat = entry.beats[i];
    const id = beatId(entry, i);
    const base = { title: beat.title, type: beat.type, engramId: id };
    const already = ctx.catalog.ids.get(id);
    if (already) {
      out.push({ ...base, action: 'already-written', path: already });
      continue;
    }
    const mode = ctx.capture ? captureModeFor(ctx.capture, { type: beat.type, project: ctx.meta.project }) : 'auto';
    if (mode === 'off') {
      out.push({ ...base, action: 'not-captured', path: '' });
      continue;
    }
    if (ctx.waitForGit && !ctx.dryRun) await ctx.waitForGit();
    const prov: Provenance = { engramId: id, source: ctx.source, session: ctx.meta, windowRange: [entry.firstIndex, entry.lastIndex], backend: entry.backend, model: entry.model };
    const decision = await decide(beat, ctx.catalog, ctx.similar, ctx.dedup);
    if (decision.action === 'skip') {
      out.push({ ...base, action: 'duplicate-skipped', path: decision.path });
      continue;
    }
    const at = beatTime(entry, ctx.now);
    if (mode === 'inbox') {
      out.push(await holdForReview(ctx, beat, prov, at, base));
      continue;
    }
    if (decision.action === 'extend' && (await extendNote(ctx, decision.path, beat, prov, at))) {
      out.push({ ...base, action: 'extended', path: decision.path });
      ctx.notesWritten++;
      ctx.fault?.('after-note', ctx.notesWritten);
      continue;
    }
    const related = beat.related.map((t) => ctx.catalog.resolveTitle(t)).filter((t): t is string => t !== undefined && t !== beat.title);
    const text = renderNote(beat, prov, [...new Set(related)], at, ctx.reviewDays);
    const folder = beatFolder(beat, ctx.meta.project, ctx.folders);
    const arrived = await arrivedSince(ctx, folder, beat.title, id);
    if (arrived) {
      out.push({ ...base, action: 'already-written', path: arrived });
      continue;
    }
    const path = await createNote(ctx, folder, beat.title, text);
    ctx.catalog.add(path, text);
    ctx.similar.add?.(path, beatText(beat));
    const outcome: NoteOutcome = { ...base, action: 'created', path };
    const dup = decision.action === 'write' ? decision.duplicateOf : { path: decision.path, score: decision.score, reason: 'the note changed while extending it' };
    if (dup) outcome.proposal = await recordProposal(ctx, path, text, dup, id);
    out.push(outcome);
    ctx.notesWritten++;
    if (!ctx.dryRun) ctx.fault?.('after-note', ctx.notesWritten);
  }
  return out;
}
