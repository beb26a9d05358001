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

// A title whose point leans on a word that stands for something said elsewhere: "It should be worktree", "Let's make both a constant".
// ("It's bad idea, …", "It's not valid to …": an "it" that stands for nothing is fine.)
const PRONOUN_SUBJECT = /^(?:it|this|that|they|these|those|both)\b(?!-|'?s (?:not )?(?:an? )?(?:good|bad|valid|invalid|important|fine|ok|okay|better|worse|necessary|required|safe|unsafe|possible|impossible|hard|easy|crucial|acceptable|unacceptable|allowed)\b| is (?:not )?(?:an? )?(?:good|bad|valid|invalid|important|necessary|required|crucial|acceptable|unacceptable|allowed)\b)/i;
const PRONOUN_OBJECT = /\b(?:remove|make|store|keep|use|drop|revert|commit|put|move|call|name|rename|delete)\s+(?:it|that|this|them|both|those|these)\b/i;

/** What a context sentence is about: a quoted or code-like name, else "the <noun phrase>" before its verb. */
function subjectTerm(context: string): string | null {
  const quoted = /[`"“]([^`"”\n]{2,40})[`"”]/.exec(context);
  if (quoted) return quoted[1].trim();
  const code = /(?:^|\s)(\.[\w-]+|[\w-]+(?:[._/][\w-]+)+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}\w*)(?=[\s,.;:!?)]|$)/.exec(context);
  if (code) return code[1];
  const np = /\bthe ((?:[\w-]+ ){0,2}[\w-]+?)(?= (?:is|are|was|were|has|have|had|should|must|can|will|does|do|fetches|returns|creates|runs|keeps|needs|uses|lives|goes)\b)/i.exec(context);
  if (np) return `the ${np[1]}`;
  // What a proposal names: "how about including the commit sha?", "we could calculate a percentage based on lines".
  const object = /\b(?:including|include|adding|add|using|use|calculate|calculating|compute|track|tracking|store|storing|keep|keeping)\s+((?:the|a|an)\s+(?:[\w-]+ ){0,3}?[\w-]+)(?=\s*(?:[?.!,;]|$))/i.exec(context);
  return object ? object[1] : null;
}

/** The last sentences of `text` that name something (what a pronoun in the next one most likely stands for), nearest first. */
function lastSentences(text: string, n = 2): string[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat
    .split(/(?<=[.!?])\s+/)
    .filter((x) => x.length >= 8 && x.length <= 300)
    .slice(-n)
    .reverse();
}

/** A path in a title is its last two folders (`secret-notes/config.toml`), never a run of mangled folder names. */
function shortPaths(text: string): string {
  return text.replace(/(?<![\w`])(?:~|\.{1,2})?(?:\/[\w.@+-]+){2,}\/?/g, (p) => `\`${p.replace(/\/$/, '').split('/').slice(-2).join('/')}\``);
}

/** The title and body of a statement, with the referent its point leans on; null when the point has none to give. */
function pointWithReferent(st: Statement, before: string, prevUser: string | undefined): { title: string; body: string } | null {
  const said = st.text.trim();
  const pointText = st.point ? st.text.slice(st.point).trim() : said;
  let title = phraseTitle(shortPaths(pointText), MAX_TITLE_CHARS - 1);
  const candidates = [st.context, st.point ? st.text.slice(0, st.point).replace(/[\s,;:–—-]+$/, '') : undefined, ...lastSentences(before), ...(prevUser ? lastSentences(prevUser) : [])].filter((c): c is string => !!c);
  let context = candidates[0];
  const subject = PRONOUN_SUBJECT.exec(title);
  const object = PRONOUN_OBJECT.exec(title);
  let usedContext = !!st.context;
  if (subject || object) {
    const found = candidates.map((c) => ({ c, term: subjectTerm(c) })).find((x) => x.term);
    if (!found?.term) return null;
    const term = found.term;
    context = found.c;
    usedContext = true;
    // The pronoun gives way to what it stands for: "It should never …" → "The resume command should never …".
    const at = subject ? 0 : object!.index + object![0].length - /\S+$/.exec(object![0])![0].length;
    const word = subject ? subject[0] : /\S+$/.exec(object![0])![0];
    title = phraseTitle(`${title.slice(0, at)}${term}${title.slice(at + word.length)}`, MAX_TITLE_CHARS - 1);
  }
  const body = usedContext && context ? `${said}\n\nContext: “${context.replace(/\s+/g, ' ').slice(0, 200)}”` : said;
  return { title, body };
}

function beatFrom(turn: Turn, source: string, st: Statement, prevUser?: string): Beat | null {
  const framed = st.marker ? { title: phraseTitle(shortPaths(st.text.trim()), MAX_TITLE_CHARS - 1), body: st.text.trim() } : pointWithReferent(st, source.slice(Math.max(0, st.start - 400), st.start), prevUser);
  if (!framed) return null;
  const { title, body } = framed;
  if (!title || title.split(/\s+/).length < 2) return null;
  const quote = quoteFor(source, st);
  if (!quote) return null;
  return {
    type: st.kind,
    title,
    summary: firstSentence(st.text),
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
  let prevUser: string | undefined;
  for (const turn of turns) {
    const { source, statements } = turnStatements(turn);
    for (const st of statements) {
      const b = beatFrom(turn, source, st, prevUser);
      if (!b) continue;
      const key = b.body.toLowerCase().replace(/\s+/g, ' ');
      if (seen.has(key)) continue;
      seen.add(key);
      beats.push(b);
    }
    if (turn.role === 'user' && !turn.sidechain) prevUser = source;
  }
  return beats;
}

export class RulesBackend implements LlmBackend {
  readonly name = 'rules' as const;
  readonly model = 'rules-v1';
  /** Whether its calls cost money: never for rules, but the backend registry's word as for every backend. */
  readonly paid: boolean;

  constructor(opts: { paid: boolean }) {
    this.paid = opts.paid;
  }

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
