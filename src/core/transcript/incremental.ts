// Incremental extraction: which turns of a transcript the ledger has not covered yet.
//
// The ledger (ledger.json, written by the extraction job) stores, per transcript, the ranges that
// were extracted: a CoveredRange per window, identified by record uuids. Uuids are authoritative
// because Claude Code keeps them when it copies earlier records into a new file (resume, fork); the
// byte offset is only a hint (valid for the same file, which only ever grows). Ranges of other
// transcripts of the same project may be passed too: a resumed session's copied history is then
// recognised by its uuids and not extracted again.
import type { Session, Turn } from './types.js';

export interface CoveredRange {
  /** Uuid of the first record of the first turn covered (Turn.uuid). */
  firstUuid: string;
  /** Uuid of the last record of the last turn covered (Turn.lastUuid ?? Turn.uuid). */
  lastUuid: string;
  /** Byte offset just past the last covered record, in the file the range was read from (a hint). */
  endOffset?: number;
  /** Timestamp of the last covered turn: bounds a copied range whose last record was not copied. */
  lastTimestamp?: string;
  /** The session the range was read from (SessionMeta.sessionId). */
  sessionId?: string;
}

/** The range to record in the ledger once `turns` (consecutive, e.g. one window's turns) are extracted. */
export function coverageOf(turns: Turn[], sessionId?: string): CoveredRange | undefined {
  if (turns.length === 0) return undefined;
  const first = turns[0];
  const last = turns[turns.length - 1];
  const r: CoveredRange = { firstUuid: first.uuid, lastUuid: last.lastUuid ?? last.uuid, endOffset: last.endOffset ?? last.offset };
  const ts = turns.reduce<string | undefined>((m, t) => (t.timestamp && (!m || t.timestamp > m) ? t.timestamp : m), undefined);
  if (ts) r.lastTimestamp = ts;
  if (sessionId) r.sessionId = sessionId;
  return r;
}

/** Marks which turns the ranges cover; returns a parallel boolean array. */
export function coveredMask(session: Session, ranges: CoveredRange[]): boolean[] {
  const turns = session.turns;
  const covered = new Array<boolean>(turns.length).fill(false);
  const firstPos = new Map<string, number>();
  const lastPos = new Map<string, number>();
  turns.forEach((t, i) => {
    if (!firstPos.has(t.uuid)) firstPos.set(t.uuid, i);
    lastPos.set(t.lastUuid ?? t.uuid, i);
  });
  const pos = (uuid: string): number | undefined => lastPos.get(uuid) ?? firstPos.get(uuid);
  const mark = (a: number, b: number) => {
    for (let i = a; i <= b; i++) covered[i] = true;
  };
  for (const r of ranges) {
    const pf = firstPos.get(r.firstUuid) ?? pos(r.firstUuid);
    const pl = pos(r.lastUuid);
    if (pf !== undefined && pl !== undefined && pf <= pl) mark(pf, pl);
    else if (pf !== undefined) {
      // The copy stops before the range's end: copied turns keep their (older) timestamps.
      let b = pf;
      if (r.lastTimestamp) {
        while (b + 1 < turns.length && (turns[b + 1].timestamp ?? '\uffff') <= r.lastTimestamp) b++;
      }
      mark(pf, b);
    } else if (pl !== undefined) {
      mark(0, pl); // the copy starts after the range's start: everything before its end is old
    } else if (r.endOffset !== undefined && r.sessionId !== undefined && r.sessionId === session.meta.sessionId) {
      // No uuid found (records rewritten), same session: fall back to the byte offset.
      turns.forEach((t, i) => {
        if ((t.endOffset ?? t.offset) <= (r.endOffset ?? 0)) covered[i] = true;
      });
    }
  }
  return covered;
}

/** The turns the ledger has not covered, in order: what the next extraction job sends. */
export function uncoveredTurns(session: Session, ranges: CoveredRange[]): Turn[] {
  if (ranges.length === 0) return session.turns;
  const mask = coveredMask(session, ranges);
  return session.turns.filter((_, i) => !mask[i]);
}

/**
 * Where a host may start reading this file to skip covered bytes: the largest endOffset of a range
 * of this same session, or 0. A hint only: the uuids decide, so reading from 0 is always correct.
 */
export function resumeOffsetHint(ranges: CoveredRange[], sessionId: string): number {
  let best = 0;
  for (const r of ranges) if (r.sessionId === sessionId && (r.endOffset ?? 0) > best) best = r.endOffset ?? 0;
  return best;
}
