// Extraction of one session, exactly once: only what the ledger has not covered, each window journalled
// before its notes are written, the ledger advanced only after they are. Background runs respect the budget.
import { stableId } from '../hash.js';
import { startsWithPromptMarker } from '../transcript/fence.js';
import { coveredMask, type CoveredRange } from '../transcript/incremental.js';
import type { Session } from '../transcript/types.js';
import { catalogSimilarity } from './dedup.js';
import { JobStore, journalWindow, rangeCountsFor, RUNS_LOG, sessionKey, uncoveredRuns, type JournalEntry } from './journal.js';
import { DEFAULT_FOLDERS, DEFAULT_REVIEW_DAYS } from './note-writer.js';
import type { Vocabulary } from './prompt.js';
import { dailyLimit, usageSummary } from './usage.js';
import { VaultCatalog } from './vault-catalog.js';
import { DEFAULT_WINDOW, extractWindows, rangeKey, windowTokens, type ExtractWindow } from './window.js';
import { callWindow } from './window-call.js';
import type { ExtractRun, ExtractSessionOptions } from './run.js';
import { writeBeats } from './write-beats.js';
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
  // A range counts as done only when its backend's kind does the work this one would (rules never spares an LLM).
  const counts = (r: { backend?: string }) => rangeCountsFor(r, backendName);
  const failedBefore = ledger.sessions[key]?.pending;
  if (mode === 'background' && failedBefore && failedBefore.backend === backendName && Date.parse(failedBefore.retryAt) > clock.now()) {
    run.waiting = `${failedBefore.windows} window${failedBefore.windows === 1 ? '' : 's'} pending after ${failedBefore.failures} failed run${failedBefore.failures === 1 ? '' : 's'} (${failedBefore.reason}); next try after ${failedBefore.retryAt}`;
    run.pending = failedBefore;
    return finish();
  }
  const done = (ledger.sessions[key]?.ranges ?? []).filter(counts);
  const doneIds = new Set(done.map(rangeKey));
  const pending = (await jobs.pendingJournals(key)).filter((j) => {
    if (!doneIds.has(rangeKey(j))) return true;
    // Committed but not removed (a crash after the ledger write): drop the leftover.
    if (!o.dryRun) void jobs.removeJournal(j.windowId);
    return false;
  });
  // Ranges of every session count: a resumed or forked session copies earlier records (same uuids) into a new file.
  const ranges: CoveredRange[] = [];
  // The parts of a split turn done so far (ledger or journal): the turn is covered once all of them are.
  const parts = new Map<string, { count: number; seen: Set<number>; range: CoveredRange }>();
  const add = (r: CoveredRange, part: ExtractWindow['part']) => {
    if (!part) return void ranges.push(r);
    const k = rangeKey(r);
    const p = parts.get(k) ?? { count: part.count, seen: new Set<number>(), range: r };
    p.seen.add(part.index);
    parts.set(k, p);
  };
  for (const [k, entry] of Object.entries(ledger.sessions)) {
    for (const r of entry.ranges.filter(counts)) add({ firstUuid: r.firstUuid, lastUuid: r.lastUuid, endOffset: r.endOffset ?? 0, lastTimestamp: r.lastTimestamp, sessionId: k === key ? session.meta.sessionId : r.sessionId }, r.part);
  }
  for (const j of pending) add({ firstUuid: j.firstUuid, lastUuid: j.lastUuid, endOffset: j.endOffset ?? 0, sessionId: session.meta.sessionId }, j.part);
  for (const p of parts.values()) if (p.seen.size >= p.count) ranges.push(p.range);
  const covered = coveredMask(session, ranges);
  const started = new Set([...doneIds, ...pending.map(rangeKey)]);
  const fresh = uncoveredRuns(session.turns, covered)
    .flatMap((runTurns) => extractWindows(session.meta.sessionId, runTurns, o.window ?? DEFAULT_WINDOW))
    // A split turn interrupted halfway: only its parts not done yet.
    .filter((w) => !w.part || !started.has(rangeKey(w)));
  const work: { window: ExtractWindow; journal?: JournalEntry }[] = [
    ...pending.map((j) => ({ window: journalWindow(j, session.turns), journal: j })),
    ...fresh.map((w) => ({ window: w })),
  ].sort((a, b) => a.window.firstIndex - b.window.firstIndex || (a.window.part?.index ?? 0) - (b.window.part?.index ?? 0));
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
  const ctx = {
    vault: o.ports.vault,
    state: o.state,
    vaultDir: o.vaultDir,
    catalog,
    similar: (o.similar ?? catalogSimilarity)(catalog),
    meta: session.meta,
    source: o.source ?? 'hook-extraction',
    folders: o.folders ?? DEFAULT_FOLDERS,
    reviewDays: o.reviewDays ?? DEFAULT_REVIEW_DAYS,
    dedup: o.dedup,
    now: () => clock.now(),
    dryRun: Boolean(o.dryRun),
    fault: o.fault,
    waitForGit: o.waitForGit,
    notesWritten: 0,
    capture: o.capture,
  };

  let doneCount = 0;
  for (const item of work) {
    let entry = item.journal;
    if (entry) run.windows.replayed++;
    else {
      if (mode === 'background' && o.backend.name !== 'rules') {
        const usage = await usageSummary(o.state, clock.now(), o.budgets, { [o.backend.name]: o.backend.paid });
        const mine = usage.backends.find((b) => b.backend === o.backend.name);
        const limit = dailyLimit(o.backend.name, o.backend.paid, o.budgets);
        // Stop before a call that would overrun the budget, not after: a window costs about its text / 4 plus the reply.
        const estimate = windowTokens(item.window) + 3000;
        if (limit === 0 || (mine?.spent ?? false) || (mine ? mine.remaining : limit) < estimate) {
          run.budgetStopped = limit === 0
            ? `no background budget set for the paid ${o.backend.name} backend${o.backend.name === 'claude' ? ' (it runs on ANTHROPIC_API_KEY, billed per token)' : ''}; set one with \`engram configure budget.tokens_per_day <tokens>\``
            : `the daily budget of ${limit.toLocaleString('en-US')} tokens for ${o.backend.name} is spent (${(mine?.remaining ?? limit).toLocaleString('en-US')} left, the next window needs about ${estimate.toLocaleString('en-US')})`;
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
    const outcomes = await writeBeats(ctx, entry);
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
    if (!o.dryRun) {
      o.fault?.('before-ledger', doneCount + 1);
      await jobs.commitRange(key, session.meta.source, {
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
        at: new Date(clock.now()).toISOString(),
      });
      await jobs.removeJournal(entry.windowId);
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
