// Which passage of a note to quote for a query: the best scoring one, unless another's own heading names more of the
// question.
import { bodyTermScore, linkWeighted, type ScoredIndex } from './bm25f.js';
import { FENCE, HEADING, headingText } from './chunk.js';
import type { Tokenizer } from './tokenize.js';
import type { Bm25Params, IndexedNote } from './text-types.js';

/**
 * What a question asks for, and the headings of the sections that give it: a how-to question's answer is a section
 * of steps ("Solution", "Get started", "How to debug", "Usage"), a comparison's a section that compares
 * ("Differences between Burndown and Burnup" for "burndown chart versus burnup chart", "Data Race vs. Race Condition").
 */
const INTENTS: readonly { asks: RegExp; heading: RegExp; context?: RegExp }[] = [
  {
    // "how do I…", "how to…", "…, how to fix", or an instruction ("deploy only one app of a monorepo…").
    asks: /\bhow\s+(?:do|does|can|could|should|would|to|i)\b|\b(?:fix|set\s?up|install|steps?)\b|^\s*(?:add|build|change|combine|configure|convert|create|debug|deploy|disable|enable|export|fix|generate|implement|import|install|keep|make|migrate|move|prevent|remove|rename|reset|restore|run|set|setup|start|stop|update|upgrade|use)\b/i,
    heading: /\b(?:solutions?|fix(?:es|ing)?|workarounds?|resolution|how to|steps?|get(?:ting)? started|quick\s?start|set\s?up|install(?:ation|ing)?|usage|using|directions|instructions|implement(?:ation|ing)?|approach|method|procedure|guide|tutorial|hands-on|configur\w*|process)\b/i,
    // What a how-to note says before its steps: the problem it solves, why it matters (its lead, when sections follow).
    context: /\b(?:introduction|intro|overview|background|context|motivation|problems?|challenges?|issues?)\b/i,
  },
  {
    asks: /\b(?:versus|vs\.?|differences?|differ|compare[ds]?|comparison|contrast)(?!\w)/i,
    heading: /\b(?:versus|vs\.?|differences?|differ|compar\w*|contrast)(?!\w)/i,
  },
];
/** A section that never answers a question unless it is named: where a note lists its sources or neighbours. */
const ASIDE = /^(?:references?|resources|sources|further reading|see also|related(?: notes)?|links|credits|table of contents|contents|toc)$/i;
/** How much a section the question's intent names counts above the rest; an aside, or the context of a how-to, below. */
const INTENT_GAIN = 1.5;
const ASIDE_LOSS = 0.5;

/** Whether a question asks how to do something (its answer is a section of steps, not a summary of the note). */
export function asksHowTo(query: string): boolean {
  return INTENTS[0].asks.test(query);
}

/** The passage to quote, and whether to quote it from its start rather than where the question's words are densest. */
export interface QuotedPassage {
  chunk: number;
  fromStart: boolean;
}

/** What the choice reads of the index. */
export interface QuotedIndex extends ScoredIndex {
  readonly chunkHeading: readonly (string | undefined)[];
  readonly tokenizer: Tokenizer;
}

/**
 * The passage of a note to quote for a query: its best scoring one, unless another passage's own heading (the last
 * part of its heading path) names more of what is asked (beyond the note's title), or names what the question asks
 * for (steps for a how-to, a comparison for "versus"), and its score, grown by that share, passes the best's
 * ("Differences between Burndown and Burnup" for "burndown chart versus burnup chart", rather than "What is a
 * Burndown chart?", which says "burndown" and "chart" more often). Shares weigh the query's words by rarity. A list
 * of references or links counts at half, and so does a how-to note's introduction for a how-to question.
 */
export function answeringChunk(ix: QuotedIndex, slot: number, bestChunk: number, terms: string[], p: Bm25Params, query = ''): QuotedPassage {
  const n = ix.notes[slot];
  const best = { chunk: bestChunk, fromStart: false };
  if (!n || n.chunkCount < 2 || terms.length === 0) return best;
  const idfs = terms.map((t) => ix.idf(t));
  const total = idfs.reduce((a, x) => a + x, 0);
  if (total <= 0) return best;
  const share = headingShare(ix, n, terms, idfs, total);
  const role = sectionRole(ix, n, query);
  const passage = passageScore(ix, terms, idfs, p);
  let pick = bestChunk;
  const own = share(bestChunk);
  const ownRole = role(bestChunk);
  let top = passage(bestChunk) * (1 + own) * ownRole;
  for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) {
    // Only a heading that names more of the question than the best passage's own, or a better kind of section, can
    // take its place.
    const h = share(c);
    const r = role(c);
    if (c === bestChunk || (h <= own && r <= ownRole)) continue;
    const v = passage(c) * (1 + h) * r;
    if (v > top) {
      top = v;
      pick = c;
    }
  }
  // A section chosen for what its heading says the question asks for is quoted from its start (a long one is cut
  // into pieces): what the heading introduces ("In this article, we will show you an approach using the session
  // storage…"), not a stretch deep in its code.
  if (pick === bestChunk || role(pick) <= ownRole) return { chunk: pick, fromStart: false };
  while (pick > n.firstChunk && ix.chunkHeading[pick - 1] === ix.chunkHeading[pick] && passage(pick - 1) > 0) pick--;
  return { chunk: pick, fromStart: true };
}

