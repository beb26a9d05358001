// The typed operations of the protocol that every host answers the same way (the daemon today, the Obsidian plugin
// and the in-process test host tomorrow): one table over the engine and curation. A host adds what only it can do
// (context injection settings, the spool, extraction jobs, status, configure) and serves the table on its transport.
import type { ApplyGuard, Curation } from './curate/service.js';
import { EngramError } from './errors.js';
import type { Engine } from './engine.js';
import type { ContextRequest } from './engine/inject.js';
import { checkParams, type Method, type Params, type RecallResult, type Result } from './protocol/index.js';
import { parseSince } from './duration.js';
import { ActivityFigures, activityStatsSteps } from './activity/stats.js';
import { TimeSlicer } from './time-slice.js';
import { systemClock, type Clock } from './ports.js';
import { joinTeam, renderTeamRecall, teamClearsFloor, teamContext, teamKey, teamLabel, type TeamRecall } from './team/recall.js';
import { NO_CLOSE_MATCH } from './index/search.js';
import { NO_CLOSE_PREFACE, NO_NOTES } from './engine/answers.js';
import { withoutPrivate } from './transcript/private.js';

/** How many team passages a prompt's hook reads before the relevance bar (the vault's search reads 12 notes). */
const TEAM_CANDIDATES = 12;

/** The longest a `context` request waits for a starting host to be able to answer (hooks wait 9 s at most). */
const CONTEXT_READY_WAIT_MS = 10_000;

/** One method's operation: its checked params in, its typed result out. */
export type Operation<M extends Method> = (params: Params<M>) => Promise<Result<M>>;
export type OperationTable = { [M in Method]?: Operation<M> };

/** Checks raw params for `method` and runs it from the table; undefined when the table does not answer it. */
export function answer<M extends Method>(table: OperationTable, method: M, raw: unknown): Promise<Result<M>> | undefined {
  const op: Operation<M> | undefined = table[method];
  return op?.(checkParams(method, raw));
}

/** The injection settings a host reads from its configuration (read at each request: a change applies at once). */
export interface InjectionSettings {
  inject: boolean;
  sessionStartChars: number;
  promptChars: number;
  promptItems: number;
  /** Most characters injected over one session, all hooks together (0: no limit). */
  sessionChars: number;
}

export interface OperationDeps {
  engine: Engine;
  injection: () => InjectionSettings;
  /** A short answer from the recalled notes by the configured LLM (recall's `synthesize`); absent: none. */
  synthesize?: (query: string, result: RecallResult) => Promise<string | undefined>;
  clock?: Clock;
  /** Wraps each proposal's apply (the CLI's in-process host: Ctrl-C lets the apply under way finish). */
  applyGuard?: ApplyGuard;
  /** The team store's notes, from the local cache (docs/team.md): joined with the vault's in recall, search and hooks. */
  team?: TeamRecall;
}

