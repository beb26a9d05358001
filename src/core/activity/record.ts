// The activity record: what Engram saw, captured, injected and answered, per session, so a person can audit it
// (`engram activity`, the `activity` method). Append-only JSON lines in the host's state store (`logs/activity-<key>.jsonl`),
// rotated by size like every log there (at most four files of 5 MB: under 20 MB whatever the age). Written by the engine
// and the capture pipeline through `ActivityRecord#add`, which never throws and never makes its caller wait.
import { errorMessage } from '../errors.js';
import type { Clock, Yield } from '../ports.js';
import { TimeSlicer } from '../time-slice.js';
import type { StateStore } from '../extract/state-store.js';

/** One model call for one window of a transcript. */
export interface WindowActivity {
  window: string;
  backend: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  ms: number;
  /** `ok`, or the failure's kind (rate-limit, auth, timeout, error…). */
  outcome: string;
  beats: number;
  reason?: string;
  attempts?: number;
}

/** A beat an extraction filed (created, extended) or proposed (a possible duplicate, held for review). */
export interface BeatActivity {
  path: string;
  title: string;
  /** created, extended, already-written, proposed. */
  action: string;
  type?: string;
  proposal?: string;
}

/** A note an injection sent: which passage, and why it matched. */
export interface InjectedNote {
  path: string;
  title: string;
  why: string[];
  heading?: string;
}

interface Base {
  /** ISO time of the entry. */
  t: string;
  session?: string;
  /** claude-code or codex, when known. */
  agent?: string;
  project?: string;
}

export type ActivityEntry =
  /** A hook event the host took from the spool (capture's events; context events are `inject` entries). */
  | (Base & { kind: 'event'; event: string })
  /** One extraction of a session: its windows (backend, tokens, time, outcome) and the beats filed or proposed. */
  /**
   * `cited`: notes injected into the session that its assistant text names (usage.ts); `redactions`: secrets redacted
   * in the transcript read, by kind (counts only, never the values).
   */
  | (Base & { kind: 'extract'; outcome: string; notes: number; windows: WindowActivity[]; beats: BeatActivity[]; deferred?: boolean; cited?: string[]; redactions?: Record<string, number> })
  /** One context request of a hook: what was sent (notes, passages, why), its size, and what was withheld and why. */
  | (Base & { kind: 'inject'; event: string; notes: InjectedNote[]; chars: number; tokens: number; withheld: { path: string; why: string; heading?: string }[] })
  /** One request of an MCP client, and the size of the host's answer; `notes`: the notes a `read` answered with. */
  | (Base & { kind: 'mcp'; method: string; answerChars: number; ms: number; error?: string; notes?: string[] })
  /** A capture job that failed: retried on the next sweep, or set aside after repeated failures. */
  | (Base & { kind: 'failure'; what: string; error: string; next: 'retry' | 'set aside' })
  /** A file of Claude Code's own memory imported as a note (created, updated, or left alone when edited in the vault). */
  | (Base & { kind: 'memory'; source: string; path: string; action: string; why?: string });

export type ActivityKind = ActivityEntry['kind'];
export const ACTIVITY_KINDS: readonly ActivityKind[] = ['event', 'extract', 'inject', 'mcp', 'failure', 'memory'];

/** An entry as a writer gives it; the record stamps the time. */
export type ActivityInput = ActivityEntry extends infer E ? (E extends ActivityEntry ? Omit<E, 't'> : never) : never;

/** What a span of entries adds up to (a session's, a day's): one tally for both. */
export interface ActivityTally {
  /** Hook events seen (capture's, and each context request). */
  events: number;
  /** Context requests that injected something. */
  injections: number;
  injectedNotes: number;
  injectedChars: number;
  injectedTokens: number;
  withheld: number;
  /** Extractions that called the backend (a skipped Stop is in the entries, not here). */
  extractions: number;
  inputTokens: number;
  outputTokens: number;
  filed: number;
  proposed: number;
  mcpCalls: number;
  failures: number;
}

export function emptyTally(): ActivityTally {
  return { events: 0, injections: 0, injectedNotes: 0, injectedChars: 0, injectedTokens: 0, withheld: 0, extractions: 0, inputTokens: 0, outputTokens: 0, filed: 0, proposed: 0, mcpCalls: 0, failures: 0 };
}

/** Adds one tally's figures to another (a session's to its day's). */
export function addTally(t: ActivityTally, from: ActivityTally): void {
  for (const k of Object.keys(t) as Array<keyof ActivityTally>) t[k] += from[k];
}

