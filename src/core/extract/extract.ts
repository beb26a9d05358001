// Extraction of one session, exactly once: only what the ledger has not covered, each window journalled
// before its notes are written, the ledger advanced only after they are. Background runs respect the budget.
import { stableId } from '../hash.js';
import { startsWithPromptMarker } from '../transcript/fence.js';
import type { Session } from '../transcript/types.js';
import { catalogSimilarity } from './dedup.js';
import { JobStore, rangeCountsFor, RUNS_LOG, sessionKey, type JournalEntry } from './journal.js';
import { DEFAULT_FOLDERS, DEFAULT_REVIEW_DAYS } from './note-writer.js';
import type { Vocabulary } from './prompt.js';
import { dailyLimit, usageSummary } from './usage.js';
import { VaultCatalog } from './vault-catalog.js';
import { windowTokens, type ExtractWindow } from './window.js';
import { callWindow } from './window-call.js';
import type { ExtractRun, ExtractSessionOptions } from './run.js';
import { writeBeats, type NoteOutcome, type WriteContext } from './write-beats.js';
import { planWork } from './work-plan.js';
import { DEFAULT_TYPES, type NoteMeta } from '../note/meta.js';
import { privateZoneOf } from '../note/private-zone.js';
import { captureModeFor } from '../capture/mode.js';

export type { ExtractRun, ExtractSessionOptions } from './run.js';

export { RUNS_LOG };

function emptyRun(o: ExtractSessionOptions): ExtractRun {
  return {
    sessionId: o.session.meta.sessionId,
    backend: o.backend.name,
    model: o.backend.model,
    dryRun: Boolean(o.dryRun),
    windows: { total: 0, replayed: 0, called: 0, notDone: 0 },
    beats: { extracted: 0, rejected: 0, created: 0, extended: 0, alreadyWritten: 0, duplicates: 0, proposed: 0, notCaptured: 0 },
    notes: [],
    rejected: [],
    proposals: [],
    tokens: { input: 0, output: 0 },
    costUsd: 0,
    llmMs: 0,
    durationMs: 0,
    errors: [],
    failed: [],
  };
}

export function isEngramOwnSession(session: Session): boolean {
  if (session.meta.engramInternal) return true;
  const first = session.turns.find((t) => t.role === 'user');
  return first !== undefined && startsWithPromptMarker(first.text);
}

/** Claude Code's compaction agent (`subagents/agent-acompact-*.jsonl`): it only restates the session it summarises. */
export function isCompactionSession(session: Session): boolean {
  return session.meta.subagent === 'compact' || /(^|[\\/])agent-acompact[^\\/]*$/.test(session.meta.source ?? '');
}

/** Why a session must never produce beats, or undefined when it may. The reason goes to the runs log. */
export function neverExtractReason(session: Session): string | undefined {
  if (isEngramOwnSession(session)) return "Engram's own extraction call: never extracted";
  if (isCompactionSession(session)) return "Claude Code's compaction agent (a summary of the session it compacts): never extracted";
  return undefined;
}

export async function extractSession(o: ExtractSessionOptions): Promise<ExtractRun> {
  const clock = o.ports.clock;
  const started = clock.now();
  const run = emptyRun(o);
  const mode = o.mode ?? 'foreground';
  const { session } = o;
  const finish = async (): Promise<ExtractRun> => {
    run.durationMs = clock.now() - started;
    if (!o.dryRun) {
      const { notes: _n, rejected: _r, ...summary } = run;
      const rejectedBeats = run.rejected.slice(0, 50).map((r) => ({ ...(r.title ? { title: r.title } : {}), reason: r.reason }));
      await o.state.append(RUNS_LOG, JSON.stringify({ t: new Date(started).toISOString(), vault: o.vaultName, mode, source: o.source ?? 'hook-extraction', ...summary, rejectedReasons: rejectedBeats.map((r) => r.reason), rejectedBeats })).catch(() => undefined);
    }
    return run;
  };
  const never = neverExtractReason(session);
  if (never) {
    run.skipped = never;
    run.skippedKind = 'never';
    return finish();
  }
  // Write control: a project whose capture is off is not even read (no model call, nothing written).
  if (o.capture && captureModeFor(o.capture, { project: session.meta.project }) === 'off') {
    run.skipped = `capture.mode is off${session.meta.project && o.capture.byProject[session.meta.project] === 'off' ? ` for project ${session.meta.project}` : ''}: nothing captured`;
    run.skippedKind = 'never';
    return finish();
  }
  const jobs = new JobStore(o.state, o.vaultDir);
  const key = sessionKey(session.meta.agent, session.meta.sessionId);
  // One extraction per session at a time (the daemon and a CLI run could meet): the other one waits for next time.
  const release = o.dryRun || !o.state.tryLock ? undefined : await o.state.tryLock(`${o.vaultDir}/jobs/session-${stableId([key])}.lock`);
  if (!o.dryRun && o.state.tryLock && !release) {
    run.skipped = 'another process is extracting this session right now';
    run.skippedKind = 'busy';
    return finish();
  }
  try {
    return await extractLocked(o, run, jobs, key, finish);
  } finally {
    await release?.();
  }
}

