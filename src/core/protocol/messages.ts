// Every method a host answers: its params, checked here (the one place both sides agree on shapes), and beside them
// what it answers (MethodResults), so a caller names the method and gets its result's type, never casts one (the MCP
// SDK's ResultTypeMap and typed request<M>() are the model). A new method is its entry in both, in this one file.
import type { IndexStats, OpenReport } from '../index/vault-index.js';
import { v, type Check, type Spec } from './schema.js';
import type { SearchHit } from '../index/types.js';
import type { TeamHit } from '../team/store.js';
import { BACKENDS } from '../config.js';
import type { ExtractRun } from '../extract/extract.js';
import { ACTIVITY_KINDS, type ActivityResult } from '../activity/record.js';
import { HOOK_CLIENTS } from '../transcript/client.js';
import type { FlaggedNote } from '../recall/vet.js';
import type { QueryAnswer } from '../engine/index-port.js';
import type { ApplyOutcome, ForgetResult, MaintainResult, RestructurePlanResult, ReviewPlanResult } from '../curate/service.js';
import type { RememberResult } from '../memory/remember.js';
import type { StatsResult } from '../activity/stats.js';
import type { TeamResults } from '../team/recall.js';

const ref = v.string({ min: 1, max: 1024 });
const limit = v.optional(v.int({ min: 1, max: 50 }));
/** Who acts, for the vault's Engram log: `cli`, `mcp`, `plugin` (the host's own default when absent). */
const actor = v.optional(v.string({ min: 1, max: 64 }));
/**
 * Which MCP client asks (1.7), told by the name its `initialize` gave (transcript/client.ts): the activity record names
 * it on the request's `mcp` entry. Every method the MCP server calls takes it (sidecar/mcp/host-link.ts sends it).
 */
const agent = v.optional(v.oneOf(HOOK_CLIENTS));