/** `read` refuses absolute paths, traversal and the vault's hidden folders (other plugins keep secrets in .obsidian). */
export function checkReadRef(ref: string): void {
  const r = ref.replace(/\\/g, '/').replace(/^\[\[|\]\]$/g, '');
  if (r.startsWith('/') || /^[a-zA-Z]:\//.test(r)) throw new EngramError('refused', 'read takes a note title or a vault-relative path, not an absolute path');
  if (r.split('/').includes('..')) throw new EngramError('refused', 'read refuses paths that leave the vault');
  if (r.split('/')[0].startsWith('.')) throw new EngramError('refused', "read refuses the vault's hidden folders (its config folder keeps plugin secrets)");
}

/** `context`: the vault's notes for a hook, then the team's for the prompt, in what is left of the budget. */
function contextOperation({ engine, injection, team }: OperationDeps): Operation<'context'> {
  // The team notes each session was given by a hook (never twice in a session; afresh after /compact or /clear).
  const teamGiven = new Map<string, Set<string>>();
  return async (q) => {
    const s = injection();
    if (!s.inject) return { items: [] };
    // A host that has just started (the hook that found none started it and waits) answers once it can: from the
    // saved index and note cache, before the vault is listed (Engine.whenServing). The hook gives up at its own
    // deadline, and a wait is bounded here too.
    if (!engine.serving) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([engine.whenServing(), new Promise((r) => (timer = setTimeout(r, CONTEXT_READY_WAIT_MS)))]);
      clearTimeout(timer);
    }
    if (!engine.serving) return { items: [] };
    const start = q.event === 'SessionStart';
    if (q.sessionId && start && (q.source === 'compact' || q.source === 'clear')) teamGiven.delete(q.sessionId);
    const maxChars = q.maxChars ?? (start ? s.sessionStartChars : s.promptChars);
    // The team's notes for the prompt, after the vault's, in what is left of the event's and the session's budget
    // (the engine counts them as it counts the vault's): this project's or no project's, those that clear the vault's
    // relevance bar (the engine's, read with the vault's best hit).
    const prompt = start || !team ? '' : withoutPrivate(q.prompt ?? '').text;
    const given = (q.sessionId && teamGiven.get(q.sessionId)) || new Set<string>();
    const more: ContextRequest['more'] = (left, vaultPaths, relevant) => {
      const hits = relevant(team!.search(prompt, TEAM_CANDIDATES).filter((h) => !h.project || !q.project || h.project === q.project));
      // A team note whose copy in the vault this event gave is not given again.
      const copied = new Set(vaultPaths.flatMap((p) => engine.meta(p)?.teamNote ?? []));
      const shared = teamContext(hits, left, copied.size ? new Set([...given, ...copied]) : given);
      if (!shared.text) return { items: [] };
      if (q.sessionId) {
        for (const h of shared.used) given.add(h.id);
        teamGiven.set(q.sessionId, given);
        if (teamGiven.size > 500) teamGiven.delete(teamGiven.keys().next().value as string);
      }
      return { text: shared.text, items: shared.used.map((h) => ({ path: teamKey(h), title: h.title, why: [teamLabel(h)], score: h.score })) };
    };
    return engine.context({
      event: q.event,
      source: q.source,
      prompt: q.prompt,
      sessionId: q.sessionId,
      project: q.project,
      agent: q.agent,
      maxChars,
      maxItems: q.maxItems ?? (start ? 8 : s.promptItems),
      sessionChars: s.sessionChars,
      ...(prompt.trim() ? { more } : {}),
    });
  };
}

/** Which team note a vault note is a copy of (joinTeam shows the two as one). */
const copyOfIn = (engine: Engine) => (path: string): string | undefined => engine.meta(path)?.teamNote;

/** `recall`: the engine's recall, the team's notes joined by rank, and a short answer when asked. */
function recallOperation({ engine, synthesize, team }: OperationDeps, clock: Clock): Operation<'recall'> {
  return async (q) => {
    await engine.whenReady();
    const result = await engine.recall(q.query, {
      limit: q.limit ?? 8,
      types: q.types,
      projects: q.allProjects || !q.project ? undefined : [q.project],
      since: q.since === undefined ? undefined : parseSince(q.since, clock.now()),
      folders: q.folders,
      tags: q.tags,
      full: q.full,
    });
    // The team's notes join by reciprocal rank (not for a type or date filter: the team store knows neither).
    if (team && !q.types?.length && q.since === undefined) {
      const limit = q.limit ?? 8;
      const joined = joinTeam(result.hits, team.search(q.query, limit).filter((h) => q.allProjects || !q.project || !h.project || h.project === q.project), limit, copyOfIn(engine));
      if (joined.team.length) {
        result.team = joined.team;
        result.order = joined.order;
        // The floor is read on the best hit of both stores: a team note that clears it is a close match.
        let text = teamClearsFloor(joined.team) ? result.text.replace(NO_CLOSE_PREFACE, '') : result.text;
        // Nothing from the vault but something from the team: the team's notes are the answer, not "no notes".
        if (!result.hits.length) text = text.replace(NO_NOTES, '').trimEnd();
        result.text = text ? `${text}\n${renderTeamRecall(joined.team)}` : renderTeamRecall(joined.team);
      }
    }
    if (q.synthesize && synthesize) result.synthesis = await synthesize(q.query, result);
    return result;
  };
}

