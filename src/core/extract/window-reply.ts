// One window through the model: build the prompt, call the backend, repair and validate the reply, reject
// ungrounded beats, keep at most N, and optionally ask the model to confirm the rest.
import type { SessionMeta, Turn } from '../transcript/types.js';
import { BackendError } from './backends/backend-error.js';
import type { CompletionResult, LlmBackend } from './backends/types.js';
import { DEFAULT_MAX_BEATS, type Beat } from './beat.js';
import { groundingProblem } from './grounding.js';
import { buildExtractionRequest, buildValidationRequest, type Vocabulary } from './prompt.js';
import { parseModelJson, type RepairResult } from './repair-json.js';
import { validateReply, type Rejection } from './validate.js';
import type { ExtractWindow } from './window.js';

export interface WindowReply {
  beats: Beat[];
  rejected: Rejection[];
  repairs: string[];
  calls: CompletionResult[];
}

export interface WindowReplyOptions {
  maxBeats?: number;
  /** A second call asks the model to confirm each grounded beat. */
  validatePass?: boolean;
}

/** Parses, validates and grounds a raw reply text (no model call): pure, for tests and replays. */
export function checkReply(text: string, window: ExtractWindow, types: readonly string[], maxBeats: number | undefined): Omit<WindowReply, 'calls'> {
  let parsed;
  try {
    parsed = parseModelJson(text);
  } catch (e) {
    return { beats: [], rejected: [{ index: -1, reason: (e as Error).message }], repairs: [] };
  }
  return checkParsed(parsed, window, types, maxBeats);
}

/** Validates and grounds a reply already parsed (parseModelJson). */
function checkParsed(parsed: RepairResult, window: ExtractWindow, types: readonly string[], maxBeats: number | undefined): Omit<WindowReply, 'calls'> {
  const { beats, rejected } = validateReply(parsed.value, { types });
  const byIndex = new Map<number, Turn>(window.turns.map((t) => [t.index, t]));
  const grounded: Beat[] = [];
  beats.forEach((beat, i) => {
    const problem = groundingProblem(beat, byIndex);
    if (problem) rejected.push({ index: i, reason: `not grounded: ${problem}`, title: beat.title });
    else grounded.push(beat);
  });
  let kept = grounded;
  if (maxBeats !== undefined && grounded.length > maxBeats) {
    // Keep the most confident, in their original order.
    const chosen = new Set([...grounded].sort((a, b) => b.confidence - a.confidence).slice(0, maxBeats));
    kept = grounded.filter((b) => chosen.has(b));
    for (const b of grounded) if (!chosen.has(b)) rejected.push({ index: -1, reason: `over the limit of ${maxBeats} beats per window`, title: b.title });
  }
  return { beats: kept, rejected, repairs: parsed.repairs };
}

/** A reply that is not the JSON asked for: the window is not done (it stays pending), and the call's usage counts. */
export class UnreadableReply extends BackendError {
  constructor(
    backend: LlmBackend['name'],
    detail: string,
    readonly calls: CompletionResult[],
  ) {
    super(backend, 'reply', `the reply is not the JSON asked for (${detail})`, 'a later run asks again; if it keeps happening, try another model');
  }
}

export async function replyForWindow(
  backend: LlmBackend,
  window: ExtractWindow,
  meta: SessionMeta,
  vocab: Vocabulary,
  opts: WindowReplyOptions = {},
): Promise<WindowReply> {
  const maxBeats = opts.maxBeats ?? DEFAULT_MAX_BEATS;
  const request = buildExtractionRequest(window, meta, vocab, maxBeats);
  const first = await backend.complete(request);
  let parsed: RepairResult;
  try {
    parsed = parseModelJson(first.text);
  } catch (e) {
    throw new UnreadableReply(backend.name, (e as Error).message.slice(0, 160), [first]);
  }
  // The rules backend files every explicit marker: the per-window limit is for model judgement only.
  const checked = checkParsed(parsed, window, vocab.types, backend.name === 'rules' ? undefined : maxBeats);
  const calls = [first];
  if (!opts.validatePass || backend.name === 'rules' || checked.beats.length === 0) return { ...checked, calls };
  const second = await backend.complete(buildValidationRequest(window, checked.beats));
  calls.push(second);
  let verdicts: { beat?: number; supported?: boolean; keep?: boolean; reason?: string }[] = [];
  try {
    const v = parseModelJson(second.text).value as { verdicts?: typeof verdicts };
    verdicts = Array.isArray(v.verdicts) ? v.verdicts : [];
  } catch {
    // An unreadable verdict keeps the grounded beats: grounding already passed.
    return { ...checked, calls, repairs: [...checked.repairs, 'validation reply unreadable; kept grounded beats'] };
  }
  const beats: Beat[] = [];
  checked.beats.forEach((b, i) => {
    const v = verdicts.find((x) => x.beat === i);
    if (v && (v.supported === false || v.keep === false)) checked.rejected.push({ index: i, reason: `validate pass: ${v.reason ?? 'not supported'}`, title: b.title });
    else beats.push(b);
  });
  return { ...checked, beats, calls };
}
