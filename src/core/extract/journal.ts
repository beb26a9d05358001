// Exactly once (docs/ARCHITECTURE.md trip 1): each window's validated reply is journalled in jobs/<window id>.json before any
// note is written, and the ledger records a window's range only after its notes are durably written.
import type { Turn } from '../transcript/types.js';
import type { Beat } from './beat.js';
import type { RunRecord, SessionCoverage } from '../capture/session-jobs.js';
import { EngramError } from '../errors.js';
import { readFormat, upgradeFormat, type FormatSpec } from '../format-version.js';
import { readLog, type StateStore } from './state-store.js';
import type { Rejection } from './validate.js';
import { rangeKey, type ExtractWindow, type TurnRange } from './window.js';

export const JOURNAL_VERSION = 1;
/**
 * 2: each range names the backend that covered it; a session may carry the windows that failed (`pending`).
 * 3: capture's coverage (`capture`) and its last runs (`runs`) moved in from the host's former `sessions.json`.
 */
export const LEDGER_VERSION = 3;
/** Capture runs kept for `engram status` (newest last). */
const RUNS_KEPT = 50;
/** Where hosts before ledger version 3 kept capture's coverage: read once into the ledger, deleted after its next write. */
const LEGACY_COVERAGE = 'sessions.json';
/** How long a ledger change waits for another writer (another process's, or this one's) before giving up. */
const LOCK_WAIT_MS = 30_000;
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
  /** The extractor's coverage, by `sessionKey` (agent:session id): which turns of each transcript are done. */
  sessions: Record<string, LedgerSession>;
  /**
   * Capture's coverage (src/core/capture/session-jobs.ts): each session's transcript size at its last completed job,
   * for the Stop growth rule. Keyed by capture's job key (the session id a hook gives, `rules:<id>` for a rules pass):
   * a hook knows no agent, so these keys are not `sessions`' keys.
   */
  capture: Record<string, SessionCoverage>;
  /** The last capture runs, newest last (`engram status`). */
  runs: RunRecord[];
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

/**
 * The ledger's format. Version 1 → 2 needs the runs log and 2 → 3 the former sessions.json, which only async steps can
 * read (`migrateLedger`, `JobStore.load`).
 */
function ledgerFormat(name: string): FormatSpec<Ledger> {
  return { name, current: LEDGER_VERSION, migrations: { 1: (v1) => v1, 2: (v2) => ({ ...v2, capture: {}, runs: [] }) }, validate: (d) => d as unknown as Ledger };
}

interface LegacyCoverage {
  sessions?: Record<string, SessionCoverage>;
  runs?: RunRecord[];
}