/** `search`: the query marked for people, with the team's notes joined to a plain query. */
function searchOperation({ engine, team }: OperationDeps): Operation<'search'> {
  return async ({ query, expandLinks, ...filters }) => {
    await engine.whenReady();
    // Marked for people: outside text, text addressed to an AI (the CLI and the Search pane show the marks).
    const answer = await engine.mark(await engine.query(query, { ...filters, expandLinks: expandLinks as 0 | 1 | 2 | undefined }));
    // The team's notes join a plain query (the team store knows none of the filters but the project).
    const plain = !filters.types && !filters.folders && !filters.tags && !filters.scope && filters.since === undefined && filters.until === undefined && !filters.durability;
    if (!team || !plain || !query.trim()) return answer;
    const projects = filters.projects ?? [];
    const limit = filters.limit ?? 10;
    const joined = joinTeam(answer.hits, team.search(query, limit).filter((h) => !projects.length || !h.project || projects.includes(h.project)), limit, copyOfIn(engine));
    if (!joined.team.length) return answer;
    // The floor is read on the best hit of both stores: a team note that clears it is a close match.
    const notices = teamClearsFloor(joined.team) ? answer.notices.filter((n) => n !== NO_CLOSE_MATCH) : answer.notices;
    return { ...answer, notices, ...joined };
  };
}

export function coreOperations(deps: OperationDeps): OperationTable {
  const { engine, injection, clock = systemClock, applyGuard } = deps;
  const curation = (): Curation => {
    if (!engine.curation) throw new EngramError('refused', 'curation needs a state store, which this host did not give the engine');
    return engine.curation;
  };
  // Curation runs one request at a time, in curation's own queue (without curation, the work says why it cannot run).
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => (engine.curation ? engine.curation.exclusive(fn) : fn());
  // What a write changed is in the index before the answer goes out (a search right after sees it).
  const writing = <T>(fn: () => Promise<T>): Promise<T> =>
    serialized(async () => {
      await engine.whenReady();
      try {
        return await fn();
      } finally {
        await engine.reconcile();
      }
    });
  return {
    context: contextOperation(deps),
    recall: recallOperation(deps, clock),
    search: searchOperation(deps),
    read: async ({ ref }) => {
      checkReadRef(ref);
      await engine.whenReady();
      return engine.read(ref);
    },
    remember: async (p) => {
      await engine.whenReady();
      return engine.remember(p);
    },
    forget: ({ ref, ...opts }) => {
      return writing(() => engine.forget(ref, opts));
    },
    'review.plan': (p) => serialized(() => curation().reviewPlan(p)),
    'restructure.plan': (p) => serialized(() => curation().restructurePlan(p)),
    'maintain.run': (q) => {
      return q.apply ? writing(() => curation().maintain(q)) : serialized(() => curation().maintain(q));
    },
    'curate.apply': ({ ids, actor, edits }) => {
      return writing(async () => ({ applied: await curation().apply(ids, { actor, edits }, applyGuard) }));
    },
    'curate.reject': ({ ids }) => serialized(async () => ({ rejected: await curation().reject(ids) })),
    activity: async (q) => {
      if (!engine.activity) throw new EngramError('refused', 'this host keeps no activity record');
      return engine.activity.read({ session: q.session, since: q.since === undefined ? undefined : parseSince(q.since, clock.now()), limit: q.limit, kinds: q.kinds, agent: q.agent, summary: q.summary });
    },
    stats: async (q) => {
      if (!engine.activity) throw new EngramError('refused', 'this host keeps no activity record');
      await engine.whenReady();
      const days = q.days ?? 30;
      const now = clock.now();
      // Added up as the record is read, in time slices: months of entries in a UI host (the plugin) never hold the
      // editor, and none is kept.
      const slicer = new TimeSlicer(engine.ports.clock, engine.ports.yieldNow);
      const s = injection();
      const caps = { sessionStartChars: s.sessionStartChars, promptChars: s.promptChars, sessionChars: s.sessionChars };
      const figures = new ActivityFigures(now, days, undefined, caps);
      await engine.activity.scan({ since: now - days * 86_400_000 }, (e) => figures.add(e), slicer);
      return slicer.run(activityStatsSteps(figures, engine.notes(), { now, days, sessionChars: s.sessionChars, caps, archive: engine.config.folders.archive, reviewBacklog: engine.dueCount(new Date(now).toISOString().slice(0, 10)) }));
    },
    flagged: async () => ({ notes: await engine.flagged() }),
    reindex: async () => {
      await engine.whenReady();
      return engine.reindex();
    },
  };
}
