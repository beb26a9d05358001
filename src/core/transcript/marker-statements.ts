// Statements a turn marks itself: `#decision …`, `#cor …`, `remember: …`, `note to self: …` (and their localized
// forms), outside code, quotes and pasted text.
import { localizedMarkers } from './markers-i18n.js';
import type { Turn } from './types.js';

const HASHTAG_KIND: Record<string, StatementKind> = {
  cor: 'correction',
  correction: 'correction',
  decision: 'decision',
  insight: 'insight',
  remember: 'insight',
  problem: 'problem',
  failed: 'failed-approach',
  reference: 'reference',
};

// `#decision …` after whitespace or an opening bracket; `remember: …` anywhere; `note to self:` and `for the record:`
// at a line start. Hashtags are deliberate from either side; the words only count from the user.
const HASHTAG_RE = /(?<=^|[\s([*_>])#(cor|correction|decision|insight|remember|problem|failed|reference)\b(?![-/]\w)[ \t]*[:–—-]?[ \t]*/gim;
const WORD_MARKER_RE = /(?<=^|[\s([*_>])(remember):[ \t]*|^[ \t>*-]*(note to self|for the record)[ \t]*:[ \t]*/gim;

/** Statements shorter than this are noise ("#decision ok"). */
const MIN_STATEMENT_CHARS = 8;
/** Plain words are looked for only in turns a person plausibly typed: longer ones are pasted plans, logs, reviews. */
export const MAX_PLAIN_TURN_CHARS = 1500;
export const MAX_PLAIN_STATEMENT_CHARS = 320;

// A user turn that a person did not type: a pasted plan, or text the agent's harness puts in the user's place (hook
// feedback, background task results, session continuations).
export const PASTED_OR_HARNESS = /^\s*(?:implement the following plan|here is the plan|# |stop hook feedback|\w+ hook (?:feedback|error|blocking error)|<user-prompt-submit-hook>|caveat: the messages below|this session is being continued|read the output file to retrieve the result|\[request interrupted)/i;

/** Spans of text that are not prose: fenced code, inline code, quoted blocks, pasted output. */
export function nonProse(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of text.matchAll(/```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|"""[\s\S]*?(?:"""|$)|`[^`\n]*`/g)) out.push([m.index, m.index + m[0].length]);
  let at = 0;
  for (const line of text.split('\n')) {
    // Quoted lines, indented code, and lines that look like program output (logs, JSON, stack frames, prompts).
    // Code comments too ("# Note: …", "// …"): a line the user copied from a file.
    if (/^\s*>|^(?: {4}|\t)\S|^\s*[{[]["{[]|^\s*(?:at |Error:|error:|warning:|fatal:|npm ERR!|Traceback|\$ |[│├└┌╭╰⨯•]|\d{4}-\d\d-\d\dT|\/\/|#+\s*\w+:)/.test(line)) out.push([at, at + line.length]);
    at += line.length + 1;
  }
  // What the user quotes from the agent's work after a lead-in ("… it has: # Note: …", "the comment says: …"): the rest
  // of that line, or the next line when the lead-in ends its line.
  for (const m of text.matchAll(/\b(?:it|this|that|the (?:code|file|comment|diff|output|log|error|message|change|commit|readme|doc|plan|line)s?|you) (?:has|have|says|said|shows|reads|contains|prints|outputs|returns|wrote|added|put)\s*:[ \t]*/gi)) {
    const from = m.index + m[0].length;
    const eol = text.indexOf('\n', from);
    if (eol < 0 || text.slice(from, eol).trim()) out.push([from, eol < 0 ? text.length : eol]);
    else {
      const next = text.indexOf('\n', eol + 1);
      out.push([eol + 1, next < 0 ? text.length : next]);
    }
  }
  // Pasted feedback ("I got this feedback: …", "here is the review: …"): everything after the lead-in.
  const pasted = /\b(?:got|have|received|here(?:'s| is| are)) (?:this|the following|some|a|the) (?:feedback|review|comments?|error|output|log|report)s?\b[^\n]*?:/i.exec(text);
  if (pasted) out.push([pasted.index + pasted[0].length, text.length]);
  return out;
}

export function inside(spans: [number, number][], i: number): boolean {
  return spans.some(([a, b]) => i >= a && i < b);
}

/** Trims a span to its text: no surrounding whitespace, no trailing connective left by the next marker ("… and #decision"). */
function trimSpan(text: string, start: number, end: number): { start: number; end: number } {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text[s])) s++;
  for (;;) {
    while (e > s && /\s/.test(text[e - 1])) e--;
    const tail = /(?:^|\s)(?:and|also|plus|&|one more|another)$/i.exec(text.slice(s, e));
    if (!tail) break;
    e -= tail[0].length;
  }
  return { start: s, end: e };
}

function paragraphStart(text: string, at: number): number {
  const i = text.lastIndexOf('\n\n', at - 1);
  return i < 0 ? 0 : i + 2;
}

function paragraphEnd(text: string, from: number): number {
  const i = text.indexOf('\n\n', from);
  return i < 0 ? text.length : i;
}

/** Start of the last sentence in text[from, to). */
function lastSentenceStart(text: string, from: number, to: number): number {
  const seg = text.slice(from, to).trimEnd();
  let best = from;
  for (const m of seg.matchAll(/[.!?](?:\s+)(?=\S)/g)) if (m.index + m[0].length < seg.length) best = from + m.index + m[0].length;
  return best;
}

interface Hit {
  marker: string;
  kind: StatementKind;
  at: number;
  after: number;
}

function markerHits(text: string, role: Turn['role'], code: [number, number][]): Hit[] {
  const hits: Hit[] = [];
  HASHTAG_RE.lastIndex = 0;
  for (let m = HASHTAG_RE.exec(text); m; m = HASHTAG_RE.exec(text)) {
    if (inside(code, m.index)) continue;
    const word = m[1].toLowerCase();
    hits.push({ marker: word === 'correction' ? 'cor' : word, kind: HASHTAG_KIND[word], at: m.index, after: m.index + m[0].length });
  }
  if (role === 'user') {
    WORD_MARKER_RE.lastIndex = 0;
    for (let m = WORD_MARKER_RE.exec(text); m; m = WORD_MARKER_RE.exec(text)) {
      if (inside(code, m.index) || hits.some((h) => m.index >= h.at && m.index < h.after)) continue;
      const word = (m[1] ?? m[2]).toLowerCase();
      hits.push({ marker: word, kind: 'insight', at: m.index, after: m.index + m[0].length });
    }
  }
  // The same markers typed in the user's language (markers-i18n.ts).
  for (const h of localizedMarkers(text, role === 'user')) {
    if (!inside(code, h.at) && !hits.some((o) => h.at >= o.at && h.at < o.after)) hits.push({ ...h, kind: HASHTAG_KIND[h.marker] });
  }
  return hits.sort((a, b) => a.at - b.at);
}

/** Each marker's own statement: the text after it up to the next marker or the paragraph's end; a marker closing its statement ("… at 3 attempts. #decision") takes the text before it. */
export function markerStatements(text: string, role: Turn['role']): Statement[] {
  const code = nonProse(text).filter(([a, b]) => text[a] === '`' || text.slice(a, b).startsWith('"""'));
  const hits = markerHits(text, role, code);
  const spans: ({ start: number; end: number } | null)[] = hits.map((h, i) => {
    const stop = Math.min(paragraphEnd(text, h.after), hits[i + 1]?.at ?? text.length);
    const s = trimSpan(text, h.after, stop);
    return s.end - s.start >= MIN_STATEMENT_CHARS ? s : null;
  });
  hits.forEach((h, i) => {
    if (spans[i]) return;
    // A closing marker: the text before it, back to the previous marker or the paragraph's start.
    const para = paragraphStart(text, h.at);
    const prev = i > 0 && hits[i - 1].at >= para ? hits[i - 1] : undefined;
    let from = prev ? prev.after : para;
    const prevSpan = prev ? spans[i - 1] : null;
    if (prev && prevSpan && prevSpan.end <= h.at && prevSpan.end > from) {
      // The previous marker opened a statement that runs up to this one: this one closes only the last sentence.
      const last = lastSentenceStart(text, prevSpan.start, h.at);
      if (last <= prevSpan.start) return;
      spans[i - 1] = trimSpan(text, prevSpan.start, last);
      from = last;
    }
    const s = trimSpan(text, from, h.at);
    if (s.end - s.start >= MIN_STATEMENT_CHARS) spans[i] = s;
  });
  const out: Statement[] = [];
  hits.forEach((h, i) => {
    const s = spans[i];
    if (s) out.push({ kind: h.kind, marker: h.marker, start: s.start, end: s.end, text: text.slice(s.start, s.end) });
  });
  return out;
}

export type StatementKind = 'correction' | 'decision' | 'insight' | 'problem' | 'failed-approach' | 'reference';

export interface Statement {
  kind: StatementKind;
  /** The marker as typed (`cor`, `decision`, `remember`, …); absent for a statement in plain words. */
  marker?: string;
  /** The span of the statement in `source` (the turn's text without Engram's fenced context). */
  start: number;
  end: number;
  /** The statement itself: only its own text, never the text of another marker on the same line. */
  text: string;
  /** Where in `text` the clause that states the point begins, when the sentence opens with something else ("I think the flag is fine, so let's remove it"). */
  point?: number;
  /** What the user quoted or said just before, when the statement answers it (the referent of "that is not correct"). */
  context?: string;
}

export function words(s: string): number {
  return s.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}
