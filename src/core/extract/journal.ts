// Exactly once (DESIGN "Jobs"): each window's validated reply is journalled in jobs/<window id>.json before any
// note is written, and the ledger records a window's range only after its notes are durably written.
import type { Turn } from '../transcript/types.js';
import type { Beat } from './beat.js';
import { parseVersioned, type StateStore } from './state-store.js';
import type { Rejection } from './validate.js';
import { rangeKey, type ExtractWindow, type TurnRange } from './window.js';

export const JOURNAL_VERSION = 1;
export const LEDGER_VERSION = 1;

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
  /** Set when the configured backend failed and the rules backend stood in. */
  fallback?: string;
}

export interface LedgerRange extends TurnRange {
  sessionId?: string;
  beats: number;
  at: string;
}

export interface LedgerSession {
  source?: string;
  ranges: LedgerRange[];
}

export interface Ledger {
  version: number;
  sessions: Record<string, LedgerSession>;
}

export function sessionKey(agent: string, sessionId: string): string {
  return `${agent}:${sessionId}`;
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

  async readLedger(): Promise<Ledger> {
    return parseVersioned<Ledger>(await this.state.read(this.ledgerName), this.ledgerName, LEDGER_VERSION, () => ({ version: LEDGER_VERSION, sessions: {} }));
  }

  /** Adds a completed range; re-reads first so that another writer's ranges are kept. */
  async commitRange(key: string, source: string | undefined, range: LedgerRange): Promise<void> {
    const ledger = await this.readLedger();
    const entry = (ledger.sessions[key] ??= { ranges: [] });
    if (source) entry.source = source;
    if (!entry.ranges.some((r) => rangeKey(r) === rangeKey(range))) entry.ranges.push(range);
    entry.ranges.sort((a, b) => a.firstIndex - b.firstIndex || (a.part?.index ?? 0) - (b.part?.index ?? 0));
    ledger.version = LEDGER_VERSION;
    await this.state.write(this.ledgerName, `${JSON.stringify(ledger, null, 1)}\n`);
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
      let entry: JournalEntry;
      try {
        entry = parseVersioned<JournalEntry>(await this.state.read(full), full, JOURNAL_VERSION, () => ({ version: 0 }) as JournalEntry);
      } catch {
        continue;
      }
      if (entry.sessionKey === key && Array.isArray(entry.beats)) out.push(entry);
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
