// Note titles made from what someone wrote: a whole phrase under 80 characters, cut at a sentence or clause boundary
// (never inside a word, a code identifier or a clause), without the conversational filler that opens a chat message
// ("No, that's wrong", "ok so", "#decision") or punctuation left dangling at the end.

/** Titles are shorter than this. */
export const MAX_TITLE_CHARS = 80;

// Words a phrase cannot end on: it would stop in the middle of a clause ("… ENTIRE_TELEMETRY_OPTOUT=1 or").
const DANGLING = new Set(
  (
    'a an the and or but nor so yet because since as if when whenever while where which who whom whose than unless until ' +
    'though although whether to of for with without in on at by from into onto about over under via per between after before during ' +
    "like am its it's their our your my his her " +
    'such e.g. i.e. vs either neither each every let let\'s we i they'
  ).split(' '),
);

// Conversational openers that carry no content: dropped from the front, repeatedly ("ok so, actually, …").
const FILLER = [
  /^#(?:cor|correction|decision|insight|problem|failed|reference|remember)\b[\s:–—-]*/i,
  /^(?:remember|note to self|for the record|fyi|btw|nb|note|important|one more(?: thing)?|more context|context|update|edit|p\.?s\.?|thinking again|on second thought|second thoughts?)\s*[:–—-]\s*/i,
  /^(?:no|nope|nah|wrong|not quite)\s*[,.!:;–—-]+\s*/i,
  /^no\s+(?=(?:that'?s|it'?s|this|you|we|i|don'?t|do not|use|add|put|remove|keep|set|make|change|revert|stop|just|instead)\b)/i,
  /^(?:that'?s|that is|this is|it'?s|it is|you'?re|you are) (?:wrong|incorrect|not (?:right|correct|true|it|what i (?:meant|asked|wanted)))\b\s*[,.!:;–—-]*\s*/i,
  /^or (?:better|rather|even better)\b\s*[,.!:;–—-]*\s*/i,
  /^(?:ok(?:ay)?|so|well|hm+|um+|yeah|yes|yep|right|alright|sure|great|cool|thanks|thank you|ah|oh|also|and|but|then|wait|hey|please|just|actually|honestly|basically|i mean|one more thing|one more|fyi|btw|heads up)\b\s*[,.!:;–—-]*\s*/i,
  /^(?:the )?(?:main )?(?:idea|plan|approach|proposal|it|that|this)(?:'s| is| looks| seems)? (?:good|fine|ok(?:ay)?|great|nice|correct|right)\s*[,.;]?\s*(?:however|but)\s*,?\s+/i,
];

const ABBREVIATION = /\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|fig|mr|mrs|dr|st)\.$/i;

/** True when a title stops in the middle of a clause: on a connecting word, or on a comma, colon or dash. */
export function endsMidClause(title: string): boolean {
  const t = title.trim();
  if (/[,;:([{–—-]$/.test(t) || /\s[&+/]$/.test(t)) return true;
  const last = /(\S+)$/.exec(t)?.[1]?.toLowerCase().replace(/[’‘]/g, "'") ?? '';
  return DANGLING.has(last);
}

/** Drops conversational filler and marker words from the start of a statement. */
export function stripLeadingFiller(text: string): string {
  let s = text.trim();
  for (let guard = 0; guard < 8; guard++) {
    const before = s;
    for (const re of FILLER) s = s.replace(re, '').trimStart();
    if (s === before) break;
  }
  return s;
}

/** Positions (exclusive ends) where `s` may be cut, best kind first: sentence ends, then clause marks, then connectives. */
function boundaries(s: string): number[][] {
  const sentence: number[] = [];
  const clause: number[] = [];
  const comma: number[] = [];
  const connective: number[] = [];
  const weak: number[] = [];
  const code = codeSpans(s);
  const inCode = (i: number) => code.some(([a, b]) => i > a && i < b);
  for (let i = 1; i < s.length; i++) {
    if (inCode(i)) continue;
    const c = s[i - 1];
    const next = s[i];
    if (next !== ' ') continue;
    if (/[.!?]/.test(c) && !ABBREVIATION.test(s.slice(Math.max(0, i - 6), i))) sentence.push(i - 1);
    else if (c === ';' || c === ':') clause.push(i - 1);
    else if (c === ',') comma.push(i - 1);
  }
  // A dash or an opening parenthesis between words starts an aside: cut before it.
  for (const m of s.matchAll(/\s(?:[–—]|-{1,2}|\()\s?/g)) if (!inCode(m.index)) clause.push(m.index);
  // A connective starts a new clause ("…=1 or they hang", "… because …"): cut before it.
  for (const m of s.matchAll(/\s(?:because|since|so that|so|but|or else|or|otherwise|unless|which|whereas|while|although|though|until|when|where|whenever|if|instead of|rather than|except)\s/gi)) {
    if (!inCode(m.index)) connective.push(m.index);
  }
  // Last resort: before "and", a preposition or an adverbial ("… from the release branch after the QA sign-off").
  for (const m of s.matchAll(/\s(?:and then|and|as|then|after|before|via|with|without|for|in|on|at|from|during|by)\s/gi)) {
    if (!inCode(m.index)) weak.push(m.index);
  }
  return [sentence, clause, comma, connective, weak];
}

/** Backtick spans and code-like tokens (no spaces inside) must never be cut or mistaken for punctuation. */
function codeSpans(s: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of s.matchAll(/`[^`]*`/g)) out.push([m.index, m.index + m[0].length]);
  return out;
}

function tidyEnd(s: string): string {
  let t = s.trim();
  for (let guard = 0; guard < 12; guard++) {
    const before = t;
    t = t.replace(/[\s,;:.…!?–—\-([{"'“‘`*_]+$/u, '');
    // Drop words that leave the phrase hanging ("… the migration note in").
    while (endsMidClause(t) && /\s/.test(t)) t = t.replace(/\s*\S+$/, '');
    if (t === before) break;
  }
  return balance(t);
}

/** Removes an unmatched closing or opening bracket or quote left by a cut. */
function balance(s: string): string {
  let t = s;
  const pairs: [string, string][] = [['(', ')'], ['[', ']'], ['{', '}']];
  for (const [o, c] of pairs) {
    const opens = t.split(o).length - 1;
    const closes = t.split(c).length - 1;
    if (opens > closes) t = t.replace(new RegExp(`\\s*\\${o}[^\\${o}]*$`), '');
  }
  if ((t.split('`').length - 1) % 2 === 1) t = t.replace(/`([^`]*)$/, '$1');
  if ((t.split('"').length - 1) % 2 === 1) t = t.replace(/"([^"]*)$/, '$1');
  return t.trim();
}

