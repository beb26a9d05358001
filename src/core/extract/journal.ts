// Exactly once (DESIGN "Jobs"): each window's validated reply is journalled in jobs/<window id>.json before any
// note is written, and the ledger records a window's range only after its notes are durably written.
import type { Turn } from '../transcript/types.js';
import type { Beat } from './beat.js';
import { readFormat, type FormatSpec } from '../format-version.js';
import { readLog, type StateStore } from './state-store.js';
import type { Rejection } from './validate.js';
import { rangeKey, type ExtractWindow, type TurnRange } from './window.js';

export const JOURNAL_VERSION = 1;
/** 2: each range names the backend that covered it; a session may carry the windows that failed (`pending`). */
export const LEDGER_VERSION = 2;
/** One line per extraction run (also read to migrate a version-1 ledger). */
export const RUNS_LOG = 'logs/extract-runs.jsonl';

export interface JournalEntry extends TurnRange {
  version: number;
  windowId: string;
  sessionKey: string;
  sessionId: string;
  source?: string;
  backend: string;
  model: string;
  createdAt: string;
  beats: Beat[];
  rejected: Rejection[];
  /** JSON damage that was repaired in the reply. */
  repairs?: string[];
  /** Written by older versions when the rules backend stood in for a failed one (no longer done). */
  fallback?: string;
}

export interface LedgerRange extends TurnRange {
  sessionId?: string;
  beats: number;
  at: string;
  /**
   * The backend that extracted the range. A range only `rules` has seen is still to do for an LLM backend; any range
   * counts as done for `rules`. 'unknown' (migrated, no record of the backend) counts as done for every backend.
   */
  backend?: string;
}

/** Windows of a session whose LLM call failed: not covered, retried by a later run after `retryAt`. */
export interface PendingWindows {
  /** The backend that failed. */
  backend: string;
  /** BackendError failure kind (server, timeout, reply, not-installed…), or 'error'. */
  failure: string;
  reason: string;
  /** Windows left to do when the run stopped. */
  windows: number;
  /** Failed runs in a row (the backoff grows with it). */
  failures: number;
  at: string;
  /** Background runs leave the session alone until then; a command the user types tries at once. */
  retryAt: string;
}

export interface LedgerSession {
  source?: string;
  ranges: LedgerRange[];
  pending?: PendingWindows;
}

export interface Ledger {
  version: number;
  sessions: Record<string, LedgerSession>;
}

export function sessionKey(agent: string, sessionId: string): string {
  return `${agent}:${sessionId}`;
}

/** Whether a range a backend wrote spares `backend` the work: rules covers nothing an LLM backend still has to see. */
export function rangeCountsFor(range: Pick<LedgerRange, 'backend'>, backend: string): boolean {
  return backend === 'rules' || range.backend !== 'rules';
}

export const DEFAULT_RETRY_BASE_MS = 5 * 60_000;

/** Backoff after the n-th failed run in a row: 5 min, 10, 20, 40 … (from `baseMs`), at most 6 h. */
export function retryBackoffMs(failures: number, baseMs = DEFAULT_RETRY_BASE_MS): number {
  return Math.min(6 * 3_600_000, baseMs * 2 ** Math.max(0, failures - 1));
}

/** The ledger's format: version 1 → 2 needs the runs log, which only an async step can read (`migrateLedger`). */
function ledgerFormat(name: string): FormatSpec<Ledger> {
  return { name, current: LEDGER_VERSION, migrations: { 1: (v1) => v1 }, validate: (d) => d as unknown as Ledger };
}

function journalFormat(name: string): FormatSpec<JournalEntry> {
  return { name, current: JOURNAL_VERSION, validate: (d) => d as unknown as JournalEntry };
}

/**
 * Version 1 → 2: ranges did not say which backend covered them. The runs log does: a session whose recorded runs all
 * used `rules` (setup's offline pass) was covered by rules; anything else, or no record, is 'unknown' (never re-sent).
 */
async function migrateLedger(state: StateStore, ledger: Ledger): Promise<Ledger> {
  const backends = new Map<string, Set<string>>();
  for (const line of (await readLog(state, RUNS_LOG).catch(() => '')).split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as { sessionId?: string; backend?: string; windows?: { called?: number } };
      if (!r.sessionId || !r.backend || !r.windows?.called) continue;
      const set = backends.get(r.sessionId) ?? new Set<string>();
      set.add(r.backend);
      backends.set(r.sessionId, set);
    } catch {
      // a torn line
    }
  }
  for (const [key, entry] of Object.entries(ledger.sessions)) {
    const id = key.slice(key.indexOf(':') + 1);
    const used = backends.get(id);
    const backend = used && used.size === 1 && used.has('rules') ? 'rules' : 'unknown';
    for (const r of entry.ranges) r.backend ??= backend;
  }
  return { ...ledger, version: LEDGER_VERSION };
}

