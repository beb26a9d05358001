// One query against the index: time phrases -> filters, BM25 and vector candidates, reciprocal-rank fusion, priors,
// near-duplicate collapse, optional link expansion, and hits that say why they matched.
import { snippetWords } from './language.js';
import { EngramError } from '../errors.js';
import type { Clock, Embedder } from '../ports.js';
import { allowList, hasFilters, inRange, phraseAllowList, type PhraseRange } from './filters.js';
import type { LinkGraph } from './graph.js';
import { excerpt } from './excerpt.js';
import { priorFactor, rrf, type RankingConfig } from './rank.js';
import { topK, type FieldName, type IndexedNote, type TextCandidate, type TextIndex } from './text-index.js';
import { extractTimePhrase, whenFactor } from './time-phrases.js';
import { followOn, type Follows } from './reading-order.js';
import type { SearchFilters, SearchHit, SearchOptions } from './types.js';
import type { VectorStore } from './vector-store.js';

export interface IndexSearchOptions extends SearchOptions {
  /** A query vector computed by the caller (benchmarks; clients that embed themselves). */
  queryVector?: Float32Array;
  /** Recency, confidence and type priors (default true). */
  priors?: boolean;
}

const EXACT_TITLE_BOOST = 1.5;
/**
 * The factor of a note dated within a question's time phrase ("in September 2023"): the phrase ranks such notes up
 * rather than leaving out the notes whose only date is their file's (filters.ts, phraseAllowList).
 */
const TIME_PHRASE_BOOST = 2;

/**
 * The floor of a search: below this share of the query's weight in its best passage, the best hit is no close match.
 * Measured on the recall sets (bench/recall-sets, kepano-obsidian and dwarvesf-brain): the best hit of 16 of 20
 * off-topic prompts covers less than 0.35 of the prompt, the best hit of 9 in 10 on-topic questions 0.35 or more.
 */
export const SEARCH_FLOOR = 0.35;
/** A hit is kept when it covers at least this share of what the best hit covers of the query. */
export const RELATIVE_COVER = 0.4;
/** A hit found by meaning this close is a match even when it shares few words. */
const CLOSE_COSINE = 0.5;
export const NO_CLOSE_MATCH = 'no close match: the notes below share little of the query';

const squash = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const noteName = (path: string): string => path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
/** Each note's file name and display name as `squash` makes them: compared with every query's, made once a note. */
const squashedNames = new WeakMap<IndexedNote, string[]>();
function namesOf(n: IndexedNote): string[] {
  let names = squashedNames.get(n);
  if (!names) squashedNames.set(n, (names = n.name !== undefined ? [squash(noteName(n.path)), squash(n.name)] : [squash(noteName(n.path))]));
  return names;
}

export interface SearchResult {
  hits: SearchHit[];
  mode: 'bm25' | 'hybrid' | 'vector';
  /** Things the user should know: BM25-only for lack of a model, no searchable words, a time phrase used… */
  notices: string[];
  timeFilter?: { phrase: string; since?: number; until?: number };
  /** The normalised query terms BM25 used. */
  terms: string[];
}

export interface SearchContext {
  text: TextIndex;
  vectors: VectorStore | null;
  embedder?: Embedder;
  /** Vectors in the store belong to the current embedder. */
  vectorsUsable: boolean;
  clock: Clock;
  ranking: RankingConfig;
  graph: () => LinkGraph;
  /** The allow-list for these filters (cached by the index); computed here when absent. */
  allowed?: (f: SearchFilters) => Uint8Array | null;
}

interface Cand {
  slot: number;
  score: number;
  chunk: number;
  bm25?: number;
  bm25Rank?: number;
  cos?: number;
  vecRank?: number;
  via?: string;
  /** The note before it in its series, and the question's terms it held (reading-order.ts). */
  follows?: Follows;
  why: string[];
}

