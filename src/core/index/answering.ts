// Which passage of a note to quote for a query: the best scoring one, unless another's own heading names more of the
// question.
import type { ScoredIndex } from './bm25f.js';
import type { Tokenizer } from './tokenize.js';
import { type Bm25Params, LINK_LIST_WEIGHT } from './text-types.js';

/** What the choice reads of the index. */
export interface QuotedIndex extends ScoredIndex {
  readonly chunkHeading: readonly (string | undefined)[];
  readonly tokenizer: Tokenizer;
}

/**
 * The passage of a note to quote for a query: its best scoring one, unless another passage's own heading (the last
 * part of its heading path) names more of what is asked (beyond the note's title) and its score, grown by that
 * share, passes the best's
 * ("Differences between Burndown and Burnup" for "burndown chart versus burnup chart", rather than "What is a
 * Burndown chart?", which says "burndown" and "chart" more often). Shares weigh the query's words by rarity.
 */
export function answeringChunk(ix: QuotedIndex, slot: number, bestChunk: number, terms: string[], p: Bm25Params): number {
  const n = ix.notes[slot];
  if (!n || n.chunkCount < 2 || terms.length === 0) return bestChunk;
  const idfs = terms.map((t) => ix.idf(t));
  const total = idfs.reduce((a, x) => a + x, 0);
  if (total <= 0) return bestChunk;
  // Words of the note's title name every section of it ("Layout Thrashing" in "What is Layout Thrashing"): counted
  // only when no heading names any other word of the question ("Data Race vs. Race Condition" in "Data race and race
  // condition" for "difference between data race and race condition").
  const named = terms.map((t) => (ix.fields.title.terms.get(t)?.tfOf(slot) ?? 0) > 0);
  const heldBy = new Map<string, Set<string>>();
  const ownHeading = (c: number): string | undefined => {
    const h = ix.chunkHeading[c];
    if (!h) return undefined;
    const at = h.lastIndexOf(' > ');
    const own = at < 0 ? h : h.slice(at + 3);
    if (!heldBy.has(own)) heldBy.set(own, new Set(ix.tokenizer.queryTerms(own, () => true)));
    return own;
  };
  let beyondTitle = false;
  for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount && !beyondTitle; c++) {
    const own = ownHeading(c);
    if (own !== undefined) beyondTitle = terms.some((t, i) => !named[i] && heldBy.get(own)!.has(t));
  }
  const share = (c: number): number => {
    const own = ownHeading(c);
    if (own === undefined) return 0;
    const held = heldBy.get(own)!;
    let v = 0;
    for (let i = 0; i < terms.length; i++) if (held.has(terms[i]) && !(beyondTitle && named[i])) v += idfs[i];
    return v / total;
  };
  const bf = ix.fields.body;
  const avg = bf.averageLength();
  const posts = terms.map((t) => bf.terms.get(t));
  const passage = (c: number): number => {
    let s = 0;
    for (let i = 0; i < terms.length; i++) {
      const tf = posts[i]?.tfOf(c) ?? 0;
      if (tf === 0) continue;
      const x = (p.weights.body * tf) / (1 - p.b + (p.b * bf.lengths[c]) / avg);
      s += (idfs[i] * (x * (p.k1 + 1))) / (x + p.k1);
    }
    return ix.chunkLinks[c] === 1 ? s * LINK_LIST_WEIGHT : s;
  };
  let pick = bestChunk;
  const own = share(bestChunk);
  let top = passage(bestChunk) * (1 + own);
  for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) {
    // Only a heading that names more of the question than the best passage's own can take its place.
    const h = share(c);
    if (c === bestChunk || h <= own) continue;
    const v = passage(c) * (1 + h);
    if (v > top) {
      top = v;
      pick = c;
    }
  }
  return pick;
}
