// Builds the extraction request from the prompt templates: the vault's vocabulary and preferences injected,
// the transcript framed as data between <transcript> tags.
import { ENGRAM_PROMPT_MARKER } from '../transcript/fence.js';
import type { SessionMeta, Turn } from '../transcript/types.js';
import type { CompletionRequest } from './backends/types.js';
import type { Beat } from './beat.js';
import systemTemplate from './prompts/system.md';
import userTemplate from './prompts/user.md';
import validateTemplate from './prompts/validate.md';
import type { ExtractWindow, WindowPart } from './window.js';

export interface Vocabulary {
  types: readonly string[];
  tags: string[];
  titles: string[];
  /** The text of the vault's `## Engram preferences` section, if any. */
  preferences?: string;
}

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, key: string) => values[key] ?? m);
}

/**
 * The turns as data: a header per turn; a closing tag inside the text cannot end the block. Nothing is shortened:
 * the windows are cut under the budget, and a turn too large for one is sent in numbered parts (`part`).
 */
export function frameTurns(turns: Turn[], part?: WindowPart): string {
  return turns
    .map((t) => {
      const when = t.timestamp ? ` · ${t.timestamp}` : '';
      const of = part ? ` · part ${part.index} of ${part.count}${part.index > 1 ? ', continued' : ''}` : '';
      const tools = t.tools.length ? ` · tools: ${t.tools.slice(0, 8).join(', ')}` : '';
      const errors = t.errors.length ? `\n(errors seen: ${t.errors.slice(0, 3).map((e) => e.slice(0, 160)).join(' | ')})` : '';
      const body = t.text.replace(/<\/?transcript>/gi, (m) => m.replace('<', '‹'));
      return `[turn ${t.index} · ${t.role}${of}${when}${tools}]\n${body}${errors}`;
    })
    .join('\n\n');
}

function list(items: string[], max: number): string {
  if (items.length === 0) return '(none)';
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown}, … (${items.length - max} more)` : shown;
}

export function buildExtractionRequest(window: ExtractWindow, meta: SessionMeta, vocab: Vocabulary, maxBeats: number): CompletionRequest {
  const types = vocab.types.join(', ');
  const system = fill(systemTemplate, { marker: ENGRAM_PROMPT_MARKER, max_beats: String(maxBeats), types });
  const user = fill(userTemplate, {
    project: meta.project ?? '(unknown)',
    session: meta.sessionId,
    agent: meta.agent,
    first_turn: String(window.firstIndex),
    last_turn: String(window.lastIndex),
    continuation: window.firstIndex > 0 ? ' (earlier turns were extracted before)' : '',
    types,
    tags: list(vocab.tags, 60),
    titles: list(vocab.titles.map((t) => `[[${t}]]`), 150),
    preferences: vocab.preferences?.trim() || '(none)',
    transcript: frameTurns(window.turns, window.part),
  });
  return { system, user, json: true, maxTokens: 4096, turns: window.turns };
}

export function buildValidationRequest(window: ExtractWindow, beats: Beat[]): CompletionRequest {
  const system = fill(validateTemplate, { marker: ENGRAM_PROMPT_MARKER });
  const numbered = beats.map((b, i) => `${i}. [${b.type}] ${b.title}: ${b.summary} (turns ${b.turns.join(', ')})`).join('\n');
  const user = `<transcript>\n${frameTurns(window.turns, window.part)}\n</transcript>\n\nBeats:\n${numbered}\n\nReply with the verdicts as JSON.`;
  return { system, user, json: true, maxTokens: 2048, turns: window.turns };
}
