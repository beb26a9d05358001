// Grounding: a beat must cite turns of its window and quote at least 20 characters of them. A quote the
// cited turns do not contain is an invention, and the beat is rejected. A beat holding text addressed to an AI (a
// payload an agent fetched and echoed, issue 32) is rejected too: it is never the user's decision. And a beat must rest on
// the user's voice (issue 32): its quote in a turn the user typed, or in the agent's words where the user's turn says the
// same (the agent agreeing with the user), never the agent's words alone (which may be a page or a file it read).
import type { Turn } from '../transcript/types.js';
import { findDirectives } from '../recall/directives.js';
import { contentTerms } from '../recall/term-stats.js';
import { MIN_QUOTE_CHARS, type Beat } from './beat.js';

/** Folds what models change when they copy text: case, whitespace, typographic quotes and dashes, markdown emphasis. */
export function normaliseForMatch(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u201b`]/g, "'")
    .replace(/[\u201c\u201d\u201f]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/[*_]{1,2}/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Share of the claim's topic words the user's turn must hold for the agent's words to count as agreement with it. */
const AGREEMENT = 0.5;

/** A turn the user typed: not the agent's, and not a subagent's prompt (the parent agent wrote that). */
function userTurn(t: Turn | undefined): t is Turn {
  return t !== undefined && t.role === 'user' && !t.sidechain;
}

/** Whether every part of the quote is in `text`, in order. */
function holds(text: string, parts: string[]): boolean {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return true;
}

/**
 * Null when the beat rests on the user's voice: its quote is in a turn the user typed, or it is the agent's words and
 * the user's turn (cited, or the one the agent answered) holds at least half the topic words of the beat's title and
 * summary. Else why not: the agent's words alone may be a fetched page, a README or a tool's output it repeated.
 */
function voiceProblem(beat: Beat, turnsByIndex: Map<number, Turn>, parts: string[]): string | null {
  const cited = beat.turns.map((i) => turnsByIndex.get(i));
  if (cited.some((t) => userTurn(t) && holds(normaliseForMatch(t.text), parts))) return null;
  // The user's turns the agent's words may agree with: those cited, and the last one before each cited agent turn.
  const user = new Set(cited.filter(userTurn));
  const indices = [...turnsByIndex.keys()].sort((a, b) => a - b);
  for (const t of cited) {
    if (!t || (t.role === 'user' && !t.sidechain)) continue;
    const before = indices.filter((i) => i < t.index).reverse().map((i) => turnsByIndex.get(i)).find(userTurn);
    if (before) user.add(before);
  }
  if (!user.size) return "rests on the agent's words alone, not on anything the user said";
  const claim = contentTerms(`${beat.title}\n${beat.summary}`);
  const said = new Set([...user].flatMap((t) => contentTerms(t.text)));
  const shared = claim.filter((t) => said.has(t)).length;
  if (claim.length && shared / claim.length >= AGREEMENT) return null;
  return `quotes the agent's words, and the user's turn does not say them (${shared} of ${claim.length} topic words of the beat)`;
}

/** Returns null when the beat is grounded, else the reason it is not. */
export function groundingProblem(beat: Beat, turnsByIndex: Map<number, Turn>): string | null {
  const directive = findDirectives([beat.title, beat.summary, beat.body, beat.quote].join('\n\n'))[0];
  if (directive) return `holds text addressed to an AI (${directive.kind}: "${directive.excerpt}")`;
  const missing = beat.turns.filter((i) => !turnsByIndex.has(i));
  if (missing.length) return `cites turn${missing.length > 1 ? 's' : ''} ${missing.join(', ')} outside the window`;
  const quote = normaliseForMatch(beat.quote.replace(/^["'“”]+|["'“”]+$/g, ''));
  if (quote.length < MIN_QUOTE_CHARS) return `quote shorter than ${MIN_QUOTE_CHARS} characters`;
  const haystack = beat.turns.map((i) => normaliseForMatch(turnsByIndex.get(i)?.text ?? '')).join('\n');
  // An elided quote ("a … b") is grounded when every part is there, in order, and each part is substantial.
  const parts = quote.split(/\s*(?:\.\.\.|…|\[\.\.\.\])\s*/).filter(Boolean);
  if (parts.length > 1 && parts.some((p) => p.length < 12)) return 'quote has an elided part shorter than 12 characters';
  if (!holds(haystack, parts)) return `quote not found in the cited turn${beat.turns.length > 1 ? 's' : ''}: "${beat.quote.slice(0, 60)}"`;
  return voiceProblem(beat, turnsByIndex, parts);
}
