// The dashboard's figures (`engram stats`, the Dashboard pane): per day, what was captured and injected and what it
// cost in tokens; per session, the injected tokens against the session budget; the notes by type and project; the
// review backlog; failures. Read from the activity record and the engine's note metadata, nothing else.
import type { NoteMeta } from '../note/meta.js';
import { tokens } from '../recall/passages.js';
import { addToSession, emptyTally, sortSessions, tally, type ActivityEntry, type ActivityResult, type ActivitySession, type ActivityTally } from './record.js';
import { addRedactions, InjectionUseTally, type InjectionUse } from './usage.js';
import { runSync } from '../index/snapshot.js';

export interface DayFigures extends ActivityTally {
  /** `yyyy-mm-dd` (UTC). */
  day: string;
  /** Notes created that day (from their `created`). */
  notesCreated: number;
  /** Secrets redacted from the transcripts captured that day (each session counted once: usage.ts). */
  redactions: number;
  /**
   * Most tokens the configured caps let that day's context requests inject: recall.session_start_chars for each
   * SessionStart and recall.prompt_chars for each prompt, at most recall.session_chars per session and day (afresh
   * after a SessionStart), in tokens as the record counts them (recall/passages.ts `tokens`); 0 without caps.
   */
  budgetTokens: number;
}

export interface SessionCost {
  session: string;
  project?: string;
  agent?: string;
  last: string;
  injections: number;
  injectedTokens: number;
  captureTokens: number;
}

export interface StatsResult {
  since: string;
  days: DayFigures[];
  /** The sessions of the span, newest first (at most 50). */
  sessions: SessionCost[];
  /** Most tokens a session may be given (recall.session_chars, estimated); 0: no limit. */
  sessionBudgetTokens: number;
  /** The caps the days' budgets were counted with (characters), when the host gave them. */
  caps?: InjectionCaps;
  totals: { sessions: number; injections: number; injectedTokens: number; captureTokens: number; filed: number; proposed: number; failures: number; mcpCalls: number; redactions: number };
  /** Of the notes injected, how many were later read over MCP or named by the assistant (usage.ts: a floor). */
  use: InjectionUse;
  notes: { total: number; byType: Record<string, number>; byProject: Record<string, number>; engram: number };
  /** Working-memory notes whose review date has come. */
  reviewBacklog: number;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The injection caps in characters (config recall.*): per SessionStart, per prompt, per session (0: none). */
export interface InjectionCaps {
  sessionStartChars: number;
  promptChars: number;
  sessionChars: number;
}

/** What the dashed budget line of injected tokens per day means, in words (the Dashboard pane and `stats --html`). */
export function budgetLegend(c: InjectionCaps): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `Dashed: the day's budget, the most its context requests could have been given (${n(c.sessionStartChars)} characters at a session's start, ${n(c.promptChars)} a prompt${c.sessionChars ? `, at most ${n(c.sessionChars)} a session` : ''}; a token is about four characters)`;
}

export interface StatsOptions {
  now: number;
  days: number;
  sessionChars: number;
  /** Per-event caps for the days' budgets (absent: no budget per day). */
  caps?: InjectionCaps;
  archive?: string;
  /** The engine's count of working memory due (Engine.dueCount). */
  reviewBacklog: number;
}

/**
 * The record's figures over a span, added up entry by entry as the record is read (scanActivity): nothing is kept per
 * entry, so months of them cost a UI host no memory and no long garbage collection.
 */
export class ActivityFigures {
  readonly days = new Map<string, DayFigures>();
  readonly first: number;
  private readonly sessions = new Map<string, ActivitySession>();
  private readonly use = new InjectionUseTally();
  private readonly redactions = new Map<string, { day: string; count: number }>();
  /** Per session, its budget's run this day: the characters its requests' caps add up to. */
  private readonly runs = new Map<string, { day: string; chars: number }>();

  /** `sessions`: the sessions' figures when the reader has them already (readActivity); else they are added up here. */
  constructor(
    now: number,
    days: number,
    private readonly given?: ActivitySession[],
    private readonly caps?: InjectionCaps,
  ) {
    this.first = now - (days - 1) * 86_400_000;
    for (let t = this.first; dayOf(t) <= dayOf(now); t += 86_400_000) {
      this.days.set(dayOf(t), { day: dayOf(t), ...emptyTally(), notesCreated: 0, redactions: 0, budgetTokens: 0 });
    }
  }

