// The Activity pane's timeline: the record's entries grouped by day (newest first) and by session within a day, each
// session with its figures, filtered by project and by client (Claude Code, Codex). Entries without a session (MCP
// requests, Claude Code's memory imported) are a day's own group. Pure: the pane draws it, tests read it.
import { addTally, emptyTally, tally, type ActivityEntry, type ActivityResult, type ActivitySession, type ActivityTally } from './record.js';

export interface TimelineSession extends ActivitySession {
  /** Oldest first; undefined when the record was read as a summary (the pane asks them when the session opens). */
  entries?: ActivityEntry[];
}

export interface TimelineDay {
  /** `yyyy-mm-dd` (UTC). */
  day: string;
  /** Newest first. */
  sessions: TimelineSession[];
  /** The day's entries that belong to no session (MCP requests, memory imports), oldest first. */
  other: ActivityEntry[];
  totals: ActivityTally;
}

export interface TimelineFilter {
  /** Only sessions of this project (undefined: all). */
  project?: string;
  /** Only sessions of this client, `claude-code` or `codex` (undefined: all). */
  agent?: string;
}

export interface Timeline {
  days: TimelineDay[];
  /** Every project and client seen in the span, for the filters' choices. */
  projects: string[];
  agents: string[];
}

/**
 * Groups the record's answer (entries oldest first, no limit; or a summary: each session's figures, and only the entries
 * of no session) into days and sessions, filtered.
 */
export function timeline(result: Pick<ActivityResult, 'entries' | 'sessions'>, filter: TimelineFilter = {}): Timeline {
  // The sessions' figures are the record's (record.ts summarizes them); here each gets its entries.
  const summary = result.entries.every((e) => !e.session);
  const sessions = new Map<string, TimelineSession>(result.sessions.map((s) => [s.session, summary ? { ...s } : { ...s, entries: [] }]));
  const other = new Map<string, ActivityEntry[]>();
  const projects = new Set<string>();
  const agents = new Set<string>();
  for (const s of result.sessions) {
    if (s.project) projects.add(s.project);
    if (s.agent) agents.add(s.agent);
  }
  for (const e of result.entries) {
    if (e.project) projects.add(e.project);
    if (e.agent) agents.add(e.agent);
    const s = e.session === undefined ? undefined : sessions.get(e.session);
    if (s) s.entries?.push(e);
    else if (!e.session) {
      const day = e.t.slice(0, 10);
      (other.get(day) ?? other.set(day, []).get(day)!).push(e);
    }
  }
  const days = new Map<string, TimelineDay>();
  const dayOf = (d: string) => days.get(d) ?? days.set(d, { day: d, sessions: [], other: [], totals: emptyTally() }).get(d)!;
  for (const s of sessions.values()) {
    if (filter.project !== undefined && s.project !== filter.project) continue;
    if (filter.agent !== undefined && s.agent !== filter.agent) continue;
    // A session belongs to the day it was last active.
    const d = dayOf(s.last.slice(0, 10));
    d.sessions.push(s);
    addTally(d.totals, s);
  }
  // A filtered view shows only what the filter names: session-less entries only when nothing is filtered, or memory
  // imports of the chosen project.
  for (const [day, list] of other) {
    const kept = list.filter((e) => (filter.agent === undefined || e.agent === filter.agent) && (filter.project === undefined || e.project === filter.project));
    if (!kept.length) continue;
    const d = dayOf(day);
    d.other = kept;
    for (const e of kept) tally(d.totals, e);
  }
  const byLast = (a: TimelineSession, b: TimelineSession) => (a.last < b.last ? 1 : a.last > b.last ? -1 : 0);
  const out = [...days.values()].sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : 0));
  for (const d of out) d.sessions.sort(byLast);
  return { days: out, projects: [...projects].sort(), agents: [...agents].sort() };
}

/** The notes an entry names (injected, withheld, filed or proposed, cited, read, imported), with what happened to each. */
export function entryNotes(e: ActivityEntry): Array<{ path: string; role: 'injected' | 'withheld' | 'filed' | 'proposed' | 'cited' | 'read' | 'imported'; detail: string }> {
  switch (e.kind) {
    case 'inject':
      return [
        ...e.notes.map((n) => ({ path: n.path, role: 'injected' as const, detail: `${n.heading ? `#${n.heading}: ` : ''}${n.why.join('; ')}` })),
        ...e.withheld.map((w) => ({ path: w.path, role: 'withheld' as const, detail: w.why })),
      ];
    case 'extract':
      return [
        ...e.beats.map((b) => ({ path: b.path, role: b.action === 'proposed' ? ('proposed' as const) : ('filed' as const), detail: `${b.action}${b.type ? ` ${b.type}` : ''}` })),
        ...(e.cited ?? []).map((p) => ({ path: p, role: 'cited' as const, detail: 'named by the assistant' })),
      ];
    case 'mcp':
      return (e.notes ?? []).map((p) => ({ path: p, role: 'read' as const, detail: `MCP ${e.method}` }));
    case 'memory':
      return [{ path: e.path, role: 'imported', detail: `${e.action} from ${e.source}` }];
    default:
      return [];
  }
}

/** One line saying what an entry was, as `engram activity` words it (shorter). */
export function entrySummary(e: ActivityEntry): string {
  switch (e.kind) {
    case 'event':
      return `${e.event}: queued for capture`;
    case 'inject':
      return e.notes.length ? `${e.event}: injected ${e.notes.length} note${e.notes.length === 1 ? '' : 's'}, ~${e.tokens} tokens${e.withheld.length ? `, ${e.withheld.length} withheld` : ''}` : `${e.event}: nothing injected${e.withheld.length ? ` (${e.withheld.length} withheld)` : ''}`;
    case 'extract': {
      const tokens = e.windows.reduce((n, w) => n + w.inputTokens + w.outputTokens, 0);
      return `capture: ${e.outcome}${tokens ? ` (${tokens.toLocaleString('en-US')} LLM tokens)` : ''}`;
    }
    case 'mcp':
      return `MCP ${e.method}: ${e.answerChars.toLocaleString('en-US')} chars in ${e.ms} ms${e.error ? ` (error: ${e.error})` : ''}`;
    case 'failure':
      return `failed: ${e.what}: ${e.error} (${e.next === 'retry' ? 'retried on the next sweep' : 'set aside'})`;
    case 'memory':
      return `Claude Code memory: ${e.action}${e.why ? ` (${e.why})` : ''}`;
  }
}