export class JobStore {
  constructor(
    private readonly state: StateStore,
    /** `vaults/<key>`: the per-vault state folder. */
    private readonly vaultDir: string,
  ) {}

  get ledgerName(): string {
    return `${this.vaultDir}/ledger.json`;
  }

  journalName(windowId: string): string {
    return `${this.vaultDir}/jobs/${windowId}.json`;
  }

  /** The ledger, an older format migrated in memory (it is written in the current format by the next change). */
  async readLedger(): Promise<Ledger> {
    const read = readFormat(ledgerFormat(this.ledgerName), await this.state.read(this.ledgerName));
    const ledger = read?.data ?? { version: LEDGER_VERSION, sessions: {} };
    ledger.sessions ??= {};
    return read?.migratedFrom === 1 ? migrateLedger(this.state, ledger) : ledger;
  }

  private async writeLedger(ledger: Ledger): Promise<void> {
    ledger.version = LEDGER_VERSION;
    await this.state.write(this.ledgerName, `${JSON.stringify(ledger, null, 1)}\n`);
  }

  /**
   * Adds a completed range; re-reads first so that another writer's ranges are kept. An LLM backend's range replaces
   * the same range done by rules (rules counts any range as done, an LLM backend only its own kind).
   */
  async commitRange(key: string, source: string | undefined, range: LedgerRange): Promise<void> {
    const ledger = await this.readLedger();
    const entry = (ledger.sessions[key] ??= { ranges: [] });
    if (source) entry.source = source;
    const same = entry.ranges.findIndex((r) => rangeKey(r) === rangeKey(range));
    if (same < 0) entry.ranges.push(range);
    else if (entry.ranges[same].backend === 'rules' && range.backend !== undefined && range.backend !== 'rules') entry.ranges[same] = range;
    entry.ranges.sort((a, b) => a.firstIndex - b.firstIndex || (a.part?.index ?? 0) - (b.part?.index ?? 0));
    await this.writeLedger(ledger);
  }

  /** Records that windows of a session failed (they stay uncovered) and when a background run may try again. */
  async markPending(key: string, source: string | undefined, failed: Omit<PendingWindows, 'failures' | 'retryAt'>, now: number, baseMs?: number): Promise<PendingWindows> {
    const ledger = await this.readLedger();
    const entry = (ledger.sessions[key] ??= { ranges: [] });
    if (source) entry.source = source;
    const failures = (entry.pending?.failures ?? 0) + 1;
    const pending: PendingWindows = { ...failed, failures, retryAt: new Date(now + retryBackoffMs(failures, baseMs)).toISOString() };
    entry.pending = pending;
    await this.writeLedger(ledger);
    return pending;
  }

  /** Clears a session's failure record once a run got through every window. */
  async clearPending(key: string): Promise<void> {
    const ledger = await this.readLedger();
    if (!ledger.sessions[key]?.pending) return;
    delete ledger.sessions[key].pending;
    await this.writeLedger(ledger);
  }

  async writeJournal(entry: JournalEntry): Promise<void> {
    await this.state.write(this.journalName(entry.windowId), `${JSON.stringify(entry, null, 1)}\n`);
  }

  async removeJournal(windowId: string): Promise<void> {
    await this.state.remove(this.journalName(windowId));
  }

  /** Journals of one session that are not committed yet (a crash happened between journal and ledger). */
  async pendingJournals(key: string): Promise<JournalEntry[]> {
    const out: JournalEntry[] = [];
    for (const name of await this.state.list(`${this.vaultDir}/jobs`)) {
      if (!name.endsWith('.json')) continue;
      const full = `${this.vaultDir}/jobs/${name}`;
      let entry: JournalEntry | undefined;
      try {
        entry = readFormat(journalFormat(full), await this.state.read(full))?.data;
      } catch {
        continue;
      }
      if (entry?.sessionKey === key && Array.isArray(entry.beats)) out.push(entry);
    }
    return out.sort((a, b) => a.firstIndex - b.firstIndex || (a.part?.index ?? 0) - (b.part?.index ?? 0));
  }
}

/** Splits the turns not covered (a mask parallel to `turns`) into runs of consecutive turns. */
export function uncoveredRuns(turns: Turn[], covered: boolean[]): Turn[][] {
  const runs: Turn[][] = [];
  let run: Turn[] = [];
  turns.forEach((t, i) => {
    if (covered[i]) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push(t);
  });
  if (run.length) runs.push(run);
  return runs;
}

export function journalWindow(entry: JournalEntry, turns: Turn[]): ExtractWindow {
  const inRange = turns.filter((t) => t.index >= entry.firstIndex && t.index <= entry.lastIndex);
  return {
    id: entry.windowId,
    sessionId: entry.sessionId,
    turns: inRange,
    firstUuid: entry.firstUuid,
    lastUuid: entry.lastUuid,
    firstIndex: entry.firstIndex,
    lastIndex: entry.lastIndex,
    endOffset: entry.endOffset,
    ...(entry.part ? { part: entry.part } : {}),
  };
}