function emptyLedger(): Ledger {
  return { version: LEDGER_VERSION, sessions: {}, capture: {}, runs: [] };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

  /** Held for each change to the ledger (read, change, write): the host and a CLI run may change it at once. */
  private get lockName(): string {
    return `${this.vaultDir}/ledger.lock`;
  }

  private get legacyName(): string {
    return `${this.vaultDir}/${LEGACY_COVERAGE}`;
  }

  journalName(windowId: string): string {
    return `${this.vaultDir}/jobs/${windowId}.json`;
  }

  /** The ledger, an older format migrated in memory (it is written in the current format by the next change). */
  async readLedger(): Promise<Ledger> {
    return (await this.load()).ledger;
  }

  /** The ledger, and whether it took in a former sessions.json (to delete once the ledger holds its data). */
  private async load(): Promise<{ ledger: Ledger; legacy: boolean }> {
    const read = readFormat(ledgerFormat(this.ledgerName), await this.state.read(this.ledgerName));
    let ledger = read?.data ?? emptyLedger();
    ledger.sessions ??= {};
    ledger.capture ??= {};
    ledger.runs ??= [];
    if (read?.migratedFrom === 1) ledger = await migrateLedger(this.state, ledger);
    // Only a ledger older than version 3 (or none yet) can have a sessions.json beside it that it has not taken in.
    const legacy = !read || read.migratedFrom !== undefined ? await this.readLegacy() : undefined;
    if (legacy) {
      ledger.capture = { ...legacy.sessions, ...ledger.capture };
      ledger.runs = [...(legacy.runs ?? []), ...ledger.runs].slice(-RUNS_KEPT);
    }
    return { ledger, legacy: legacy !== undefined };
  }

  /**
   * The former sessions.json. Damaged, it is skipped: its sizes only spare re-checks (the ranges above decide what is
   * extracted). A newer format is refused like any newer file.
   */
  private async readLegacy(): Promise<LegacyCoverage | undefined> {
    const text = await this.state.read(this.legacyName);
    if (text === undefined) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return {};
    }
    const data = upgradeFormat<LegacyCoverage>({ name: this.legacyName, current: 1, field: 'format' }, raw).data;
    return { sessions: data.sessions ?? {}, runs: Array.isArray(data.runs) ? data.runs : [] };
  }

  /**
   * One change to the ledger: under the ledger lock, re-read, change, write. Every writer (extraction in the host or
   * in a CLI process, capture's coverage) goes through here, so none overwrites another's change. `change` returns
   * false when it changed nothing (no write).
   */
  private async update(change: (ledger: Ledger) => boolean): Promise<void> {
    const release = await this.lockLedger();
    try {
      const { ledger, legacy } = await this.load();
      if (!change(ledger) && !legacy) return;
      ledger.version = LEDGER_VERSION;
      await this.state.write(this.ledgerName, `${JSON.stringify(ledger, null, 1)}\n`);
      // Its data is in the ledger now; a crash before this removal leaves a file nothing reads any more.
      if (legacy) await this.state.remove(this.legacyName);
    } finally {
      await release?.();
    }
  }

  private async lockLedger(): Promise<(() => Promise<void>) | undefined> {
    if (!this.state.tryLock) return undefined;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      const release = await this.state.tryLock(this.lockName);
      if (release) return release;
      if (Date.now() > deadline) {
        throw new EngramError('conflict', `${this.lockName} stayed held for ${LOCK_WAIT_MS / 1000} s: another engram process is changing the ledger`, 'run again; if no engram process runs, remove that file');
      }
      await sleep(wait);
    }
  }

  /**
   * Adds a completed range. An LLM backend's range replaces the same range done by rules (rules counts any range as
   * done, an LLM backend only its own kind).
   */
  async commitRange(key: string, source: string | undefined, range: LedgerRange): Promise<void> {
    await this.update((ledger) => {
      const entry = (ledger.sessions[key] ??= { ranges: [] });
      if (source) entry.source = source;
      const same = entry.ranges.findIndex((r) => rangeKey(r) === rangeKey(range));
      if (same < 0) entry.ranges.push(range);
      else if (entry.ranges[same].backend === 'rules' && range.backend !== undefined && range.backend !== 'rules') entry.ranges[same] = range;
      entry.ranges.sort((a, b) => a.firstIndex - b.firstIndex || (a.part?.index ?? 0) - (b.part?.index ?? 0));
      return true;
    });
  }

  /** Records that windows of a session failed (they stay uncovered) and when a background run may try again. */
  async markPending(key: string, source: string | undefined, failed: Omit<PendingWindows, 'failures' | 'retryAt'>, now: number, baseMs?: number): Promise<PendingWindows> {
    let pending!: PendingWindows;
    await this.update((ledger) => {
      const entry = (ledger.sessions[key] ??= { ranges: [] });
      if (source) entry.source = source;
      const failures = (entry.pending?.failures ?? 0) + 1;
      pending = { ...failed, failures, retryAt: new Date(now + retryBackoffMs(failures, baseMs)).toISOString() };
      entry.pending = pending;
      return true;
    });
    return pending;
  }

  /** Clears a session's failure record once a run got through every window. */
  async clearPending(key: string): Promise<void> {
    await this.update((ledger) => {
      if (!ledger.sessions[key]?.pending) return false;
      delete ledger.sessions[key].pending;
      return true;
    });
  }

  /** Capture's coverage of a session (by capture's job key). */
  async captured(jobKey: string): Promise<SessionCoverage | undefined> {
    return (await this.readLedger()).capture[jobKey];
  }

  /** The last capture runs, newest last. */
  async recentRuns(): Promise<RunRecord[]> {
    return (await this.readLedger()).runs;
  }

  /** A capture job's end: the session's new coverage (when it extracted) and its run, in one change. */
  async recordCapture(jobKey: string, coverage: SessionCoverage | undefined, run: RunRecord): Promise<void> {
    await this.update((ledger) => {
      if (coverage) ledger.capture[jobKey] = coverage;
      ledger.runs.push(run);
      if (ledger.runs.length > RUNS_KEPT) ledger.runs.splice(0, ledger.runs.length - RUNS_KEPT);
      return true;
    });
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