function capitalise(s: string): string {
  const first = /^\S+/.exec(s)?.[0] ?? '';
  // Code keeps its case: `npm`, conversationId, snake_case, paths, flags.
  if (!/^[a-z]/.test(first) || /[A-Z_./=@$#\\()[\]{}<>0-9]|^-/.test(first.slice(1)) || /^[a-z]+[A-Z]/.test(first)) return s;
  return first[0].toUpperCase() + s.slice(1);
}

/** The first sentence-ish stretch of a statement: one line, markdown emphasis and quote marks removed. */
function flatten(text: string): string {
  return text
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/^[ \t]*(?:[>*+-]|\d+[.)])[ \t]+/gm, '')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A title for a statement: the filler removed, then the longest whole phrase under `max` characters, cut at a
 * sentence end, else a clause mark (`;` `:` a dash, a parenthesis), else a comma, else before a connective
 * ("because", "or", "when" …). It never ends on a connecting word or on punctuation, and never splits a word.
 */
export function phraseTitle(text: string, max = MAX_TITLE_CHARS - 1): string {
  const flat = stripLeadingFiller(flatten(text));
  const whole = tidyEnd(flat);
  if (!whole) return '';
  // The first sentence alone when it fits: a title says one thing.
  const tiers = boundaries(flat);
  const firstSentenceEnd = tiers[0][0];
  if (firstSentenceEnd !== undefined) {
    const first = tidyEnd(flat.slice(0, firstSentenceEnd + 1));
    if (first.length <= max && first.split(/\s+/).length >= 2) return capitalise(first);
  } else if (whole.length <= max) return capitalise(whole);
  const minLength = Math.min(20, Math.floor(max / 3));
  for (const tier of tiers) {
    // The longest cut in this tier that fits and leaves a phrase of some substance.
    const candidates = tier.filter((i) => i <= max + 1).sort((a, b) => b - a);
    for (const at of candidates) {
      const t = tidyEnd(flat.slice(0, at + 1));
      if (t.length <= max && t.length >= minLength && t.split(/\s+/).length >= 3) return capitalise(t);
    }
  }
  // No boundary fits: whole words up to the limit, without a dangling end.
  const words = flat.slice(0, max + 1).replace(/\s+\S*$/, '');
  return capitalise(tidyEnd(words || flat.slice(0, max)));
}
