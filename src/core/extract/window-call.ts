// One window's model call inside an extraction run: the backend, usage recorded per call (failed ones too), and the
// journal entry that must be written before any note. A failed call leaves the window pending: no journal, no
// ledger range, and no stand-in (the rules backend never silently replaces the backend the user chose).
import { errorMessage } from '../errors.js';
import { BackendError } from './backends/backend-error.js';
import type { CompletionResult, LlmBackend } from './backends/types.js';
import { DEFAULT_MAX_BEATS } from './beat.js';
import type { ExtractRun, ExtractSessionOptions, WindowFailure } from './run.js';
import { JOURNAL_VERSION, sessionKey, type JournalEntry } from './journal.js';
import type { Vocabulary } from './prompt.js';
import { callRecord, recordCall } from './usage.js';
import type { ExtractWindow } from './window.js';
import { replyForWindow, UnreadableReply, type WindowReply } from './window-reply.js';

export type { WindowFailure } from './run.js';

export type WindowCallResult = { entry: JournalEntry } | { failed: WindowFailure };

/** The label a window goes by in the run's errors and calls: its turns, and its part of a split turn. */
function windowLabel(window: ExtractWindow): string {
  return `turns ${window.firstIndex}–${window.lastIndex}${window.part ? ` (part ${window.part.index}/${window.part.count})` : ''}`;
}

/** Calls the backend for one window, records usage, and returns the journal entry or why the window failed. */
export async function callWindow(o: ExtractSessionOptions, window: ExtractWindow, vocab: Vocabulary, run: ExtractRun, mode: 'background' | 'foreground'): Promise<WindowCallResult> {
  const now = () => o.ports.clock.now();
  const backend: LlmBackend = o.backend;
  const started = now();
  const label = windowLabel(window);
  let reply;
  try {
    reply = await replyForWindow(backend, window, o.session.meta, vocab, { maxBeats: o.maxBeats ?? DEFAULT_MAX_BEATS, validatePass: o.validatePass });
  } catch (e) {
    return { failed: await failedCall(o, e, label, now() - started, run, mode) };
  }
  run.windows.called++;
  await recordCalls(o, reply.calls, run, mode);
  (run.calls ??= []).push({
    window: label,
    backend: backend.name,
    model: reply.calls[0]?.model ?? backend.model,
    inputTokens: reply.calls.reduce((n, c) => n + c.usage.inputTokens, 0),
    outputTokens: reply.calls.reduce((n, c) => n + c.usage.outputTokens, 0),
    ms: now() - started,
    outcome: 'ok',
    beats: reply.beats.length,
    attempts: reply.calls.reduce((n, c) => n + (c.attempts ?? 1), 0) || 1,
  });
  return { entry: journalEntry(o, window, reply, now()) };
}

/** Adds the calls to the run's totals and, but for the rules backend, to the usage record (a failed call marked so). */
async function recordCalls(o: ExtractSessionOptions, calls: CompletionResult[], run: ExtractRun, mode: 'background' | 'foreground', failed?: string): Promise<void> {
  const backend = o.backend;
  for (const c of calls) {
    run.tokens.input += c.usage.inputTokens;
    run.tokens.output += c.usage.outputTokens;
    run.costUsd += c.costUsd;
    run.llmMs += c.durationMs;
    if (backend.name !== 'rules') await recordCall(o.state, { ...callRecord(backend.name, c, mode, o.ports.clock.now()), ...(failed ? { ok: false, error: failed.slice(0, 200) } : {}), vault: o.vaultName });
  }
}

/** A window whose call threw: its error in the run, its spent calls (or the failed attempt) in usage, and why it failed. */
async function failedCall(o: ExtractSessionOptions, e: unknown, label: string, ms: number, run: ExtractRun, mode: 'background' | 'foreground'): Promise<WindowFailure> {
  const backend = o.backend;
  const msg = errorMessage(e);
  run.errors.push(`window ${label}: ${msg}`);
  if (e instanceof UnreadableReply) {
    run.windows.called++;
    await recordCalls(o, e.calls, run, mode, msg);
  } else if (backend.name !== 'rules') {
    await recordCall(o.state, {
      t: new Date(o.ports.clock.now()).toISOString(),
      backend: backend.name,
      model: backend.model,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      durationMs: ms,
      attempts: e instanceof BackendError ? (e.attempts ?? 1) : 1,
      ok: false,
      error: msg.slice(0, 200),
      mode,
      vault: o.vaultName,
    });
  }
  const hint = e instanceof BackendError ? e.hint : undefined;
  const failure = e instanceof BackendError ? e.failure : 'error';
  const attempts = e instanceof UnreadableReply ? 1 : e instanceof BackendError ? (e.attempts ?? 1) : 1;
  const spent = e instanceof UnreadableReply ? e.calls : [];
  (run.calls ??= []).push({ window: label, backend: backend.name, model: backend.model, inputTokens: spent.reduce((n, c) => n + c.usage.inputTokens, 0), outputTokens: spent.reduce((n, c) => n + c.usage.outputTokens, 0), ms, outcome: failure, beats: 0, reason: msg.slice(0, 300), attempts });
  return {
    window: label,
    failure,
    reason: msg,
    ...(hint ? { hint } : {}),
    attempts,
    ms,
  };
}

/** The journal entry of a window the model answered, written before any of its notes. */
function journalEntry(o: ExtractSessionOptions, window: ExtractWindow, reply: WindowReply, now: number): JournalEntry {
  return {
    version: JOURNAL_VERSION,
    windowId: window.id,
    sessionKey: sessionKey(o.session.meta.agent, o.session.meta.sessionId),
    sessionId: o.session.meta.sessionId,
    source: o.session.meta.source,
    firstUuid: window.firstUuid,
    lastUuid: window.lastUuid,
    firstIndex: window.firstIndex,
    lastIndex: window.lastIndex,
    endOffset: window.endOffset,
    ...(window.lastTimestamp ? { lastTimestamp: window.lastTimestamp } : {}),
    ...(window.part ? { part: window.part } : {}),
    backend: o.backend.name,
    model: reply.calls[0]?.model ?? o.backend.model,
    createdAt: new Date(now).toISOString(),
    beats: reply.beats,
    rejected: reply.rejected,
    ...(reply.repairs.length ? { repairs: reply.repairs } : {}),
  };
}