export async function runSearch(ctx: SearchContext, rawQuery: string, opts: IndexSearchOptions = {}): Promise<SearchResult> {
  const { result: first, dated } = await searchOnce(ctx, rawQuery, opts);
  // A phrase keeps the notes dated only by their file: it still counts when some hit is dated within it.
  if (dated > 0 || !first.timeFilter || first.terms.length === 0) return first;
  // "the socket bug from last week" when nothing is that recent: the words still matter more than the date.
  const withoutPhrase = rawQuery.replace(first.timeFilter.phrase, ' ');
  const { result: again } = await searchOnce(ctx, withoutPhrase, { ...opts, timePhrases: false });
  again.notices.unshift(`nothing matched "${first.timeFilter.phrase}"; showing results from any date`);
  return again;
}

/** One search; `dated`: how many of its hits are dated within the query's time phrase. */
async function searchOnce(ctx: SearchContext, rawQuery: string, opts: IndexSearchOptions): Promise<{ result: SearchResult; dated: number }> {
  const limit = Math.max(1, Math.min(opts.limit ?? 10, 1000));
  const notices: string[] = [];
  const filters = { ...opts };
  const { query, timeFilter, phrase } = readTimePhrase(ctx, typeof rawQuery === 'string' ? rawQuery.trim() : '', opts, notices);
  if (!query && !hasFilters(filters) && !phrase) {
    throw new EngramError('usage', 'The query is empty: nothing to search for.', 'Give some words, e.g. engram search "sidecar socket", or a filter such as --type decision.');
  }
  const { text, ranking } = ctx;
  const base = ctx.allowed ? ctx.allowed(filters) : allowList(text.notes, filters);
  const allowed = phrase ? phraseAllowList(text.notes, base, phrase) : base;
  const terms = query ? text.queryTerms(query) : [];
  let mode: SearchResult['mode'] = opts.mode ?? 'hybrid';
  const canVector = ctx.vectors !== null && ctx.vectorsUsable && (opts.queryVector !== undefined || ctx.embedder !== undefined);
  if (mode !== 'bm25' && !canVector) {
    if (opts.mode === 'vector' || opts.mode === 'hybrid') notices.push('no embedding model loaded: keyword (BM25) search only');
    else notices.push('keyword (BM25) search only: no embedding model');
    mode = 'bm25';
  }
  const cands = new Map<number, Cand>();
  if (mode !== 'vector' && terms.length > 0) keywordCands(ctx, query, terms, allowed, mode === 'bm25' ? Math.max(limit * 3, 30) : ranking.depth, cands);
  if (mode !== 'bm25' && query) await vectorCands(ctx, query, opts.queryVector, allowed, cands);
  let list = [...cands.values()];
  if (opts.hidden) list = list.filter((c) => !opts.hidden!(text.notes[c.slot]!.path));
  if (list.length === 0 && terms.length === 0 && query && mode === 'bm25') {
    notices.push('the query has no searchable words (only stop words, symbols or emoji)');
  }
  if (!query || (terms.length === 0 && mode === 'bm25' && (hasFilters(filters) || phrase))) list = filteredOnly(ctx, allowed, phrase, opts.hidden, limit);
  else scoreCands(ctx, list, mode, opts.priors !== false, phrase && timeFilter ? { ...phrase, phrase: timeFilter.phrase } : undefined);
  const kept = collapse(ctx, list, limit);
  if (opts.expandLinks) expand(ctx, kept, opts.expandLinks, allowed, limit, opts.hidden);
  const words = snippetWords(query);
  const said = text.tokenizer.wordsByTerm(query);
  let matched = kept.slice(0, limit).map((c) => ({ c, m: passageMatch(text, c.slot, c.chunk, terms, c.follows?.terms) }));
  if (terms.length > 1 && opts.relativeCut !== false) {
    // A hit sharing far less of the query than the best one is padding: a long note that says one common word of it.
    const top = Math.max(...matched.map(({ m }) => m.coverage));
    matched = matched.filter(({ c, m }) => m.coverage >= top * RELATIVE_COVER || (c.cos ?? 0) >= CLOSE_COSINE);
  }
  // Excerpts (the costly part of a hit) only for the hits kept.
  const hits = matched.map(({ c, m }) => toHit(ctx, c, m, terms, words, said));
  if (hits.length > 0 && terms.length > 0 && (hits[0].coverage ?? 1) < SEARCH_FLOOR && (kept[0].cos ?? 0) < CLOSE_COSINE) notices.unshift(NO_CLOSE_MATCH);
  const dated = phrase ? matched.filter(({ c }) => inRange(text.notes[c.slot]!, phrase)).length : 0;
  return { result: { hits, mode, notices, timeFilter, terms }, dated };
}

