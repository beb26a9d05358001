// Retrieval evaluation on a BEIR-style set (corpus, queries, binary qrels): Recall@k and nDCG@10, overall and per
// category. Every document goes through the real index; a query only searches its own group (the `_id` part before `|`).
import { MemoryVault } from '../ports/memory-vault.js';
import type { Yield } from '../ports.js';
import type { RankingConfig } from './rank.js';
import type { IndexSearchOptions } from './search.js';
import { VaultIndex } from './vault-index.js';

export interface EvalDoc {
  _id: string;
  text: string;
  title?: string;
}
export interface EvalQuery {
  _id: string;
  text: string;
  category?: string | number;
}
/** query id -> relevant doc ids */
export type Qrels = Map<string, Set<string>>;

export interface Metrics {
  queries: number;
  'R@1': number;
  'R@5': number;
  'R@10': number;
  'R@20': number;
  'nDCG@10': number;
}

export interface EvalResult {
  overall: Metrics;
  byCategory: Record<string, Metrics>;
  /** Queries for which the search returned nothing at all. */
  empty: number;
}

const KS = [1, 5, 10, 20] as const;

function group(id: string): string {
  const bar = id.indexOf('|');
  return bar >= 0 ? id.slice(0, bar) : '';
}

/** A vault path for a document id: its group as the folder, the rest made safe as a file name. */
export function docPath(id: string): string {
  const g = group(id);
  const rest = (g ? id.slice(g.length + 1) : id).replace(/[\\/#^[\]|]/g, '_');
  return `${g ? `${g.replace(/[\\/]/g, '_')}/` : ''}${rest}.md`;
}

export async function buildEvalIndex(docs: EvalDoc[], opts: { ranking?: Partial<RankingConfig>; yieldNow?: Yield; stemming?: boolean } = {}): Promise<{ index: VaultIndex; idOf: Map<string, string> }> {
  const index = new VaultIndex({ vault: new MemoryVault(), ranking: opts.ranking, yieldNow: opts.yieldNow, stemming: opts.stemming });
  const idOf = new Map<string, string>();
  let i = 0;
  for (const d of docs) {
    const path = docPath(d._id);
    idOf.set(path, d._id);
    // The document's own title, or none: its id is no title (ids such as "D1:3" would match numbers in questions at
    // title weight).
    index.updateText(path, d.text, 0, undefined, d.title ?? '');
    if (++i % 500 === 0) await opts.yieldNow?.();
  }
  return { index, idOf };
}

export function zero(): Metrics {
  return { queries: 0, 'R@1': 0, 'R@5': 0, 'R@10': 0, 'R@20': 0, 'nDCG@10': 0 };
}

function add(m: Metrics, ranked: string[], rel: Set<string>): void {
  m.queries++;
  for (const k of KS) m[`R@${k}`] += ranked.slice(0, k).filter((d) => rel.has(d)).length / rel.size;
  let dcg = 0;
  ranked.slice(0, 10).forEach((d, i) => (dcg += rel.has(d) ? 1 / Math.log2(i + 2) : 0));
  let idcg = 0;
  for (let i = 0; i < Math.min(10, rel.size); i++) idcg += 1 / Math.log2(i + 2);
  m['nDCG@10'] += dcg / idcg;
}

function mean(m: Metrics): Metrics {
  const n = Math.max(1, m.queries);
  return { queries: m.queries, 'R@1': m['R@1'] / n, 'R@5': m['R@5'] / n, 'R@10': m['R@10'] / n, 'R@20': m['R@20'] / n, 'nDCG@10': m['nDCG@10'] / n };
}

export async function evaluate(
  index: VaultIndex,
  idOf: Map<string, string>,
  queries: EvalQuery[],
  qrels: Qrels,
  search: IndexSearchOptions = {},
): Promise<EvalResult> {
  return evaluateRanked(queries, qrels, async (q, g) => {
    const res = await index.search(q.text, {
      mode: 'bm25',
      limit: 20,
      // The corpus carries its dates in the text, not as note dates: time phrases and recency would only mislead.
      timePhrases: false,
      priors: false,
      ...search,
      folders: g ? [g.replace(/[\\/]/g, '_')] : undefined,
    });
    return res.hits.map((h) => idOf.get(h.path) ?? h.path);
  });
}

/**
 * The metrics of any ranking (a peer engine's too): `rank` answers a query, searching only its group, with document
 * ids best first (the first 20 count).
 */
export async function evaluateRanked(queries: EvalQuery[], qrels: Qrels, rank: (q: EvalQuery, group: string) => Promise<string[]> | string[]): Promise<EvalResult> {
  const overall = zero();
  const byCat = new Map<string, Metrics>();
  let empty = 0;
  for (const q of queries) {
    const rel = qrels.get(q._id);
    if (!rel || rel.size === 0) continue;
    const ranked = await rank(q, group(q._id));
    if (ranked.length === 0) empty++;
    add(overall, ranked, rel);
    const cat = String(q.category ?? 'all');
    const m = byCat.get(cat) ?? zero();
    add(m, ranked, rel);
    byCat.set(cat, m);
  }
  const byCategory: Record<string, Metrics> = {};
  for (const [k, m] of [...byCat].sort()) byCategory[k] = mean(m);
  return { overall: mean(overall), byCategory, empty };
}

export function parseJsonl<T>(text: string, what: string): T[] {
  const out: T[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      throw new Error(`${what}: line ${i + 1} is not JSON`);
    }
  });
  return out;
}

export function parseQrels(text: string): Qrels {
  const q: Qrels = new Map();
  for (const line of text.split(/\r?\n/)) {
    const [qid, did, score] = line.split('\t');
    if (!qid || !did || qid === 'query-id' || Number(score) <= 0) continue;
    const s = q.get(qid) ?? new Set<string>();
    s.add(did);
    q.set(qid, s);
  }
  return q;
}