async function extractLocked(o: ExtractSessionOptions, run: ExtractRun, jobs: JobStore, key: string, finish: () => Promise<ExtractRun>): Promise<ExtractRun> {
  const clock = o.ports.clock;
  const mode = o.mode ?? 'foreground';
  const { session } = o;
  const ledger = await jobs.readLedger();
  const backendName = o.backend.name;
  const failedBefore = ledger.sessions[key]?.pending;
  if (mode === 'background' && failedBefore && failedBefore.backend === backendName && Date.parse(failedBefore.retryAt) > clock.now()) {
    run.waiting = `${failedBefore.windows} window${failedBefore.windows === 1 ? '' : 's'} pending after ${failedBefore.failures} failed run${failedBefore.failures === 1 ? '' : 's'} (${failedBefore.reason}); next try after ${failedBefore.retryAt}`;
    run.pending = failedBefore;
    return finish();
  }
  // A range counts as done only when its backend's kind does the work this one would (rules never spares an LLM).
  const counts = (r: { backend?: string }) => rangeCountsFor(r, backendName);
  const work = await planWork({ session, jobs, ledger, key, counts, window: o.window, dryRun: o.dryRun });
  run.windows.total = work.length;
  if (work.length === 0) {
    if (!o.dryRun && failedBefore) await jobs.clearPending(key);
    return finish();
  }
  // A dry run never calls an LLM: it says what a real run would send (journalled windows replay for free).
  if (o.dryRun && backendName !== 'rules') {
    const fresh = work.filter((w) => !w.journal);
    run.wouldSend = { windows: fresh.length, inputTokens: fresh.reduce((n, w) => n + windowTokens(w.window) + 3000, 0) };
    run.windows.notDone = 0;
    return finish();
  }

  const catalog = o.catalog ?? (await VaultCatalog.load(o.ports.vault));
  // Notes in a private zone are never named to the model.
  const shown = (m: NoteMeta) => !o.privateZones || privateZoneOf(m, o.privateZones) === undefined;
  const vocab: Vocabulary = { types: o.types ?? DEFAULT_TYPES, tags: catalog.tags(80, shown), titles: catalog.titles(200, shown), preferences: catalog.preferences };
  const ctx = writeContext(o, catalog);

  let doneCount = 0;
  for (const item of work) {
    let entry = item.journal;
    if (entry) run.windows.replayed++;
    else {
      if (mode === 'background' && o.backend.name !== 'rules') {
        const stopped = await budgetStop(o, item.window);
        if (stopped) {
          run.budgetStopped = stopped;
          break;
        }
      }
      const result = await callWindow(o, item.window, vocab, run, mode);
      if ('failed' in result) {
        run.failed.push(result.failed);
        // An unreadable reply is this window's; anything else (server down, timeout, no backend) would fail the next
        // window too: stop, and leave the rest of the session pending for a later run.
        if (result.failed.failure !== 'reply') break;
        continue;
      }
      entry = result.entry;
      if (!o.dryRun) {
        await jobs.writeJournal(entry);
        o.fault?.('after-journal', doneCount + 1);
      }
    }
    run.beats.extracted += entry.beats.length;
    for (const r of entry.rejected) run.rejected.push({ ...r, window: entry.windowId });
    countOutcomes(run, await writeBeats(ctx, entry));
    if (!o.dryRun) {
      o.fault?.('before-ledger', doneCount + 1);
      await commitWindow(jobs, key, session.meta.source, entry, clock.now());
    }
    doneCount++;
    o.onWindow?.(doneCount, work.length);
  }
  run.beats.rejected = run.rejected.length;
  run.windows.notDone = work.length - doneCount;
  if (!o.dryRun) {
    const first = run.failed[0];
    if (first) {
      run.pending = await jobs.markPending(key, session.meta.source, { backend: backendName, failure: first.failure, reason: first.reason, windows: run.windows.notDone, at: new Date(clock.now()).toISOString() }, clock.now(), o.retryBaseMs);
    } else if (failedBefore && run.windows.notDone === 0) await jobs.clearPending(key);
  }
  return finish();
}