/** The time phrase of a question ("last week") read out of it as a date range, and the words left. */
function readTimePhrase(ctx: SearchContext, query: string, opts: IndexSearchOptions, notices: string[]): { query: string; timeFilter?: SearchResult['timeFilter']; phrase?: PhraseRange } {
  if (opts.timePhrases === false || !query) return { query };
  const t = extractTimePhrase(query, ctx.clock.now());
  if (!t.range) return { query };
  notices.push(`"${t.range.phrase}" read as a date filter`);
  return { query: t.query, timeFilter: { phrase: t.range.phrase, since: t.range.since, until: t.range.until }, phrase: { since: t.range.since, until: t.range.until } };
}

/** Keyword candidates: BM25F's best notes; a note asked for by its name comes first. */
function keywordCands(ctx: SearchContext, query: string, terms: string[], allowed: Uint8Array | null, depth: number, cands: Map<number, Cand>): void {
  const { text, ranking } = ctx;
  const read = followOn(text, text.score(terms, allowed, ranking.bm25, depth), terms, allowed, ranking.bm25);
  const top = toldWhenFirst(text, read.top, query, ranking.bm25.whenGain);
  // Asking for a note by its name should find that note first, even when a longer title stems the same way.
  const wanted = squash(query);
  const exact = new Set<number>();
  const best = top[0]?.score ?? 0;
  for (const c of top) {
    const n = text.notes[c.slot]!;
    if (namesOf(n).includes(wanted)) {
      c.score = Math.max(c.score * EXACT_TITLE_BOOST, best * 1.1);
      exact.add(c.slot);
    }
  }
  if (exact.size > 0) top.sort((a, b) => b.score - a.score);
  top.forEach((c, rank) => {
    const why = exact.has(c.slot) ? ['exact title'] : [];
    cands.set(c.slot, { slot: c.slot, score: 0, chunk: c.bestChunk, bm25: c.score, bm25Rank: rank, follows: read.follows.get(c.slot), why });
  });
}

/** Meaning candidates: the passages nearest the query's vector, above the cosine floor. */
async function vectorCands(ctx: SearchContext, query: string, queryVector: Float32Array | undefined, allowed: Uint8Array | null, cands: Map<number, Cand>): Promise<void> {
  const { text, ranking } = ctx;
  const qv = queryVector ?? (await ctx.embedder!.embed([query.slice(0, 2000)]))[0];
  const vs = ctx.vectors!.search(qv, ranking.depth, text.chunkNote, allowed);
  let rank = 0;
  for (const v of vs) {
    if (v.score < ranking.minCosine) break;
    const c = cands.get(v.slot) ?? { slot: v.slot, score: 0, chunk: v.chunk, why: [] };
    c.cos = v.score;
    c.vecRank = rank++;
    if (c.bm25 === undefined) c.chunk = v.chunk;
    cands.set(v.slot, c);
  }
}

/** Filters alone (or a time phrase alone): the matching notes, newest first; a phrase alone means notes within it. */
function filteredOnly(ctx: SearchContext, allowed: Uint8Array | null, phrase: PhraseRange | undefined, hidden: ((path: string) => boolean) | undefined, limit: number): Cand[] {
  const notes = ctx.text.notes;
  const list: Cand[] = [];
  for (let s = 0; s < notes.length; s++) {
    const n = notes[s];
    if (n && (allowed === null || allowed[s] === 1) && (!phrase || inRange(n, phrase)) && !hidden?.(n.path)) list.push({ slot: s, score: n.time, chunk: n.firstChunk, why: ['matches the filters'] });
  }
  const top = topK(list, limit);
  top.forEach((c, i) => (c.score = 1 / (i + 1)));
  return top;
}