export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'PreCompact', 'SessionEnd'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export const methodParams = {
  hello: v.object({
    token: v.string({ min: 1, max: 256 }),
    protocolVersion: v.string({ min: 1, max: 16 }),
    client: v.optional(v.string({ max: 64 })),
    /** A newer client may ask an older host to exit (the plugin does when it starts). */
    takeover: v.optional(v.boolean()),
  }),
  ping: v.object({}),
  /** A hook spooled an event: drain the spool soon. */
  'spool.notify': v.object({}),
  context: v.object({
    event: v.oneOf(['SessionStart', 'UserPromptSubmit'] as const),
    /** SessionStart's `source` as the agent gave it (startup, resume, clear, compact). */
    source: v.optional(v.string({ max: 32 })),
    sessionId: v.optional(v.string({ max: 256 })),
    prompt: v.optional(v.string({ max: 100_000 })),
    cwd: v.optional(v.string({ max: 4096 })),
    project: v.optional(v.string({ max: 256 })),
    maxChars: v.optional(v.int({ min: 100, max: 10_000 })),
    maxItems: v.optional(v.int({ min: 1, max: 20 })),
    /** Which agent runs the hook (1.6), for the activity record: told by its transcript's name (transcript/detect.ts). */
    agent: v.optional(v.oneOf(HOOK_CLIENTS)),
  }),
  recall: v.object({
    query: v.string({ min: 1, max: 4000 }),
    limit,
    types: v.optional(v.array(v.string({ max: 64 }), 20)),
    project: v.optional(v.string({ max: 256 })),
    allProjects: v.optional(v.boolean()),
    since: v.optional(v.string({ max: 64 })),
    /** Only notes in these folders (and below), or with these tags: what the MCP `search` tool narrows by. */
    folders: v.optional(v.array(v.string({ max: 1024 }), 20)),
    tags: v.optional(v.array(v.string({ max: 256 }), 20)),
    full: v.optional(v.int({ min: 0, max: 10 })),
    /** Ask the configured LLM backend for a short answer from the recalled notes. */
    synthesize: v.optional(v.boolean()),
    agent,
  }),
  /** One query through the engine's one road (as recall and the hooks see it), answered as `engram search` shows it. */
  search: v.object({
    query: v.string({ max: 100_000 }),
    limit: v.optional(v.int({ min: 1, max: 1000 })),
    types: v.optional(v.array(v.string({ max: 64 }), 20)),
    projects: v.optional(v.array(v.string({ max: 256 }), 20)),
    scope: v.optional(v.oneOf(['project', 'general'] as const)),
    folders: v.optional(v.array(v.string({ max: 1024 }), 20)),
    tags: v.optional(v.array(v.string({ max: 256 }), 20)),
    since: v.optional(v.int({})),
    until: v.optional(v.int({})),
    durability: v.optional(v.oneOf(['durable', 'working'] as const)),
    mode: v.optional(v.oneOf(['hybrid', 'bm25', 'vector'] as const)),
    expandLinks: v.optional(v.int({ min: 0, max: 2 })),
  }),
  read: v.object({ ref, agent }),
  remember: v.object({
    text: v.string({ min: 1, max: 50_000 }),
    title: v.optional(v.string({ max: 200 })),
    type: v.optional(v.string({ max: 64 })),
    project: v.optional(v.string({ max: 256 })),
    scope: v.optional(v.oneOf(['project', 'general'] as const)),
    tags: v.optional(v.array(v.string({ max: 64 }), 20)),
    onDuplicate: v.optional(v.oneOf(['ask', 'extend', 'new'] as const)),
    agent,
  }),
  extract: v.object({ path: v.string({ min: 1, max: 4096 }), sessionId: v.optional(v.string({ max: 256 })), agent }),
  /** Archive a note (Curation#forget). `byUser`: a person named it in a terminal (their own note, by exact path). */
  forget: v.object({ ref, actor, byUser: v.optional(v.boolean()), agent }),
  /** Curation, typed (src/core/curate/service.ts): plans store proposals and change no note; apply changes the vault. */
  'review.plan': v.object({ actor, dueWithinDays: v.optional(v.int({ min: 0, max: 3650 })), backend: v.optional(v.oneOf(BACKENDS)), agent }),
  'restructure.plan': v.object({ actor, folder: v.optional(v.string({ max: 1024 })), threshold: v.optional(v.number({ min: 0, max: 1 })), backend: v.optional(v.oneOf(BACKENDS)), agent }),
  'maintain.run': v.object({ actor, apply: v.optional(v.boolean()), staleDays: v.optional(v.int({ min: 0, max: 36500 })) }),
  /** `edits`: the user's text for a note a proposal creates (a promotion edited before approving). */
  'curate.apply': v.object({
    actor,
    ids: v.array(v.string({ min: 1, max: 128 }), 100),
    edits: v.optional(v.array(v.object({ id: v.string({ min: 1, max: 128 }), path: v.string({ min: 1, max: 4096 }), text: v.string({ min: 1, max: 200_000 }) }), 100)),
    agent,
  }),
  /** Remember that the user rejected these proposals (not proposed again until one of their notes changes). */
  'curate.reject': v.object({ actor, ids: v.array(v.string({ min: 1, max: 128 }), 100) }),
  reindex: v.object({ agent }),
  /** Notes holding text addressed to an AI (Engine.flagged): the review pane, `engram flagged`, the activity record. */
  flagged: v.object({}),
  /** `engram extract` for a live host: one transcript, queued with the hooks' jobs, answered with the run. */
  'extract.run': v.object({ path: v.string({ min: 1, max: 4096 }), backend: v.optional(v.oneOf(BACKENDS)), dryRun: v.optional(v.boolean()) }),
  /** `engram import` for a live host: one queued job; `import.progress` notifications after each conversation. */
  'import.run': v.object({ path: v.string({ min: 1, max: 4096 }), backend: v.optional(v.oneOf(BACKENDS)), keepRuns: v.optional(v.boolean()), dryRun: v.optional(v.boolean()) }),
  /** Bring the index up to date with the vault (or rebuild it from nothing) and save its snapshot. */
  'index.update': v.object({ rebuild: v.optional(v.boolean()) }),
  status: v.object({ agent }),
  /** The activity record (src/core/activity/record.ts): entries of one session or since a time, with each session's figures. */
  activity: v.object({
    session: v.optional(v.string({ min: 1, max: 256 })),
    since: v.optional(v.string({ max: 64 })),
    limit: v.optional(v.int({ min: 1, max: 10_000 })),
    kinds: v.optional(v.array(v.oneOf(ACTIVITY_KINDS), 6)),
    /** Only this client's sessions and entries (1.6). */
    agent: v.optional(v.oneOf(HOOK_CLIENTS)),
    /** Each session's figures without its entries; the entries of no session still (1.6: the Activity pane). */
    summary: v.optional(v.boolean()),
  }),
  /** The dashboard's figures over the last `days` (src/core/activity/stats.ts). */
  stats: v.object({ days: v.optional(v.int({ min: 1, max: 365 })) }),
  configure: v.object({ key: v.string({ min: 1, max: 64 }), value: v.json(), agent }),
  'host.release': v.object({ reason: v.optional(v.string({ max: 200 })) }),
  /** An agent proposes a note for the team store (docs/team.md): kept for the person to approve; nothing is sent. */
  'team.propose': v.object({ ref: v.string({ min: 1, max: 1024 }), why: v.optional(v.string({ max: 500 })), agent }),
} satisfies Record<string, Check<unknown>>;

