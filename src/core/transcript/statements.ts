// Statements worth keeping that a turn states outright, found without an LLM: what the user or agent marked
// (`#decision …`, `#cor …`, `remember: …`), and what the user said in plain words that anyone would call a
// correction or a decision ("no, use pnpm not npm", "don't ever commit the .env", "we'll go with Postgres because …").
// Conservative on purpose: a memory full of junk is worse than an empty one, so questions, hypotheticals, hedges,
// pasted text (code, logs, quotes, plans) and Engram's own injected context never count. The `rules` backend files
// these statements as notes; `findSignals` passes them to the LLM backends as hints.
import { stripEngramFences } from './fence.js';
import type { Turn } from './types.js';
import { words, type Statement, type StatementKind, MAX_PLAIN_TURN_CHARS, MAX_PLAIN_STATEMENT_CHARS, PASTED_OR_HARNESS, nonProse, inside, markerStatements } from './marker-statements.js';

export { markerStatements, type Statement, type StatementKind } from './marker-statements.js';

export interface TurnStatements {
  /** The turn's text with Engram's injected context removed: what the spans index. */
  source: string;
  statements: Statement[];
}

// ---- plain words -------------------------------------------------------------------------------------------------

interface Rule {
  kind: StatementKind;
  re: RegExp;
  /** Only as the opening of the turn ("No, …", "Actually, …" answer what the agent just did). */
  opener?: boolean;
  /** A sentence that matches this is not the statement after all. */
  unless?: RegExp;
}