/** Each candidate's score (BM25, or both ranks fused), with priors and the question's time phrase; best first. */
function scoreCands(ctx: SearchContext, list: Cand[], mode: SearchResult['mode'], priors: boolean, phrase: (PhraseRange & { phrase: string }) | undefined): void {
  const { text, ranking } = ctx;
  const now = ctx.clock.now();
  for (const c of list) {
    c.score = mode === 'bm25' ? c.bm25 ?? 0 : (c.bm25Rank !== undefined ? rrf(c.bm25Rank, ranking.rrfK) : 0) + (c.vecRank !== undefined ? rrf(c.vecRank, ranking.rrfK) : 0);
    if (priors) {
      const p = priorFactor(text.notes[c.slot]!, now, ranking);
      c.score *= p.factor;
      c.why.push(...p.why);
    }
    if (phrase && inRange(text.notes[c.slot]!, phrase)) {
      c.score *= TIME_PHRASE_BOOST;
      c.why.push(`dated ${phrase.phrase}`);
    }
  }
  // Equal scores in path order: slot numbers differ between a fresh build and a loaded snapshot, answers must not.
  list.sort((a, b) => b.score - a.score || byPath(ctx, a, b));
}

/** A question that asks when is answered by a passage that tells when ("yesterday", "last week"): time-phrases.ts. */
function toldWhenFirst(text: TextIndex, top: TextCandidate[], query: string, gain: number): TextCandidate[] {
  const when = whenFactor(query, gain);
  if (!when) return top;
  for (const c of top) c.score *= when(text.chunkText[c.bestChunk] ?? '');
  return top.sort((a, b) => b.score - a.score);
}