export type Method = keyof typeof methodParams;

/**
 * The methods that change the vault, the queue or the configuration: what an agent may not call in read-only mode
 * (recall.read_only). A new method that writes is listed here, beside its params.
 */
export const WRITE_METHODS: ReadonlySet<Method> = new Set<Method>(['remember', 'forget', 'extract', 'configure', 'reindex', 'curate.apply', 'curate.reject', 'maintain.run', 'extract.run', 'import.run', 'index.update']);
export type Params<M extends Method> = ReturnType<(typeof methodParams)[M]>;

export function isMethod(name: string): name is Method {
  return Object.prototype.hasOwnProperty.call(methodParams, name);
}

/** A method's params as data (schema.ts's Spec), field by field: what a client derives its own input schema from. */
export function paramFields<M extends Method>(method: M): Record<keyof Params<M> & string, Spec> {
  const spec = methodParams[method].spec;
  if (spec.kind !== 'object') throw new Error(`${method}: params are not an object`);
  return spec.shape;
}

/** Validates params for a method; throws ParamError with a path and a reason. */
export function checkParams<M extends Method>(method: M, params: unknown): Params<M> {
  return methodParams[method](params, 'params') as Params<M>;
}

export interface HelloResult {
  protocolVersion: string;
  host: 'daemon' | 'plugin';
  pid: number;
  vault: string;
}

export interface ContextItem {
  path: string;
  title: string;
  why: string[];
  score: number;
}

export interface ContextResult {
  /** The fenced text to inject, absent when nothing cleared the relevance bar. */
  text?: string;
  items: ContextItem[];
}

export interface RecallResult {
  /** `trust`: where the note's text came from (recall/trust.ts); outside text is never injected by hooks. */
  hits: (SearchHit & { body?: string; trust?: 'user' | 'engram' | 'outside' })[];
  /** The fenced rendering for agents. */
  text: string;
  mode: string;
  synthesis?: string;
  /** The team store's notes that joined (docs/team.md), and the fused order of vault paths and `team:<id>` keys. */
  team?: TeamHit[];
  order?: string[];
}

/**
 * The notification a host sends as a long request moves from one step to the next (`index.update`,
 * `restructure.plan`): the CLI redraws it in place on a terminal and prints one line per step in a pipe.
 */