/** Adds one entry's figures to a tally. */
export function tally(t: ActivityTally, e: ActivityEntry): void {
  if (e.kind === 'event') t.events++;
  else if (e.kind === 'inject') {
    t.events++;
    if (e.notes.length) t.injections++;
    t.injectedNotes += e.notes.length;
    t.injectedChars += e.chars;
    t.injectedTokens += e.tokens;
    t.withheld += e.withheld.length;
  } else if (e.kind === 'extract') {
    if (e.windows.length) t.extractions++;
    for (const w of e.windows) {
      t.inputTokens += w.inputTokens;
      t.outputTokens += w.outputTokens;
    }
    for (const b of e.beats) {
      if (b.action === 'created' || b.action === 'extended') t.filed++;
      else if (b.action === 'proposed') t.proposed++;
    }
  } else if (e.kind === 'mcp') t.mcpCalls++;
  else if (e.kind === 'failure') t.failures++;
}

/** One session's figures over the entries read. */
export interface ActivitySession extends ActivityTally {
  session: string;
  /** How many of its entries the query matched. */
  count: number;
  agent?: string;
  project?: string;
  first: string;
  last: string;
}

export interface ActivityQuery {
  session?: string;
  /** Epoch ms: entries at or after. */
  since?: number;
  /** Most entries returned (the newest); every matching entry still counts in the sessions. */
  limit?: number;
  kinds?: ActivityKind[];
  /**
   * Only this client's (`claude-code`, `codex`): the sessions it ran, with all their entries, and the entries of no
   * session it is named on (as the Activity pane's client filter shows them).
   */
  agent?: string;
  /**
   * Each session's figures without its entries (the Activity pane asks a session's entries when it opens it): entries
   * that belong to no session are still answered. Months of entries then cost the reader no memory.
   */
  summary?: boolean;
}

export interface ActivityResult {
  /** Oldest first. */
  entries: ActivityEntry[];
  /** Newest session first. */
  sessions: ActivitySession[];
  /** Entries that matched, before `limit`. */
  matched: number;
  /** Lines that could not be read (a torn write, a hand edit): skipped. */
  unreadable: number;
}

/** The rotated generations the host keeps beside the current file (`<file>.1` … `.3`, hosting/log.ts). */
const GENERATIONS = 3;

/** The activity file of a vault in the host's state store. */
export function activityFile(vaultKey: string): string {
  return `logs/activity-${vaultKey}.jsonl`;
}

export class ActivityRecord {
  private writing: Promise<void> = Promise.resolve();
  private failed = false;

  constructor(
    private readonly store: StateStore,
    readonly file: string,
    private readonly clock: Clock,
    private readonly log: (level: 'warn', message: string) => void = () => {},
    /** A UI host's yield (the plugin): a read of months of entries gives the editor a turn every slice. */
    private readonly yieldNow?: Yield,
  ) {}

  /** Records an entry after those before it; never throws, never waits (a failing disk is said once in the log). */
  add(entry: ActivityInput): void {
    const line = JSON.stringify({ t: new Date(this.clock.now()).toISOString(), ...entry });
    this.writing = this.writing
      .then(() => this.store.append(this.file, line))
      .then(
        () => void (this.failed = false),
        (e) => {
          if (!this.failed) this.log('warn', `activity record not written: ${errorMessage(e)}`);
          this.failed = true;
        },
      );
  }

  /** Resolves when every entry added so far is written (before exit, and before a read). */
  written(): Promise<void> {
    return this.writing;
  }

  async read(q: ActivityQuery = {}): Promise<ActivityResult> {
    await this.written();
    return readActivity(this.store, this.file, q, this.yieldNow ? new TimeSlicer(this.clock, this.yieldNow) : undefined);
  }

  /** Each matching entry to `visit`, kept by nobody (scanActivity); `slicer`: the caller's time slices, else the record's. */
  async scan(q: Pick<ActivityQuery, 'session' | 'since' | 'kinds'>, visit: (e: ActivityEntry) => void, slicer?: TimeSlicer): Promise<number> {
    await this.written();
    return scanActivity(this.store, this.file, q, slicer ?? (this.yieldNow ? new TimeSlicer(this.clock, this.yieldNow) : undefined), visit);
  }
}

