// The `rules` backend: no LLM. Files what the user marked explicitly (`#cor`, `#decision`, `remember:` …) and what a
// user said outright in plain words that is a correction or a decision ("No, use X", "Don't ever …", "we'll go with X
// because …"), as found by the transcript layer's statement finder. Offline, free, and what `engram setup` runs over a
// new user's past sessions, so it files little and only what it is sure of; every title is a whole phrase.
import { MAX_TITLE_CHARS, phraseTitle } from '../../note/title.js';
import { turnStatements, type Statement } from '../../transcript/statements.js';
import type { Turn } from '../../transcript/types.js';
import type { Beat } from '../beat.js';
import { MIN_QUOTE_CHARS } from '../beat.js';
import type { CompletionRequest, CompletionResult, LlmBackend } from './types.js';

const MAX_QUOTE_CHARS = 300;
const MAX_SUMMARY_CHARS = 240;

function firstSentence(statement: string): string {
  const flat = statement.replace(/\s+/g, ' ').trim();
  const m = /^.*?[.!?](?=\s|$)/.exec(flat);
  const s = m && m[0].length >= 20 ? m[0] : flat;
  const cut = s.length > MAX_SUMMARY_CHARS ? `${s.slice(0, MAX_SUMMARY_CHARS - 1)}…` : s;
  return cut ? cut[0].toUpperCase() + cut.slice(1) : cut;
}

/** At least MIN_QUOTE_CHARS copied from the turn: the statement, or the statement with the words around it. */
function quoteFor(source: string, st: Statement): string | null {
  if (st.end - st.start >= MIN_QUOTE_CHARS) return source.slice(st.start, Math.min(st.end, st.start + MAX_QUOTE_CHARS)).trim();
  const from = Math.max(0, st.end - MIN_QUOTE_CHARS * 2);
  const q = source.slice(from, Math.max(st.end, from + MIN_QUOTE_CHARS * 2)).trim();
  return q.length >= MIN_QUOTE_CHARS ? q : null;
}

function tagOf(st: Statement): string {
  return st.marker ? st.marker.replace(/\s+/g, '-') : st.kind;
}

function beatFrom(turn: Turn, source: string, st: Statement): Beat | null {
  const body = st.text.trim();
  const title = phraseTitle(body, MAX_TITLE_CHARS - 1);
  if (!title || title.split(/\s+/).length < 2) return null;
  const quote = quoteFor(source, st);
  if (!quote) return null;
  return {
    type: st.kind,
    title,
    summary: firstSentence(body),
    body,
    scope: 'project',
    durability: 'durable',
    tags: [tagOf(st)],
    related: [],
    // What was marked is certain; plain words are the rules' reading.
    confidence: st.marker ? 0.9 : 0.7,
    turns: [turn.index],
    quote,
  };
}

/** The beats the rules find in a window of turns (every statement, in order; the same statement once). */
export function ruleBeats(turns: Turn[]): Beat[] {
  const beats: Beat[] = [];
  const seen = new Set<string>();
  for (const turn of turns) {
    const { source, statements } = turnStatements(turn);
    for (const st of statements) {
      const b = beatFrom(turn, source, st);
      if (!b) continue;
      const key = b.body.toLowerCase().replace(/\s+/g, ' ');
      if (seen.has(key)) continue;
      seen.add(key);
      beats.push(b);
    }
  }
  return beats;
}

export class RulesBackend implements LlmBackend {
  readonly name = 'rules' as const;
  readonly model = 'rules-v1';
  readonly paid = false;

  complete(req: CompletionRequest): Promise<CompletionResult> {
    const beats = ruleBeats(req.turns ?? []);
    return Promise.resolve({
      text: JSON.stringify({ beats }),
      usage: { inputTokens: 0, outputTokens: 0 },
      model: this.model,
      costUsd: 0,
      durationMs: 0,
      attempts: 1,
    });
  }
}