  add(e: ActivityEntry): void {
    const d = this.days.get(e.t.slice(0, 10));
    if (d) tally(d, e);
    if (e.session && !this.given) addToSession(this.sessions, e.session, e);
    this.use.add(e);
    addRedactions(this.redactions, e);
    if (e.kind === 'inject' && d && this.caps) this.addBudget(d, e.event, e.session, e.t.slice(0, 10));
  }

  /** A context request's cap, within what is left of its session's budget that day. */
  private addBudget(d: DayFigures, event: string, session: string | undefined, day: string): void {
    const caps = this.caps!;
    const cap = event === 'SessionStart' ? caps.sessionStartChars : caps.promptChars;
    let run = session === undefined ? undefined : this.runs.get(session);
    if (session !== undefined && (!run || run.day !== day || event === 'SessionStart')) this.runs.set(session, (run = { day, chars: 0 }));
    const room = caps.sessionChars && run ? Math.max(0, caps.sessionChars - run.chars) : cap;
    const chars = Math.min(cap, room);
    if (run) run.chars += chars;
    // Counted in characters per day, in tokens at the end (as each entry's tokens are counted from its characters).
    d.budgetTokens += chars;
  }

  /** The sessions, newest first. */
  sessionList(): ActivitySession[] {
    return this.given ?? sortSessions(this.sessions);
  }

  injectionUse(): InjectionUse {
    return this.use.result();
  }

  /** Secrets redacted per day (each session's count on the day it was seen), and each day's budget in tokens. */
  finishDays(): void {
    for (const d of this.days.values()) d.budgetTokens = d.budgetTokens ? tokens(d.budgetTokens) : 0;
    for (const r of this.redactions.values()) {
      const d = this.days.get(r.day);
      if (d) d.redactions += r.count;
    }
  }
}

export function activityStats(activity: ActivityResult, notes: Iterable<NoteMeta>, opts: StatsOptions): StatsResult {
  const figures = new ActivityFigures(opts.now, opts.days, activity.sessions, opts.caps);
  for (const e of activity.entries) figures.add(e);
  return runSync(activityStatsSteps(figures, notes, opts));
}

/** Notes between two steps. */
const STEP = 512;

/** The figures' result with the notes' (a UI host runs the steps in time slices: TimeSlicer.run). */
export function* activityStatsSteps(figures: ActivityFigures, notes: Iterable<NoteMeta>, opts: StatsOptions): Generator<void, StatsResult> {
  const days = figures.days;
  figures.finishDays();
  const byType: Record<string, number> = {};
  const byProject: Record<string, number> = {};
  let total = 0;
  let engram = 0;
  let seen = 0;
  for (const m of notes) {
    if (++seen % STEP === 0) yield;
    if (opts.archive && m.path.startsWith(`${opts.archive}/`)) continue;
    total++;
    if (m.engramId) engram++;
    byType[m.type ?? 'untyped'] = (byType[m.type ?? 'untyped'] ?? 0) + 1;
    if (m.project) byProject[m.project] = (byProject[m.project] ?? 0) + 1;
    const created = m.created === undefined ? undefined : days.get(dayOf(m.created));
    if (created) created.notesCreated++;
  }
  const use = figures.injectionUse();
  const list = [...days.values()];
  const sum = (k: keyof DayFigures) => list.reduce((n, d) => n + (d[k] as number), 0);
  const all = figures.sessionList();
  const sessions = all.slice(0, 50).map((s) => ({
    session: s.session,
    ...(s.project ? { project: s.project } : {}),
    ...(s.agent ? { agent: s.agent } : {}),
    last: s.last,
    injections: s.injections,
    injectedTokens: s.injectedTokens,
    captureTokens: s.inputTokens + s.outputTokens,
  }));
  return {
    since: new Date(figures.first).toISOString().slice(0, 10),
    days: list,
    sessions,
    sessionBudgetTokens: opts.sessionChars ? tokens(opts.sessionChars) : 0,
    ...(opts.caps ? { caps: opts.caps } : {}),
    totals: { sessions: all.length, injections: sum('injections'), injectedTokens: sum('injectedTokens'), captureTokens: sum('inputTokens') + sum('outputTokens'), filed: sum('filed'), proposed: sum('proposed'), failures: sum('failures'), mcpCalls: sum('mcpCalls'), redactions: sum('redactions') },
    use,
    notes: { total, byType, byProject, engram },
    reviewBacklog: opts.reviewBacklog,
  };
}