/** A passage's own heading: the last part of its heading path. */
function ownHeading(ix: QuotedIndex, c: number): string | undefined {
  const h = ix.chunkHeading[c];
  if (!h) return undefined;
  const at = h.lastIndexOf(' > ');
  return at < 0 ? h : h.slice(at + 3);
}

/**
 * A heading's terms, kept by tokenizer (a heading's terms are the same for every query): the headings of each note
 * quoted were cut into terms for every query that found it. Bounded like the tokenizer's stem caches.
 */
const headingCache = new WeakMap<Tokenizer, Map<string, ReadonlySet<string>>>();
function headingTerms(tokenizer: Tokenizer, heading: string): ReadonlySet<string> {
  let cache = headingCache.get(tokenizer);
  if (!cache) headingCache.set(tokenizer, (cache = new Map<string, ReadonlySet<string>>()));
  let set = cache.get(heading);
  if (!set) {
    if (cache.size >= 50_000) cache.clear();
    cache.set(heading, (set = new Set(tokenizer.queryTerms(heading, () => true))));
  }
  return set;
}

/** The share of the question's weight a passage's own heading names. */
function headingShare(ix: QuotedIndex, n: IndexedNote, terms: string[], idfs: number[], total: number): (c: number) => number {
  // Words of the note's title name every section of it ("Layout Thrashing" in "What is Layout Thrashing"): counted
  // only when no heading names any other word of the question ("Data Race vs. Race Condition" in "Data race and race
  // condition" for "difference between data race and race condition").
  const slot = ix.chunkNote[n.firstChunk];
  const named = terms.map((t) => (ix.fields.title.terms.get(t)?.tfOf(slot) ?? 0) > 0);
  const held = (c: number): ReadonlySet<string> | undefined => {
    const own = ownHeading(ix, c);
    return own === undefined ? undefined : headingTerms(ix.tokenizer, own);
  };
  let beyondTitle = false;
  for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount && !beyondTitle; c++) {
    const h = held(c);
    if (h) beyondTitle = terms.some((t, i) => !named[i] && h.has(t));
  }
  return (c) => {
    const h = held(c);
    if (!h) return 0;
    let v = 0;
    for (let i = 0; i < terms.length; i++) if (h.has(terms[i]) && !(beyondTitle && named[i])) v += idfs[i];
    return v / total;
  };
}

/**
 * How a passage's kind of section weighs for this question: INTENT_GAIN where its heading path names what the question
 * asks for, ASIDE_LOSS for a list of references or links, and for the introduction of a how-to note (a section so
 * named, or the text before its first heading) when the question asks how.
 */
function sectionRole(ix: QuotedIndex, n: IndexedNote, query: string): (c: number) => number {
  const intents = INTENTS.filter((i) => i.asks.test(query));
  let headed = false;
  for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount && !headed; c++) headed = ix.chunkHeading[c] !== undefined;
  return (c) => {
    const path = ix.chunkHeading[c];
    const own = ownHeading(ix, c);
    if (own !== undefined && ASIDE.test(own.trim())) return ASIDE_LOSS;
    if (path !== undefined && intents.some((i) => i.heading.test(path))) return INTENT_GAIN;
    const lead = path === undefined && headed;
    if (intents.some((i) => i.context && (lead || (own !== undefined && i.context.test(own))))) return ASIDE_LOSS;
    return 1;
  };
}

/** A passage's BM25 score for the query from its own text (heading included), a list of links at its share. */
function passageScore(ix: QuotedIndex, terms: string[], idfs: number[], p: Bm25Params): (c: number) => number {
  const bf = ix.fields.body;
  const avg = bf.averageLength();
  const posts = terms.map((t) => bf.terms.get(t));
  return (c) => {
    let s = 0;
    for (let i = 0; i < terms.length; i++) {
      const tf = posts[i]?.tfOf(c) ?? 0;
      if (tf === 0) continue;
      s += bodyTermScore(bf, avg, c, tf, idfs[i], p);
    }
    return linkWeighted(ix, c, s);
  };
}

/**
 * The part of a passage to quote from: a short note kept whole holds its sections' headings in its text, and when the
 * question asks for steps or a comparison, the first section whose heading names that (and whose text says a word of
 * the question) is what answers ("Get started" of a vault's Readme for "how do I set up this vault", not its intro).
 * Otherwise the passage as it is.
 */
export function answeringText(text: string, query: string, terms: readonly string[], tokenizer: Tokenizer): string {
  const intents = INTENTS.filter((i) => i.asks.test(query));
  if (intents.length === 0 || terms.length === 0 || !/^#{1,6}[ \t]/m.test(text)) return text;
  const lines = text.split('\n');
  const want = new Set(terms);
  let fence: string | null = null;
  let from = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const f = FENCE.exec(lines[i]);
    if (f) fence = fence === null ? f[1][0] : fence === f[1][0] ? null : fence;
    const h = fence === null && !f ? HEADING.exec(lines[i]) : null;
    if (!h) continue;
    if (from >= 0 && h[1].length <= level) {
      const section = lines.slice(from, i).join('\n');
      if (tokenizer.terms(section).some((t) => want.has(t))) return section;
      from = -1;
    }
    if (from < 0 && intents.some((x) => x.heading.test(headingText(h[2])))) {
      from = i;
      level = h[1].length;
    }
  }
  if (from >= 0) {
    const section = lines.slice(from).join('\n');
    if (tokenizer.terms(section).some((t) => want.has(t))) return section;
  }
  return text;
}