/** What writing a window's notes needs: the vault, its catalog, the session, the folders and the run's switches. */
function writeContext(o: ExtractSessionOptions, catalog: VaultCatalog): WriteContext {
  return {
    vault: o.ports.vault,
    state: o.state,
    vaultDir: o.vaultDir,
    catalog,
    similar: (o.similar ?? catalogSimilarity)(catalog),
    meta: o.session.meta,
    source: o.source ?? 'hook-extraction',
    folders: o.folders ?? DEFAULT_FOLDERS,
    reviewDays: o.reviewDays ?? DEFAULT_REVIEW_DAYS,
    dedup: o.dedup,
    now: () => o.ports.clock.now(),
    dryRun: Boolean(o.dryRun),
    fault: o.fault,
    waitForGit: o.waitForGit,
    notesWritten: 0,
    capture: o.capture,
  };
}

/**
 * Why a background run stops before calling the model for `window`, or undefined when the budget allows it. It stops
 * before a call that would overrun the budget, not after: a window costs about its text / 4 plus the reply.
 */
async function budgetStop(o: ExtractSessionOptions, window: ExtractWindow): Promise<string | undefined> {
  const name = o.backend.name;
  const usage = await usageSummary(o.state, o.ports.clock.now(), o.budgets, { [name]: o.backend.paid });
  const mine = usage.backends.find((b) => b.backend === name);
  const limit = dailyLimit(name, o.backend.paid, o.budgets);
  const estimate = windowTokens(window) + 3000;
  if (!(limit === 0 || (mine?.spent ?? false) || (mine ? mine.remaining : limit) < estimate)) return undefined;
  return limit === 0
    ? `no background budget set for the paid ${name} backend${name === 'claude' ? ' (it runs on ANTHROPIC_API_KEY, billed per token)' : ''}; set one with \`engram configure budget.tokens_per_day <tokens>\``
    : `the daily budget of ${limit.toLocaleString('en-US')} tokens for ${name} is spent (${(mine?.remaining ?? limit).toLocaleString('en-US')} left, the next window needs about ${estimate.toLocaleString('en-US')})`;
}

/** Counts each note outcome of a window into the run. */
function countOutcomes(run: ExtractRun, outcomes: NoteOutcome[]): void {
  for (const n of outcomes) {
    run.notes.push(n);
    if (n.action === 'created') run.beats.created++;
    else if (n.action === 'extended') run.beats.extended++;
    else if (n.action === 'already-written') run.beats.alreadyWritten++;
    else if (n.action === 'proposed') run.beats.proposed++;
    else if (n.action === 'not-captured') run.beats.notCaptured++;
    else run.beats.duplicates++;
    if (n.proposal) run.proposals.push(n.proposal);
  }
}

/** The window's range into the ledger, once its notes are written, then its journal entry away. */
async function commitWindow(jobs: JobStore, key: string, source: string | undefined, entry: JournalEntry, now: number): Promise<void> {
  await jobs.commitRange(key, source, {
    firstUuid: entry.firstUuid,
    lastUuid: entry.lastUuid,
    firstIndex: entry.firstIndex,
    lastIndex: entry.lastIndex,
    endOffset: entry.endOffset,
    ...(entry.lastTimestamp ? { lastTimestamp: entry.lastTimestamp } : {}),
    sessionId: entry.sessionId,
    ...(entry.part ? { part: entry.part } : {}),
    backend: entry.backend,
    beats: entry.beats.length,
    at: new Date(now).toISOString(),
  });
  await jobs.removeJournal(entry.windowId);
}
