// One window's model call inside an extraction run: the backend (with the rules backend standing in when it
// fails), usage recorded per call, and the journal entry that must be written before any note.
import { errorMessage } from '../errors.js';
import { BackendError } from './backends/backend-error.js';
import { RulesBackend } from './backends/rules.js';
import type { CompletionResult, LlmBackend } from './backends/types.js';
import { DEFAULT_MAX_BEATS } from './beat.js';
import type { ExtractRun, ExtractSessionOptions } from './extract.js';
import { JOURNAL_VERSION, sessionKey, type JournalEntry } from './journal.js';
import type { Vocabulary } from './prompt.js';
import { callRecord, recordCall } from './usage.js';
import type { ExtractWindow } from './window.js';
import { replyForWindow } from './window-reply.js';

/** Calls the backend for one window (with the rules fallback), records usage, and returns the journal entry. */
export async function callWindow(o: ExtractSessionOptions, window: ExtractWindow, vocab: Vocabulary, run: ExtractRun, mode: 'background' | 'foreground'): Promise<JournalEntry | undefined> {
  const now = () => o.ports.clock.now();
  const record = async (backend: LlmBackend, calls: CompletionResult[]) => {
    for (const c of calls) {
      run.tokens.input += c.usage.inputTokens;
      run.tokens.output += c.usage.outputTokens;
      run.costUsd += c.costUsd;
      run.llmMs += c.durationMs;
      if (backend.name !== 'rules') await recordCall(o.state, { ...callRecord(backend.name, c, mode, now()), vault: o.vaultName });
    }
  };
  let backend = o.backend;
  let fallback: string | undefined;
  let reply;
  try {
    reply = await replyForWindow(backend, window, o.session.meta, vocab, { maxBeats: o.maxBeats ?? DEFAULT_MAX_BEATS, validatePass: o.validatePass });
  } catch (e) {
    const msg = errorMessage(e);
    run.errors.push(`window ${window.firstIndex}–${window.lastIndex}: ${msg}`);
    if (backend.name !== 'rules') {
      await recordCall(o.state, {
        t: new Date(now()).toISOString(),
        backend: backend.name,
        model: backend.model,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        durationMs: 0,
        attempts: 0,
        ok: false,
        error: msg.slice(0, 200),
        mode,
        vault: o.vaultName,
      });
    }
    if (!(e instanceof BackendError) || o.fallbackToRules === false || backend.name === 'rules') {
      run.windows.notDone++;
      return undefined;
    }
    fallback = `${backend.name} failed (${e.failure}); rules extracted this window`;
    backend = new RulesBackend();
    reply = await replyForWindow(backend, window, o.session.meta, vocab, {});
  }
  run.windows.called++;
  await record(backend, reply.calls);
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
    backend: backend.name,
    model: reply.calls[0]?.model ?? backend.model,
    createdAt: new Date(now()).toISOString(),
    beats: reply.beats,
    rejected: reply.rejected,
    ...(reply.repairs.length ? { repairs: reply.repairs } : {}),
    ...(fallback ? { fallback } : {}),
  };
}