const NO_THEN = String.raw`(?:\s*[,.!:;–—-]+\s*|\s+(?=(?:use|add|put|remove|keep|set|make|change|revert|do|don'?t|it'?s|that'?s|this|not|just|instead|we|you|stop|wait)\b))`;
const IMPERATIVE_NOT = /^(?:please\s+)?(?:don'?t|do not|never)\s+(?:ever\s+)?(?!know|think|remember|see|understand|get\b|worry|mind|care|need|have|want|like|recall|believe|forget|stop|hesitate|bother)[a-z]/i;
// "use X" as a choice: "let's use pnpm.", "we'll use X instead", "use X for all …", not "let's use the debugger to see".
const USE_CHOICE = String.raw`(?!(?:this|that|it|them|these|those|the|a|an|my|your|our|some|any)\b)[\w@./+-]+(?:\s+[\w@./+-]+)?(?=\s*(?:[.!;]|,|$)|\s+(?:instead|for (?:the|all|this|every|our|new)|as (?:the|our)|from now|going forward|everywhere|throughout|here\b|across|in (?:all|every|this)|because|since))`;
// A choice that names nothing a note could keep: "let's go with option 2", "let's go with the simpler one".
const BARE_CHOICE = /(?:go with|stick with|stay with|switch to|use)\s+(?:(?:option|approach|solution|variant|choice|plan|version|number)\s*)?(?:#?\d+|[a-d]|one|two|three|the (?:first|second|third|last|simpler|simplest|other|latter|former|new|old)(?: one| approach| option| solution| version)?|that(?: one)?|this(?: one)?|it|both|yours|mine)\s*[.!]*$/i;
// Said for today only ("let's look at it tomorrow", "for now"): not a lasting decision.
// Steering for this turn rather than a standing rule: "… just yet", "back to the changes", "ignore this part", "first".
const TRANSIENT = /\b(?:tomorrow|later|tonight|for now|right now|at the moment|for the moment|next week|this week|this time|for today|yet|back to|ignore this|this part|first|next step|in this (?:pr|branch|turn|step|task|session|document|doc|plan|proposal)|until (?:the )?(?:final|last|next) step)\b/i;
// A do/don't that steers this turn: "Don't change anything, just let me know", "don't add notes", "don't produce code".
// A standing "don't" says "ever"/"again", gives a reason, or a scope beyond the task.
const STANDING_DONT = /\b(?:ever|never|again|anymore|any more|because|since|otherwise|so that|as it|, it(?:'s| is| holds| has| breaks)|in (?:this|our|the) (?:repo|repository|project|codebase)|anywhere|everywhere|in (?:any|all)|for (?:any|all)|without)\b/i;
const TURN_SCOPED_DONT = /^(?:please\s+)?(?:don'?t|do not)\s+(?:\w+\s+)?(?:anything|yet)\b|\bjust\b/i;
// What follows "No," or "Actually," when it approves or clarifies rather than corrects ("No, that's fine, go ahead").
const APPROVAL = /^(?:i (?:meant|mean|was talking|am talking)\b)|^(?:that'?s|it'?s|this is|all)\s+(?:fine|ok|okay|good|great|perfect|correct|right|works|done)\b|^(?:go ahead|proceed|continue|carry on|keep going|just continue|thanks|thank you|looks good|lgtm|all good|problem|worries|that works|it works|works)\b/i;

const RULES: Rule[] = [
  { kind: 'correction', opener: true, re: new RegExp(String.raw`^(?:no|nope|nah)\b${NO_THEN}`, 'i') },
  { kind: 'correction', opener: true, re: /^actually\b[,:]?\s+(?!I\b|i'm\b|nevermind|never mind)/i },
  { kind: 'correction', opener: true, re: /^(?:that'?s|that is|this is|it'?s|it is|you'?re|you are) (?:wrong|incorrect|not (?:right|correct|true|how|what i (?:meant|asked|wanted)))\b/i },
  { kind: 'correction', opener: true, re: /^(?:wrong|not quite)\s*[,.!:;–—-]/i },
  { kind: 'correction', re: IMPERATIVE_NOT },
  { kind: 'correction', re: /^(?:please\s+)?stop\s+[a-z]+ing\b/i },
  { kind: 'correction', re: /\b(?:is|are|it'?s|that'?s|this is) not (?:acce?p?t?able|allowed|an option|valid)\b|\b(?:is|are) unacceptable\b|\b(?:it'?s|that'?s|is) (?:a )?bad idea\b/i },
  { kind: 'correction', re: /^there(?:'s| is) no need (?:to|for) (?!worry|apologi[sz]e|thank|rush|hurry)/i },
  { kind: 'decision', re: new RegExp(String.raw`\b(?:let'?s|let us|we(?:'ll| will| shall|'re going to| are going to)) (?:go with|stick with|stay with|switch to|keep using|not use|use ${USE_CHOICE})|\blet'?s not\b|\bwe(?:'re| are) going with\b`, 'i'), unless: BARE_CHOICE },
  { kind: 'decision', re: /\b(?:we|i) (?:have )?(?:explicitly |deliberately |already )?(?:chose|chosen|choosed|picked|decided (?:to|on|that|against)|settled on|agreed (?:to|on|that))\b|\bthe decision (?:is|was)\b/i },
  { kind: 'decision', re: /\bfrom now on\b|^going forward\b|,\s*going forward\b|\bgoing forward,/i },
  // After the decisions: "let's use X instead of Y" is a decision, a bare "use X instead" a correction.
  { kind: 'correction', re: /\buse [\w@./+-]+ instead(?: of [\w@./+-]+)?\b|\binstead of [\w@./+-]+,? use\b|\buse [\w@./+-]+,? not [\w@./+-]+/i },
  // "Always run …", not "Always the same error" or "always fails".
  { kind: 'decision', re: /^(?:please\s+)?(?:make sure to\s+)?always\s+(?!the\b|a\b|an\b|this\b|that\b|same\b|it\b|been\b|getting\b|happens?\b)[a-z]+(?<!ing|[^s]s)\b/i },
  // "X must not return null, but it does" describes a bug, not a rule.
  { kind: 'decision', unless: /\bbut\b/i, re: /\bmust (?:not|never|always)\b|\b(?:we|i) (?:don'?t|do not|never) (?:use|commit|deploy|push|run)\b/i },
  { kind: 'decision', re: /^(?:it'?s\s+)?(?:very\s+)?important\s+(?:not\s+)?to\s+[a-z]/i },
  // Near-explicit standing rules: "remember to use pagination", "it should never create a branch without …",
  // "let's go json", "let's make both a constant", "we use X … to not …".
  { kind: 'decision', re: /(?:^|\b(?:and|also|please|so)\s+)remember to\s+(?!ask|tell|check|look|run the|send)[a-z]/i },
  { kind: 'decision', re: /\bshould (?:never|always)\s+[a-z]/i },
  { kind: 'decision', re: /\blet'?s go (?!ahead|back|through|over|on\b|with\b|for it|step|and\b|to\b)[\w@./+-]+\s*[.!]*$/i },
  { kind: 'decision', re: /\blet'?s (?:just )?(?:make (?:both|all|them|it|this|that|these|those|\S+) (?:a |an )?(?:constant|default|required|optional|configurable|private|public)|store (?:it|them|this|that|the \w+) in|remove (?:that|this|it|them|the \w+) (?:entirely|completely|altogether)|always|never)\b/i },
  { kind: 'decision', re: /\bwe use [\w@./+-]+\b[^.?!]*\bto (?:not|avoid|never)\b/i },
  { kind: 'decision', re: /^(?:or better:?\s*)?(?:let'?s\s+)?(?:just\s+)?remove (?:the |this |that )?[^,.;]{0,60}\b(?:entirely|completely|altogether)\b|\blet'?s (?:just )?(?:completely|entirely) (?:remove|drop|get rid of)\b/i },
  // "We should add the agent name to any logging", "we should be using the strong types … wherever we can": a "should"
  // whose scope is every case is a standing rule, not a task.
  { kind: 'decision', re: /^we should (?:always |never |be )?[a-z]+\b[^.?!]*\b(?:any|every|all|everywhere|wherever|whenever|always)\b/i },
  { kind: 'insight', re: /^(?:note|fyi|for the record|just so you know|heads up|important)\s*:\s*\S+\s+\S+\s+\S+|^(?:note|fyi|for the record|just so you know|heads up)\b[,:]?\s+(?:that\s+)?\S+\s+\S+\s+\S+|\b(?:keep|bear) in mind(?: that)?\s+\S+\s+\S+\s+\S+/i },
];

// A question, a hypothesis or a hedge is not a decision ("should we use Redis?", "if we used X…", "maybe use X").
const QUESTION_START = /^(?:can|could|would|should|shall|do(?!\s+not\b)|does|did|is|are|was|were|will|what|why|how|where|when|which|who|have|has|any idea|wdyt)\b/i;
const HYPOTHETICAL = /\b(?:if|what if|suppose|supposing|imagine|let'?s say|say we|assuming|in case|would|could|might|maybe|perhaps|probably|possibly|i wonder|wondering|not sure|i guess|i think|i'?d think|i believe|i feel|seems?|feels? like|or not)\b/i;
const TAG_QUESTION = /(?:,\s*(?:right|or|no|yes|correct|ok|okay|true)|\bor)\s*[.!]*$/i;

interface Sentence {
  start: number;
  end: number;
  text: string;
  /** First sentence of the turn's prose. */
  first: boolean;
  /** Sentence start of a new line/paragraph. */
  paragraph: number;
}

function sentences(text: string, skip: [number, number][]): Sentence[] {
  const out: Sentence[] = [];
  let first = true;
  let para = 0;
  for (const p of text.matchAll(/[^\n]+/g)) {
    const lineStart = p.index;
    const line = p[0];
    if (inside(skip, lineStart) && skip.some(([a, b]) => a <= lineStart && b >= lineStart + line.length)) {
      // The user answers what they quoted: the next line opens like a reply ("that is not correct, …").
      first = true;
      continue;
    }
    para = lineStart;
    let from = 0;
    // Sentence ends: . ! ? followed by a space, except in abbreviations and inside code (`a.b`).
    const ends: number[] = [];
    for (const m of line.matchAll(/[.!?]+(?=\s+\S|\s*$)/g)) {
      const before = line.slice(Math.max(0, m.index - 5), m.index + 1);
      if (/\b(?:e\.g|i\.e|etc|vs|cf)\.$/i.test(before) || inside(skip, lineStart + m.index)) continue;
      ends.push(m.index + m[0].length);
    }
    if (!ends.length || ends[ends.length - 1] < line.length) ends.push(line.length);
    for (const e of ends) {
      const seg = line.slice(from, e);
      const lead = seg.length - seg.trimStart().length;
      const t = seg.trim();
      if (t) {
        out.push({ start: lineStart + from + lead, end: lineStart + from + lead + t.length, text: t, first, paragraph: para });
        first = false;
      }
      from = e;
    }
    if (inside(skip, lineStart + line.length - 1)) first = true;
  }
  return out;
}

function isQuestionOrHedge(s: string): boolean {
  const t = s.trim();
  return /\?/.test(t) || QUESTION_START.test(t) || HYPOTHETICAL.test(t) || TAG_QUESTION.test(t);
}

// Where a sentence's clauses part: "; ", " - ", ", so …", ", but …", ", can you …?" (hedges and questions are judged per clause).
const CLAUSE_BREAK = /\s+(?=but\b)|\s*;\s+|\s+[–—-]{1,2}\s+|,\s*(?=(?:so|but|however|and|because|then|can|could|would|will|do|does|did|is|are|what|how|why|where|when|which|should|shall|looks like|i think|i guess|maybe|not sure)\b)|\.\s+/gi;

/** Where the clause of `s` around position `i` begins. */
function clauseStart(s: string, i: number): number {
  let from = 0;
  for (const m of s.matchAll(CLAUSE_BREAK)) if (m.index + m[0].length <= i) from = m.index + m[0].length;
  return from;
}

/** The clause of `s` around position `i`. */
function clauseAt(s: string, i: number): string {
  let from = 0;
  let to = s.length;
  for (const m of s.matchAll(CLAUSE_BREAK)) {
    if (m.index + m[0].length <= i) from = m.index + m[0].length;
    else if (m.index >= i) {
      to = m.index;
      break;
    }
  }
  return s.slice(from, to);
}

/** A hedge or question in the clause that says it, or a tag question closing the whole sentence ("…, right?"). */
function hedged(sentence: string, at: number): boolean {
  const clause = clauseAt(sentence, at);
  return isQuestionOrHedge(clause) || (clause === sentence.slice(-clause.length) && /\?\s*$/.test(sentence)) || /(?:,\s*|\s)(?:right|or|correct|no|yeah)\s*\?\s*$/i.test(sentence);
}

/** A "don't …" or "No, …" that steers this turn: "Don't change anything, just let me know", "don't add notes". */
function steersThisTurn(sentence: string, at: number): boolean {
  if (STANDING_DONT.test(sentence)) return false;
  const clause = clauseAt(sentence.split(/,\s*/)[0].length > at ? sentence.split(/,\s*/)[0] : sentence, at);
  return TURN_SCOPED_DONT.test(sentence) || words(clause) <= 6;
}

const REMEMBER_THIS = /^(?:so |and |ok,? )?(?:do |can |please |will )?(?:you )?(?:please )?remember (?:this|that)\b|\bso (?:that )?you (?:will )?remember (?:this|that)\b/i;

/** Statements in a user's own words: corrections, decisions, and facts the user points out ("keep in mind that …"). */
export function plainStatements(original: string): Statement[] {
  // Typographic apostrophes ("don’t", "let’s") read as plain ones; same length, so spans index the original.
  const text = original.replace(/[\u2018\u2019\u02bc]/g, "'");
  if (text.length > MAX_PLAIN_TURN_CHARS || PASTED_OR_HARNESS.test(text)) return [];
  const skip = nonProse(text);
  const all = sentences(text, skip);
  const found: { rule: Rule; s: Sentence; idx: number; point?: number }[] = [];
  all.forEach((s, idx) => {
    if (inside(skip, s.start)) return;
    // "… Use the v2 endpoint. So you remember this?": the sentence before is what to keep.
    if (REMEMBER_THIS.test(s.text)) {
      // The sentences before it in its paragraph (a short one, "Since that is the stable link.", takes the one before too).
      let k = idx - 1;
      const ok = (j: number) => j >= 0 && all[j].paragraph === s.paragraph && !inside(skip, all[j].start) && !isQuestionOrHedge(all[j].text);
      if (!ok(k) || found.some((f) => f.idx === k)) return;
      while (k > 0 && ok(k - 1) && words(all.slice(k, idx).map((x) => x.text).join(' ')) < 12 && !found.some((f) => f.idx === k - 1)) k--;
      const from = all[k];
      if (words(all.slice(k, idx).map((x) => x.text).join(' ')) >= 4) found.push({ rule: { kind: 'insight', re: REMEMBER_THIS }, s: { ...all[idx - 1], start: from.start, first: from.first }, idx: idx - 1 });
      return;
    }
    // The sentence as the person typed it, with the filler of a reply removed for the opener tests.
    for (const rule of RULES) {
      if (rule.opener && !s.first) continue;
      const m = rule.re.exec(s.text);
      if (!m) continue;
      if (inside(skip, s.start + m.index) || inQuotes(s.text, m.index)) continue;
      // An opener may lead into a question ("No, why would it …?") or an approval ("No, that's fine"): judge what follows.
      const rest = s.text.slice(m.index + m[0].length);
      if ((rule.opener ? isQuestionOrHedge(clauseAt(rest, 0)) || /\?\s*$/.test(rest) : hedged(s.text, m.index)) || TRANSIENT.test(s.text)) break;
      // Not a correction after all ("No, that's fine", "Actually, let's …"): the sentence may still state a decision.
      if (rule.opener && (APPROVAL.test(rest.trim()) || /^let'?s\b/i.test(rest.trim()) || words(rest) < 3)) continue;
      if (rule.unless?.test(s.text)) continue;
      // Steering for this turn, not a standing rule: a short "don't …", "No, it's not …" about the agent's reading.
      if (rule.re === IMPERATIVE_NOT && words(s.text) >= 4 && steersThisTurn(s.text, 0)) break;
      if (rule.opener && /^(?:no|nope|nah)\b/i.test(s.text) && !STANDING_DONT.test(rest) && (TURN_SCOPED_DONT.test(rest.trim()) || /^(?:it'?s|it is|that'?s|that is|this is) not\b/i.test(rest.trim()))) break;
      // "That is wrong, I can see … in the main branch": what the user sees now, against the agent's reading of it.
      if (rule.opener && /^(?:i|we) (?:can |could )?(?:also |still |just )?(?:totally |clearly )?(?:see|saw|ran|tried|got|checked|have)\b/i.test(rest.replace(/^[\s,.:;!–—-]+/, ''))) break;
      if (words(s.text) < 4) {
        // "… is already present in metrics. don't overcomplicate": a short order takes the sentence before it.
        const prev = all[idx - 1];
        if (!prev || prev.paragraph !== s.paragraph || isQuestionOrHedge(prev.text) || words(prev.text) + words(s.text) < 5 || found.some((f) => f.idx === idx - 1)) break;
        found.push({ rule, s: { ...s, start: prev.start, first: prev.first }, idx });
        break;
      }
      // The point is the clause that says it when what comes before is a hedge ("I think …, so let's …").
      const from = clauseStart(s.text, m.index);
      found.push({ rule, s, idx, ...(from > 0 && isQuestionOrHedge(s.text.slice(0, from)) ? { point: from } : {}) });
      break;
    }
  });
  const out: Statement[] = [];
  found.forEach((f, k) => {
    // The statement runs on through the sentences that explain it (same line or paragraph), up to the next statement.
    let end = f.s.end;
    const next = found[k + 1]?.idx ?? all.length;
    for (let j = f.idx + 1; j < next; j++) {
      const s = all[j];
      if (s.paragraph !== f.s.paragraph || s.end - f.s.start > MAX_PLAIN_STATEMENT_CHARS || isQuestionOrHedge(s.text)) break;
      end = s.end;
    }
    if (end - f.s.start > MAX_PLAIN_STATEMENT_CHARS) end = f.s.end;
    if (end - f.s.start > MAX_PLAIN_STATEMENT_CHARS) return;
    // What the statement answers: the line the user quoted just before it ("it has: # Note: …"), for its referent.
    const before = text.slice(0, f.s.start).replace(/\s+$/, '');
    const quotedLine = before.slice(before.lastIndexOf('\n') + 1);
    const lineStart = before.length - quotedLine.length;
    const context = quotedLine && skip.some(([a, b]) => a <= lineStart + quotedLine.length - 1 && b >= lineStart + quotedLine.length - 1) ? contextOf(text, skip, lineStart, before.length) : undefined;
    out.push({ kind: f.rule.kind, start: f.s.start, end, text: original.slice(f.s.start, end), ...(f.point ? { point: f.point } : {}), ...(context ? { context } : {}) });
  });
  return out;
}

/** The quoted part of the line before a statement, trimmed of its comment marks: "# Note: .entire is …" → ".entire is …". */
function contextOf(text: string, skip: [number, number][], from: number, to: number): string | undefined {
  const span = skip.find(([a, b]) => a < to && b > from);
  if (!span) return undefined;
  const q = text.slice(Math.max(span[0], from), Math.min(span[1], to)).replace(/^[\s>#/*-]*(?:(?:note|todo|fixme|nb)\s*:\s*)?/i, '').trim();
  return q.length >= 8 ? q : undefined;
}


/** True when position `i` of `s` is inside a quoted passage ("…" or “…”). */
function inQuotes(s: string, i: number): boolean {
  let open = false;
  for (let k = 0; k < i; k++) if (s[k] === '"' || s[k] === '“' || s[k] === '”') open = !open;
  return open;
}

/**
 * The statements of one turn: its markers (hashtags from either side, `remember:` from the user), and for a person's
 * own turn (user, not a subagent prompt) the corrections and decisions said in plain words. Engram's fenced context is
 * removed first: memory is never extracted back out of memory.
 */
export function turnStatements(turn: Pick<Turn, 'role' | 'text' | 'sidechain'>): TurnStatements {
  const source = stripEngramFences(turn.text).text;
  // A subagent's "user" is the agent that started it: only its hashtags are deliberate.
  const marked = markerStatements(source, turn.sidechain ? 'assistant' : turn.role);
  const statements = [...marked];
  if (turn.role === 'user' && !turn.sidechain && marked.length === 0) statements.push(...plainStatements(source));
  return { source, statements: statements.sort((a, b) => a.start - b.start) };
}
