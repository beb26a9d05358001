// Cuts the turns still to extract into windows under the model's budget. Deterministic: the same turns
// always give the same windows, so a window's id (and its beats' engram_ids) survive a crash and a rerun.
import { stableId } from '../hash.js';
import type { Turn } from '../transcript/types.js';

export interface ExtractWindow {
  /** hash(session, first uuid, last uuid): the journal's key. */
  id: string;
  sessionId: string;
  turns: Turn[];
  firstUuid: string;
  lastUuid: string;
  firstIndex: number;
  lastIndex: number;
  /** Byte offset just past the window's last record (a hint for incremental reads). */
  endOffset?: number;
  lastTimestamp?: string;
}

export interface WindowOptions {
  /** Characters of turn text per window (about 4 characters a token). */
  maxChars: number;
  maxTurns: number;
}

export const DEFAULT_WINDOW: WindowOptions = { maxChars: 60_000, maxTurns: 120 };
/** A single turn longer than this is shortened in the prompt (head and tail kept). */
export const MAX_TURN_CHARS = 12_000;

export function windowId(sessionId: string, firstUuid: string, lastUuid: string): string {
  return stableId(['window', sessionId, firstUuid, lastUuid], 24);
}

export function makeWindow(sessionId: string, turns: Turn[]): ExtractWindow {
  const first = turns[0];
  const last = turns[turns.length - 1];
  // The same range convention as the transcript layer's coverageOf(): last record of the last turn.
  const lastUuid = last.lastUuid ?? last.uuid;
  const lastTimestamp = turns.reduce<string | undefined>((m, t) => (t.timestamp && (!m || t.timestamp > m) ? t.timestamp : m), undefined);
  return {
    id: windowId(sessionId, first.uuid, lastUuid),
    sessionId,
    turns,
    firstUuid: first.uuid,
    lastUuid,
    firstIndex: first.index,
    lastIndex: last.index,
    endOffset: last.endOffset ?? last.offset,
    ...(lastTimestamp ? { lastTimestamp } : {}),
  };
}

/** Splits a run of consecutive turns into windows. */
export function cutWindows(sessionId: string, turns: Turn[], opts: WindowOptions = DEFAULT_WINDOW): ExtractWindow[] {
  const windows: ExtractWindow[] = [];
  let current: Turn[] = [];
  let chars = 0;
  for (const turn of turns) {
    const size = Math.min(turn.text.length, MAX_TURN_CHARS) + 40;
    if (current.length > 0 && (chars + size > opts.maxChars || current.length >= opts.maxTurns)) {
      windows.push(makeWindow(sessionId, current));
      current = [];
      chars = 0;
    }
    current.push(turn);
    chars += size;
  }
  if (current.length) windows.push(makeWindow(sessionId, current));
  return windows;
}
