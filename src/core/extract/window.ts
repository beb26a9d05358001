// The turns still to extract, as windows for the model: cut by the transcript layer's buildWindows (nothing is
// ever truncated; a turn too large for one window is split into numbered parts, each its own window). Deterministic:
// the same turns always give the same windows, so a window's id (and its beats' engram_ids) survive a crash and a rerun.
import { stableId } from '../hash.js';
import type { Turn } from '../transcript/types.js';
import { buildWindows, estimateTokens, type TranscriptWindow } from '../transcript/windows.js';

/** Part `index` (1-based) of `count` of a turn too large for one window. */
export interface WindowPart {
  index: number;
  count: number;
}

/** The turns a window covers: carried from the window into its journal entry and then its ledger range. */
export interface TurnRange {
  firstUuid: string;
  /** Uuid of the last record of the window's last turn (Turn.lastUuid ?? Turn.uuid). */
  lastUuid: string;
  firstIndex: number;
  lastIndex: number;
  /** Byte offset just past the window's last record (a hint for incremental reads). */
  endOffset?: number;
  /** Timestamp of the last covered turn: bounds a copied range (resume, fork) whose last record was not copied. */
  lastTimestamp?: string;
  /** Set for one part of a turn too large for one window: the turn counts as covered only once every part is in the ledger. */
  part?: WindowPart;
}

export interface ExtractWindow extends TurnRange {
  /** hash(session, first uuid, last uuid[, part]): the journal's key. */
  id: string;
  sessionId: string;
  /** The turns the model sees; for a part window, one turn whose text is that part. */
  turns: Turn[];
}

export interface ExtractWindowOptions {
  /** Token budget of one window's transcript text (about 4 characters a token). */
  budgetTokens: number;
}

/** 15,000 tokens (about 60,000 characters) of transcript per call: room for the prompt and the reply in small models. */
export const DEFAULT_WINDOW: ExtractWindowOptions = { budgetTokens: 15_000 };

/** Turns repeated between extraction windows: none, so that no beat is extracted twice (`engram parse` shows the same). */
export const EXTRACT_OVERLAP_TURNS = 0;

export function windowId(sessionId: string, firstUuid: string, lastUuid: string, part?: WindowPart): string {
  // A whole-turn window keeps the id it always had; only parts add their number.
  return stableId(part ? ['window', sessionId, firstUuid, lastUuid, `part ${part.index}/${part.count}`] : ['window', sessionId, firstUuid, lastUuid], 24);
}

/** The key of a (range, part) in the ledger and the journal. */
export function rangeKey(r: { firstUuid: string; lastUuid: string; part?: WindowPart }): string {
  return `${r.firstUuid}|${r.lastUuid}${r.part ? `|${r.part.index}/${r.part.count}` : ''}`;
}

export function makeWindow(sessionId: string, turns: Turn[], part?: WindowPart): ExtractWindow {
  const first = turns[0];
  const last = turns[turns.length - 1];
  // The same range convention as the transcript layer's coverageOf(): last record of the last turn.
  const lastUuid = last.lastUuid ?? last.uuid;
  const lastTimestamp = turns.reduce<string | undefined>((m, t) => (t.timestamp && (!m || t.timestamp > m) ? t.timestamp : m), undefined);
  return {
    id: windowId(sessionId, first.uuid, lastUuid, part),
    sessionId,
    turns,
    firstUuid: first.uuid,
    lastUuid,
    firstIndex: first.index,
    lastIndex: last.index,
    endOffset: last.endOffset ?? last.offset,
    ...(lastTimestamp ? { lastTimestamp } : {}),
    ...(part ? { part } : {}),
  };
}

/** A part's text without the `[role] ` header renderTurn put in front of part 1 (the prompt writes its own header). */
function partText(rendered: string, turn: Turn): string {
  const header = `[${turn.role}${turn.sidechain ? ' (subagent)' : ''}] `;
  return rendered.startsWith(header) ? rendered.slice(header.length) : rendered;
}

function fromTranscriptWindow(sessionId: string, w: TranscriptWindow, byIndex: Map<number, Turn>): ExtractWindow {
  const item = w.items[0];
  if (w.split && item?.part) {
    const turn = byIndex.get(item.turn);
    if (turn) {
      // The rendered part already carries the turn's tool and error lines (in its last part): not repeated in the header.
      return makeWindow(sessionId, [{ ...turn, text: partText(item.text, turn), tools: [], errors: [] }], { index: item.part.index, count: item.part.count });
    }
  }
  const turns = w.items.map((i) => byIndex.get(i.turn)).filter((t): t is Turn => t !== undefined);
  return makeWindow(sessionId, turns);
}

/**
 * Splits a run of consecutive turns into windows under the budget, oldest first (the order the ledger advances in).
 * No overlap between windows: every turn belongs to exactly one window range, so no beat is extracted twice.
 */
export function extractWindows(sessionId: string, turns: Turn[], opts: ExtractWindowOptions = DEFAULT_WINDOW): ExtractWindow[] {
  const byIndex = new Map(turns.map((t) => [t.index, t]));
  return buildWindows(turns, { budgetTokens: opts.budgetTokens, overlapTurns: EXTRACT_OVERLAP_TURNS })
    .map((w) => fromTranscriptWindow(sessionId, w, byIndex))
    .reverse();
}

/** About what a window costs in tokens (its text; the prompt and the reply come on top). */
export function windowTokens(w: ExtractWindow): number {
  return w.turns.reduce((n, t) => n + estimateTokens(t.text) + 10, 0);
}