export const WORK_PROGRESS = 'work.progress';
export interface WorkProgress {
  /** What the host is doing now, e.g. `reading every note`. */
  step: string;
  /** How far, when it can count (notes read of the total). */
  done?: number;
  total?: number;
}

/** The notification a host sends after each conversation of a streamed `import.run`. */
export const IMPORT_PROGRESS = 'import.progress';
export interface ImportProgress {
  done: number;
  total: number;
  /** Notes written so far. */
  created: number;
}

export interface ImportResult {
  file: string;
  conversations: number;
  /** Conversations finished by an earlier run (skipped). */
  resumed: number;
  created: number;
  extended: number;
  rejected: number;
  errors: number;
  tokens: number;
  /** Elements of the export that were not conversations. */
  skippedElements: number;
  /** Each conversation's run with its title, when asked for (`keepRuns`). */
  runs: (ExtractRun & { title?: string })[];
}

export interface IndexUpdateResult {
  vault: string;
  /** The host's process id (it did the work). */
  pid: number;
  notes: number;
  mode: string;
  rebuilt: boolean;
  ms: number;
  /** The snapshot file and its size (0 when the host keeps none). */
  snapshot?: string;
  snapshotBytes: number;
  /** Answered by the CLI's own host, which opened the index for this command: how it opened, its figures after. */
  opened?: OpenReport;
  stats?: IndexStats;
  /** Why search is BM25 only (no embedding model, or it failed to load), when the CLI's own host opened the index. */
  modelProblem?: string;
}

export interface StatusResult {
  vault: string;
  /** `cli`: the CLI's in-process host, opened for one command while no host is live. */
  host: 'daemon' | 'plugin' | 'cli';
  pid: number;
  protocolVersion: string;
  uptimeMs: number;
  /** The daemon exits after this long idle; absent for the plugin host, which stays while Obsidian is open. */
  idleExitMs?: number;
  queue: { pending: number; running: string | null; done: number; failed: number; spooled: number; deferred?: number; failedEvents?: number };
  index: { notes: number; ready: boolean; mode: string };
  lastRuns: { sessionId: string; at: string; outcome: string; notes: number }[];
  budget?: unknown;
}

// What each method answers.

/** One note in full, or one passage of it (`path#heading`), as `read` answers. */
export interface NoteText {
  path: string;
  title: string;
  text: string;
  heading?: string;
}

export interface MethodResults {
  hello: HelloResult;
  ping: { ok: true };
  'spool.notify': { ok: true };
  context: ContextResult;
  recall: RecallResult;
  search: QueryAnswer & TeamResults;
  read: NoteText;
  remember: RememberResult;
  extract: { queued: true; sessionId: string; path: string };
  forget: ForgetResult;
  'review.plan': ReviewPlanResult;
  'restructure.plan': RestructurePlanResult;
  'maintain.run': MaintainResult;
  'curate.apply': { applied: ApplyOutcome[] };
  'curate.reject': { rejected: string[] };
  reindex: { notes: number };
  flagged: { notes: FlaggedNote[] };
  'extract.run': ExtractRun;
  'import.run': ImportResult;
  'index.update': IndexUpdateResult;
  status: StatusResult;
  activity: ActivityResult;
  stats: StatsResult;
  configure: { key: string; value: unknown };
  'host.release': { releasing: true };
  'team.propose': { path: string; waiting: number };
}

/** Every method has exactly one result type: a method added to methodParams without one types its results `never`. */
type CoversEveryMethod = [Exclude<Method, keyof MethodResults>, Exclude<keyof MethodResults, Method>] extends [never, never] ? true : false;

export type Result<M extends Method> = CoversEveryMethod extends true ? MethodResults[M] : never;

/**
 * The one place a result read off the wire takes its method's type: the host is trusted (its token and protocol version
 * were checked at hello), so what it answers for `method` is `Result<method>`.
 */
export function resultOf<M extends Method>(_method: M, raw: unknown): Result<M> {
  return raw as Result<M>;
}
