// The dashboard's figures (`engram stats`, the Dashboard pane): per day, what was captured and injected and what it
// cost in tokens; per session, the injected tokens against the session budget; the notes by type and project; the
// review backlog; failures. Read from the activity record and the engine's note metadata, nothing else.
import type { NoteMeta } from '../note/meta.js';
import { tokens } from '../recall/passages.js';
import { emptyTally, tally, type ActivityResult, type ActivityTally } from './record.js';
import { injectionUseSteps, redactionsBySession, type InjectionUse } from './usage.js';
import { runSync } from '../index/snapshot.js';

export interface DayFigures extends ActivityTally {
  /** `yyyy-mm-dd` (UTC). */
  day: string;
  /** Notes created that day (from their `created`). */
  notesCreated: number;
  /** Secrets redacted from the transcripts captured that day (each session counted once: usage.ts). */
  redactions: number;
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
  totals: { sessions: number; injections: number; injectedTokens: number; captureTokens: number; filed: number; proposed: number; failures: number; mcpCalls: number; redactions: number };
  /** Of the notes injected, how many were later read over MCP or named by the assistant (usage.ts: a floor). */
  use: InjectionUse;
  notes: { total: number; byType: Record<string, number>; byProject: Record<string, number>; engram: number };
  /** Working-memory notes whose review date has come. */
  reviewBacklog: number;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface StatsOptions {
  now: number;
  days: number;
  sessionChars: number;
  archive?: string;
  /** The engine's count of working memory due (Engine.dueCount). */
  reviewBacklog: number;
}

export function activityStats(activity: ActivityResult, notes: Iterable<NoteMeta>, opts: StatsOptions): StatsResult {
  return runSync(activityStatsSteps(activity, notes, opts));
}

/** Entries or notes between two steps. */
const STEP = 512;

/** The same in steps (a UI host runs them in time slices: TimeSlicer.run). */
export function* activityStatsSteps(activity: ActivityResult, notes: Iterable<NoteMeta>, opts: StatsOptions): Generator<void, StatsResult> {
  const first = opts.now - (opts.days - 1) * 86_400_000;
  const days = new Map<string, DayFigures>();
  for (let t = first; dayOf(t) <= dayOf(opts.now); t += 86_400_000) {
    days.set(dayOf(t), { day: dayOf(t), ...emptyTally(), notesCreated: 0, redactions: 0 });
  }
  for (const [i, e] of activity.entries.entries()) {
    if (i % STEP === 0) yield;
    const d = days.get(e.t.slice(0, 10));
    if (d) tally(d, e);
  }
  for (const r of redactionsBySession(activity.entries).values()) {
    const d = days.get(r.day);
    if (d) d.redactions += r.count;
  }
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
  const use = yield* injectionUseSteps(activity.entries);
  const list = [...days.values()];
  const sum = (k: keyof DayFigures) => list.reduce((n, d) => n + (d[k] as number), 0);
  const sessions = activity.sessions.slice(0, 50).map((s) => ({
    session: s.session,
    ...(s.project ? { project: s.project } : {}),
    ...(s.agent ? { agent: s.agent } : {}),
    last: s.last,
    injections: s.injections,
    injectedTokens: s.injectedTokens,
    captureTokens: s.inputTokens + s.outputTokens,
  }));
  return {
    since: new Date(first).toISOString().slice(0, 10),
    days: list,
    sessions,
    sessionBudgetTokens: opts.sessionChars ? tokens(opts.sessionChars) : 0,
    totals: { sessions: activity.sessions.length, injections: sum('injections'), injectedTokens: sum('injectedTokens'), captureTokens: sum('inputTokens') + sum('outputTokens'), filed: sum('filed'), proposed: sum('proposed'), failures: sum('failures'), mcpCalls: sum('mcpCalls'), redactions: sum('redactions') },
    use,
    notes: { total, byType, byProject, engram },
    reviewBacklog: opts.reviewBacklog,
  };
}
