// What an extraction run owes a session: the windows journalled but not yet committed (replayed, no model call), then
// the turns no range covers, cut into windows. Ranges of every session count, and a split turn counts once all its
// parts are done.
import { coveredMask, type CoveredRange } from '../transcript/incremental.js';
import type { Session } from '../transcript/types.js';
import { journalWindow, uncoveredRuns, type JobStore, type JournalEntry, type Ledger } from './journal.js';
import { DEFAULT_WINDOW, extractWindows, rangeKey, type ExtractWindow, type ExtractWindowOptions } from './window.js';

/** One window to run: with its journal entry when an earlier run got the reply but did not commit it. */
export interface WorkItem {
  window: ExtractWindow;
  journal?: JournalEntry;
}

export interface WorkPlanInput {
  session: Session;
  jobs: JobStore;
  ledger: Ledger;
  /** The session's key in the ledger (agent and session id). */
  key: string;
  /** Whether a ledger range counts as done for this run's backend. */
  counts: (r: { backend?: string }) => boolean;
  window?: ExtractWindowOptions;
  /** A dry run leaves a committed leftover journal in place. */
  dryRun?: boolean;
}

/** The windows still to run, in transcript order (the parts of a split turn in their order). */
export async function planWork({ session, jobs, ledger, key, counts, window, dryRun }: WorkPlanInput): Promise<WorkItem[]> {
  const done = (ledger.sessions[key]?.ranges ?? []).filter(counts);
  const doneIds = new Set(done.map(rangeKey));
  const pending = (await jobs.pendingJournals(key)).filter((j) => {
    if (!doneIds.has(rangeKey(j))) return true;
    // Committed but not removed (a crash after the ledger write): drop the leftover.
    if (!dryRun) void jobs.removeJournal(j.windowId);
    return false;
  });
  const covered = coveredMask(session, coveredRanges(session, ledger, key, pending, counts));
  const started = new Set([...doneIds, ...pending.map(rangeKey)]);
  const fresh = uncoveredRuns(session.turns, covered)
    .flatMap((runTurns) => extractWindows(session.meta.sessionId, runTurns, window ?? DEFAULT_WINDOW))
    // A split turn interrupted halfway: only its parts not done yet.
    .filter((w) => !w.part || !started.has(rangeKey(w)));
  return [
    ...pending.map((j) => ({ window: journalWindow(j, session.turns), journal: j })),
    ...fresh.map((w) => ({ window: w })),
  ].sort((a, b) => a.window.firstIndex - b.window.firstIndex || (a.window.part?.index ?? 0) - (b.window.part?.index ?? 0));
}

/** The ranges done or journalled, of every session: a resumed or forked session copies earlier records (same uuids) into a new file. */
function coveredRanges(session: Session, ledger: Ledger, key: string, pending: JournalEntry[], counts: (r: { backend?: string }) => boolean): CoveredRange[] {
  const ranges: CoveredRange[] = [];
  // The parts of a split turn done so far (ledger or journal): the turn is covered once all of them are.
  const parts = new Map<string, { count: number; seen: Set<number>; range: CoveredRange }>();
  const add = (r: CoveredRange, part: ExtractWindow['part']) => {
    if (!part) return void ranges.push(r);
    const k = rangeKey(r);
    const p = parts.get(k) ?? { count: part.count, seen: new Set<number>(), range: r };
    p.seen.add(part.index);
    parts.set(k, p);
  };
  for (const [k, entry] of Object.entries(ledger.sessions)) {
    for (const r of entry.ranges.filter(counts)) add({ firstUuid: r.firstUuid, lastUuid: r.lastUuid, endOffset: r.endOffset ?? 0, lastTimestamp: r.lastTimestamp, sessionId: k === key ? session.meta.sessionId : r.sessionId }, r.part);
  }
  for (const j of pending) add({ firstUuid: j.firstUuid, lastUuid: j.lastUuid, endOffset: j.endOffset ?? 0, sessionId: session.meta.sessionId }, j.part);
  for (const p of parts.values()) if (p.seen.size >= p.count) ranges.push(p.range);
  return ranges;
}
