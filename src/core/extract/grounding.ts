// Grounding: a beat must cite turns of its window and quote at least 20 characters of them. A quote the
// cited turns do not contain is an invention, and the beat is rejected. A beat holding text addressed to an AI (a
// payload an agent fetched and echoed, issue 32) is rejected too: it is never the user's decision.
import type { Turn } from '../transcript/types.js';
import { findDirectives } from '../recall/directives.js';
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
  let from = 0;
  for (const part of parts) {
    if (parts.length > 1 && part.length < 12) return 'quote has an elided part shorter than 12 characters';
    const at = haystack.indexOf(part, from);
    if (at < 0) return `quote not found in the cited turn${beat.turns.length > 1 ? 's' : ''}: "${beat.quote.slice(0, 60)}"`;
    from = at + part.length;
  }
  return null;
}
