// What each method answers: the result type beside its params (messages.ts), so a caller names the method and gets its
// result's type, never casts one (the MCP SDK's ResultTypeMap and typed request<M>() are the model).
import type { FlaggedNote, QueryAnswer } from '../engine.js';
import type { ApplyOutcome, ForgetResult, MaintainResult, RestructurePlanResult, ReviewPlanResult } from '../curate/service.js';
import type { RememberResult } from '../memory/remember.js';
import type { ExtractRun } from '../extract/extract.js';
import type { ActivityResult } from '../activity/record.js';
import type { StatsResult } from '../activity/stats.js';
import type { TeamResults } from '../team/recall.js';
import type { ContextResult, HelloResult, ImportResult, IndexUpdateResult, Method, RecallResult, StatusResult } from './messages.js';

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

/** Every method has exactly one result type: a method added to messages.ts without one types its results `never`. */
type CoversEveryMethod = [Exclude<Method, keyof MethodResults>, Exclude<keyof MethodResults, Method>] extends [never, never] ? true : false;

export type Result<M extends Method> = CoversEveryMethod extends true ? MethodResults[M] : never;

/**
 * The one place a result read off the wire takes its method's type: the host is trusted (its token and protocol version
 * were checked at hello), so what it answers for `method` is `Result<method>`.
 */
export function resultOf<M extends Method>(_method: M, raw: unknown): Result<M> {
  return raw as Result<M>;
}