/** The record's entries (every kept generation, oldest first) that match the query, with each session's figures. */
export async function readActivity(store: StateStore, file: string, q: ActivityQuery = {}, slicer?: TimeSlicer): Promise<ActivityResult> {
  let entries: ActivityEntry[] = [];
  const by = new Map<string, ActivitySession>();
  let matched = 0;
  const unreadable = await scanActivity(store, file, q, slicer, (e) => {
    matched++;
    if (e.session) addToSession(by, e.session, e);
    if (!(q.summary && e.session)) entries.push(e);
  });
  let sessions = sortSessions(by);
  if (q.agent !== undefined) {
    // A session is its client's when any of its entries names it (record.ts: the first that does).
    const agent = q.agent;
    sessions = sessions.filter((s) => s.agent === agent);
    const kept = new Set(sessions.map((s) => s.session));
    entries = entries.filter((e) => (e.session ? kept.has(e.session) : e.agent === agent));
    matched = entries.length + (q.summary ? sessions.reduce((n, s) => n + s.count, 0) : 0);
  }
  return { entries: q.limit !== undefined ? entries.slice(-q.limit) : entries, sessions, matched, unreadable };
}

/**
 * Calls `visit` with each entry of the record (every kept generation, oldest first) that matches the query's session,
 * time and kinds, parsing no line it can skip, in the slicer's time slices; returns the count of unreadable lines. What
 * `visit` does not keep is garbage at once: a reader that only adds figures up holds no memory for months of entries.
 */
export async function scanActivity(store: StateStore, file: string, q: Pick<ActivityQuery, 'session' | 'since' | 'kinds'>, slicer: TimeSlicer | undefined, visit: (e: ActivityEntry) => void): Promise<number> {
  const names = [...Array.from({ length: GENERATIONS }, (_, i) => `${file}.${GENERATIONS - i}`), file];
  let unreadable = 0;
  const kinds = q.kinds?.length ? new Set(q.kinds) : undefined;
  // The record writes each line's time first (`{"t":"<ISO>"`): a line older than `since` is skipped unparsed.
  const sinceIso = q.since === undefined ? undefined : new Date(q.since).toISOString();
  // And a line that does not name the session asked for (as JSON writes it) is not that session's.
  const sessionKey = q.session === undefined ? undefined : `"session":${JSON.stringify(q.session)}`;
  for (const name of names) {
    // One generation at a time (up to 5 MB each): the older ones are garbage once read.
    const text = await store.read(name).catch(() => undefined);
    if (!text) continue;
    // Line by line without splitting the whole text at once (months of entries are megabytes).
    for (let at = 0; at < text.length; ) {
      if (slicer?.due()) await slicer.yield();
      const nl = text.indexOf('\n', at);
      const end = nl < 0 ? text.length : nl;
      const from = at;
      at = end + 1;
      if (end - from < 2) continue;
      if (sinceIso !== undefined && text.startsWith('{"t":"', from) && text.charCodeAt(from + 30) === 34 && text.slice(from + 6, from + 30) < sinceIso) continue;
      const line = text.slice(from, end);
      if (sessionKey !== undefined && !line.includes(sessionKey)) continue;
      let e: ActivityEntry;
      try {
        e = JSON.parse(line) as ActivityEntry;
      } catch {
        if (line.trim()) unreadable++;
        continue;
      }
      if (typeof e !== 'object' || e === null || typeof e.t !== 'string' || !ACTIVITY_KINDS.includes(e.kind)) {
        unreadable++;
        continue;
      }
      if (q.session !== undefined && e.session !== q.session) continue;
      if (q.since !== undefined && Date.parse(e.t) < q.since) continue;
      if (kinds && !kinds.has(e.kind)) continue;
      visit(e);
    }
  }
  return unreadable;
}

/** The sessions, newest first. */
export function sortSessions(by: Map<string, ActivitySession>): ActivitySession[] {
  return [...by.values()].sort((a, b) => (a.last < b.last ? 1 : a.last > b.last ? -1 : 0));
}

/** Adds an entry of `session` to its figures. */
export function addToSession(by: Map<string, ActivitySession>, session: string, e: ActivityEntry): void {
  let s = by.get(session);
  if (!s) {
    s = { session, first: e.t, last: e.t, count: 0, ...emptyTally() };
    by.set(session, s);
  }
  s.agent ??= e.agent;
  s.project ??= e.project;
  if (e.t < s.first) s.first = e.t;
  if (e.t > s.last) s.last = e.t;
  s.count++;
  tally(s, e);
}