function byPath(ctx: SearchContext, a: Cand, b: Cand): number {
  const x = ctx.text.notes[a.slot]!.path;
  const y = ctx.text.notes[b.slot]!.path;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Keeps the best of each group of near-duplicates (same normalised text, or nearly the same vector). */
function collapse(ctx: SearchContext, list: Cand[], limit: number): Cand[] {
  const out: Cand[] = [];
  const seen = new Map<string, Cand>();
  for (const c of list) {
    if (out.length >= limit) break;
    const n = ctx.text.notes[c.slot]!;
    let dup = seen.get(n.dupKey);
    if (!dup && ctx.vectors && ctx.vectorsUsable) {
      const v = ctx.vectors.get(n.firstChunk);
      if (v && n.chunkCount === 1) {
        for (const o of out) {
          const on = ctx.text.notes[o.slot]!;
          const w = on.chunkCount === 1 ? ctx.vectors.get(on.firstChunk) : null;
          if (w && dot(v, w) >= ctx.ranking.duplicateCosine) {
            dup = o;
            break;
          }
        }
      }
    }
    if (dup) {
      dup.why.push(`near-duplicate collapsed: [[${n.title}]]`);
      continue;
    }
    seen.set(n.dupKey, c);
    out.push(c);
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * Adds notes one or two links away from the top hits, scored below the hit they hang from and marked `via`; a note the
 * caller hides (a private note, for an agent) is neither added nor walked through.
 */
function expand(ctx: SearchContext, hits: Cand[], hops: 1 | 2, allowed: Uint8Array | null, limit: number, hidden?: (path: string) => boolean): void {
  const g = ctx.graph();
  const have = new Set(hits.map((h) => h.slot));
  let frontier = hits.slice(0, Math.min(5, hits.length));
  for (let hop = 1; hop <= hops; hop++) {
    const next: Cand[] = [];
    for (const h of frontier) {
      const from = ctx.text.notes[h.slot]!;
      const add = (slot: number, how: string): void => {
        if (have.has(slot) || (allowed && allowed[slot] === 0)) return;
        const n = ctx.text.notes[slot];
        if (!n || hidden?.(n.path)) return;
        have.add(slot);
        const c: Cand = { slot, score: h.score * 0.5, chunk: n.firstChunk, via: h.via ?? from.path, why: [`${how} [[${from.title}]]${hop > 1 ? ' (2 hops)' : ''}`] };
        next.push(c);
      };
      for (const s of g.out(h.slot)) add(s, 'linked from');
      for (const s of g.back(h.slot)) add(s, 'links to');
    }
    hits.push(...next.slice(0, limit));
    frontier = next.slice(0, 5);
  }
  hits.sort((a, b) => b.score - a.score || byPath(ctx, a, b));
}

/** Rarity of a term among passages; a term the vault never uses weighs most (an off-topic word). */
function termWeight(text: TextIndex, term: string): number {
  const bf = text.fields.body;
  const n = bf.terms.get(term)?.n ?? 0;
  return Math.log(1 + (bf.liveDocs - n + 0.5) / (n + 0.5));
}

/** Which fields of a hit hold which query terms, and the share of the query's weight they hold. */
export interface Match {
  fields: Map<FieldName, string[]>;
  found: Set<string>;
  coverage: number;
}

/**
 * What a note's fields and one passage hold of the query's terms: the coverage the floor and the relative cut read
 * (SearchHit.coverage), for any index searched this way (the vault's, the team cache's). `before`: the share each
 * term scores in the notes before it in its series (Follows), read with it.
 */
export function passageMatch(t: TextIndex, slot: number, chunk: number, terms: string[], before?: ReadonlyMap<string, number>): Match {
  const fields = t.matchedFields(slot, chunk, terms);
  const found = new Set<string>();
  for (const ts of fields.values()) for (const x of ts) found.add(x);
  let total = 0;
  let got = 0;
  for (const x of terms) {
    const w = termWeight(t, x);
    total += w;
    if (found.has(x)) got += w;
    else got += w * (before?.get(x) ?? 0);
  }
  return { fields, found, coverage: total > 0 ? Number((got / total).toFixed(3)) : 1 };
}

function toHit(ctx: SearchContext, c: Cand, { fields, found, coverage }: Match, terms: string[], words: string[], said: Map<string, string>): SearchHit {
  const t = ctx.text;
  const n = t.notes[c.slot]!;
  const why: string[] = [];
  // The passage quoted: one whose own heading names what is asked can take the place of the best scoring one. What the
  // hit matched and covers (the floor, the prompt hook's bar) stays read on the best scoring passage.
  const quoted = c.bm25 !== undefined && c.via === undefined ? t.answeringChunk(c.slot, c.chunk, terms, ctx.ranking.bm25, words.join(' ')) : { chunk: c.chunk, fromStart: false };
  const shown = quoted.chunk;
  if (c.bm25 !== undefined) {
    // The user's words ("materials"), not the index's stems ("materi").
    for (const [field, ts] of fields) why.push(`${field}: ${ts.map((x) => said.get(x) ?? x).join(', ')}`);
    if (c.follows) why.push(`follows ${c.follows.from.map((s) => `[[${t.notes[s]!.title}]]`).join(', ')}: ${[...c.follows.terms.keys()].map((x) => said.get(x) ?? x).join(', ')}`);
  }
  if (c.cos !== undefined) why.push(`meaning (cosine ${c.cos.toFixed(2)})`);
  why.push(...c.why);
  // The excerpt (most of a hit's cost) is cut when first read: a hook reads it only for the hits it injects. It is
  // cut from the text the passage had when found, whatever the index holds by then.
  const passage = t.chunkText[shown] ?? '';
  let snippet: string | undefined;
  return {
    path: n.path,
    title: n.name ?? noteName(n.path),
    score: Number(c.score.toFixed(6)),
    get snippet(): string {
      return (snippet ??= excerpt(t, n.props, passage, words, terms, quoted.fromStart));
    },
    set snippet(s: string) {
      snippet = s;
    },
    heading: t.chunkHeading[shown],
    why,
    type: n.type,
    project: n.project,
    summary: n.summary,
    via: c.via,
    chars: n.size,
    coverage,
    terms: [...found],
  };
}
