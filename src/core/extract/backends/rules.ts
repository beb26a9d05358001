// The `rules` backend: no LLM. Files what the user marked explicitly (`#cor`, `#decision`, `remember:`)
// and clear corrections ("No, use X", "Actually, …", "That's wrong: …"). Offline, free, and the fallback.
import type { Turn } from '../../transcript/types.js';
import type { Beat } from '../beat.js';
import { MIN_QUOTE_CHARS } from '../beat.js';
import type { CompletionRequest, CompletionResult, LlmBackend } from './types.js';

interface Marker {
  re: RegExp;
  type: string;
  tag: string;
  /** Roles the marker counts in. Hashtags are deliberate in any turn; "remember:" only from the user. */
  roles: Turn['role'][];
}

const MARKERS: Marker[] = [
  { re: /(?:^|[\s([])#cor(?:rection)?\b[:\s-]*/gi, type: 'correction', tag: 'cor', roles: ['user', 'assistant'] },
  { re: /(?:^|[\s([])#decision\b[:\s-]*/gi, type: 'decision', tag: 'decision', roles: ['user', 'assistant'] },
  { re: /(?:^|[\s([*_])remember:\s*/gi, type: 'insight', tag: 'remember', roles: ['user'] },
];

/** A user turn that opens by correcting the agent ("No, use X", "Don't …", "Actually, …", "That's wrong: …"). */
const CORRECTION = /^\s*(?:no[,.!:]?\s+(?!problem|worries|thanks|rush|need to worry|idea\b)\w|nope\b|actually[,:]\s|that'?s (?:wrong|incorrect|not (?:right|it|what))|wrong[,:.!]\s|don'?t\s+\w|do not\s+\w|never\s+\w|stop\s+\w+ing\b|instead(?: of|,)\s|you should(?:n'?t| not) (?:use|have)\b)/i;

/** A question is not a correction ("Don't you think …?"). */
function isCorrection(text: string): boolean {
  const first = text.trim().split(/\n\s*\n/)[0];
  return CORRECTION.test(first) && !/\?\s*$/.test(first) && first.length <= 1200;
}

function sentenceAt(text: string, from: number): { start: number; end: number } {
  // The statement runs to the end of its paragraph (a blank line) or the end of the turn.
  const para = text.indexOf('\n\n', from);
  let end = para < 0 ? text.length : para;
  // A very long paragraph: cut at a sentence end after 400 characters.
  if (end - from > 600) {
    const dot = text.slice(from + 400, end).search(/[.!?]\s/);
    end = dot < 0 ? from + 600 : from + 400 + dot + 1;
  }
  return { start: from, end };
}

function paragraphBefore(text: string, at: number): { start: number; end: number } {
  const end = text.slice(0, at).trimEnd().length;
  const start = text.lastIndexOf('\n\n', end - 1) + 1;
  return { start: Math.max(0, start), end };
}

function titleOf(statement: string): string {
  const words = statement
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s'.@/+-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 9)
    .join(' ')
    .replace(/[.\s]+$/, '');
  return words ? words[0].toUpperCase() + words.slice(1) : 'Untitled';
}

function firstSentence(statement: string): string {
  const m = /^[\s\S]*?[.!?](?=\s|$)/.exec(statement);
  const s = (m ? m[0] : statement).replace(/\s+/g, ' ').trim();
  const cut = s.length > 240 ? `${s.slice(0, 237)}…` : s;
  return cut ? cut[0].toUpperCase() + cut.slice(1) : cut;
}

function beatFrom(turn: Turn, type: string, tag: string, span: { start: number; end: number }): Beat | null {
  const statement = turn.text.slice(span.start, span.end).trim();
  if (statement.replace(/\s+/g, ' ').length < 8) return null;
  // The quote is the statement itself when it is long enough, else the whole turn's opening.
  const quote = statement.length >= MIN_QUOTE_CHARS ? statement.slice(0, 300) : turn.text.trim().slice(0, 300);
  if (quote.length < MIN_QUOTE_CHARS) return null;
  return {
    type,
    title: titleOf(statement),
    summary: firstSentence(statement),
    body: statement,
    scope: 'project',
    durability: 'durable',
    tags: [tag],
    related: [],
    confidence: 0.9,
    turns: [turn.index],
    quote,
  };
}

/** The beats the rules find in a window of turns (every marker, in order; the same statement once). */
export function ruleBeats(turns: Turn[]): Beat[] {
  const beats: Beat[] = [];
  const seen = new Set<string>();
  const add = (b: Beat | null) => {
    if (!b) return;
    const key = b.body.toLowerCase().replace(/\s+/g, ' ');
    if (seen.has(key)) return;
    seen.add(key);
    beats.push(b);
  };
  for (const turn of turns) {
    let marked = false;
    for (const m of MARKERS) {
      if (!m.roles.includes(turn.role)) continue;
      m.re.lastIndex = 0;
      let hit: RegExpExecArray | null;
      while ((hit = m.re.exec(turn.text))) {
        marked = true;
        const after = hit.index + hit[0].length;
        let span = sentenceAt(turn.text, after);
        // "…we go with pnpm. #decision": the marker closes the statement instead of opening it.
        if (turn.text.slice(span.start, span.end).trim().length < 8) span = paragraphBefore(turn.text, hit.index);
        add(beatFrom(turn, m.type, m.tag, span));
      }
    }
    if (!marked && turn.role === 'user' && isCorrection(turn.text)) {
      add(beatFrom(turn, 'correction', 'correction', sentenceAt(turn.text, turn.text.length - turn.text.trimStart().length)));
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
