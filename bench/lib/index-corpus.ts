// What the index benches share: where the shared corpus is, heap and percentile helpers, the 13,415-note vault's
// queries, and the LoCoMo turn-level set with its tuning / held-out split.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseJsonl, parseQrels, type EvalDoc, type EvalQuery, type EvalResult, type Qrels } from '../../src/core/index/eval.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const corpus = path.resolve(process.env.ENGRAM_SHARED_DIR ?? path.join(root, '..', 'shared'), 'corpus');
export const zettelDir = path.join(corpus, 'vaults', 'digitalyoshixi-zettelkasten');

export const gc = (globalThis as { gc?: () => void }).gc;
/** heapUsed after a forced GC + arrayBuffers (typed-array postings live outside the JS heap). */
export const heapMB = (): number => {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1e6;
};
export const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
export const ms = (x: number): string => `${x.toFixed(2)} ms`;
export const s = (x: number): string => `${(x / 1000).toFixed(2)} s`;

export function zettelQueries(): string[] {
  return fs.readFileSync(path.join(corpus, 'bench', 'zettel-queries.txt'), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
}

export interface Locomo {
  docs: EvalDoc[];
  qrels: Qrels;
  /** Engram's ranking was tuned on conv-26/30/41/42; 43/44/47 are held out. */
  splits: Record<string, EvalQuery[]>;
}

export function loadLocomo(): Locomo {
  const d = path.join(corpus, 'bench', 'locomo-dev');
  const docs = parseJsonl<EvalDoc>(fs.readFileSync(path.join(d, 'corpus_turn.jsonl'), 'utf8'), 'corpus');
  const queries = parseJsonl<EvalQuery>(fs.readFileSync(path.join(d, 'queries_turn.jsonl'), 'utf8'), 'queries');
  const qrels = parseQrels(fs.readFileSync(path.join(d, 'qrels_turn.tsv'), 'utf8'));
  const tuneSet = new Set(['conv-26', 'conv-30', 'conv-41', 'conv-42']);
  const splits = {
    'tuning (26,30,41,42)': queries.filter((q) => tuneSet.has(q._id.split('|')[0])),
    'held out (43,44,47)': queries.filter((q) => !tuneSet.has(q._id.split('|')[0])),
    'all seven': queries,
  };
  return { docs, qrels, splits };
}

export function fmt(r: EvalResult): string {
  return `nDCG@10 ${r.overall['nDCG@10'].toFixed(3)} R@1 ${r.overall['R@1'].toFixed(3)} R@5 ${r.overall['R@5'].toFixed(3)} R@10 ${r.overall['R@10'].toFixed(3)} R@20 ${r.overall['R@20'].toFixed(3)} (${r.overall.queries} q)`;
}

/** Every Markdown note of a vault folder (dot folders left out), keyed by vault path: what a page or host is given. */
export function readVaultTexts(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith('.md')) out[r] = fs.readFileSync(path.join(dir, r), 'utf8');
    }
  };
  walk('');
  return out;
}

/** Runs `fn`, timing it and the longest stretch in which the event loop could not run (a 1 ms heartbeat's gap). */
export async function blocking<T>(fn: () => T | Promise<T>): Promise<{ value: T; total: number; longest: number }> {
  let last = performance.now();
  let longest = 0;
  const beat = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const t = performance.now();
  last = t;
  try {
    const value = await fn();
    const total = performance.now() - t;
    // One more beat, so a stretch that ended with `fn` is counted.
    await new Promise((r) => setTimeout(r, 5));
    return { value, total, longest };
  } finally {
    clearInterval(beat);
  }
}
