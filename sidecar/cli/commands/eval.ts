// `engram eval retrieval`: Recall@k and nDCG@10 of the index on a BEIR-style set, overall and per category.
// `engram eval extraction`: precision and recall of an extractor on annotated sessions (eval-extraction.ts).
import fs from 'node:fs';
import path from 'node:path';
import { EngramError, errorMessage } from '../../../src/core/errors.js';
import { buildEvalIndex, evaluate, parseJsonl, parseQrels, type EvalDoc, type EvalQuery, type Metrics } from '../../../src/core/index/eval.js';
import { resolveModel } from '../../hosting/embedder.js';
import { engramHome } from '../../../src/core/state.js';
import type { CommandDefinition } from '../types.js';

function read(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new EngramError('not-found', `cannot read the ${what} file ${file}: ${errorMessage(e)}`);
  }
}

const row = (name: string, m: Metrics): string =>
  `${name.padEnd(12)} ${String(m.queries).padStart(5)}  ${m['R@1'].toFixed(3)}  ${m['R@5'].toFixed(3)}  ${m['R@10'].toFixed(3)}  ${m['R@20'].toFixed(3)}  ${m['nDCG@10'].toFixed(3)}`;

export const command: CommandDefinition = {
  usage: 'eval retrieval --corpus <jsonl> --queries <jsonl> --qrels <tsv> [--level turn|session] [--mode bm25|hybrid] [--json]\n  engram eval extraction --set <json> --transcripts <folder> [--backend <name>] [--verbose] [--json]',
  description:
    'retrieval: index a BEIR-style corpus (one {"_id","text"} per line) with the real index, run every query within its own group (the part of _id before "|"), and print Recall@1/5/10/20 and nDCG@10 overall and per category. extraction: run an extractor (rules by default, or --backend) over annotated sessions into a throwaway vault and print precision and recall per type, recall of the items stated outright, notes holding the agent\'s words and projects right, beside the previous run.',
  options: {
    corpus: { type: 'string', valueName: '<jsonl>', description: 'Documents: {"_id", "text", "title"?} per line' },
    queries: { type: 'string', valueName: '<jsonl>', description: 'Queries: {"_id", "text", "category"?} per line' },
    qrels: { type: 'string', valueName: '<tsv>', description: 'query-id <tab> corpus-id <tab> score, with a header line' },
    dir: { type: 'string', valueName: '<folder>', description: 'Take corpus_<level>.jsonl, queries_<level>.jsonl and qrels_<level>.tsv from this folder' },
    level: { type: 'string', valueName: 'turn|session', description: 'Which files --dir means (default turn); shown in the output' },
    mode: { type: 'string', valueName: 'bm25|hybrid', description: 'bm25 (default) or hybrid with the configured embedding model' },
    set: { type: 'string', valueName: '<json>', description: 'extraction: the annotated sessions (see bench/extraction-sets/)' },
    transcripts: { type: 'string', valueName: '<folder>', description: 'extraction: the folder the set\'s session files are relative to' },
    backend: { type: 'string', valueName: '<name>', description: 'extraction: the extractor to score (default rules; an LLM backend uses its configured model and is billed as usual)' },
    verbose: { type: 'boolean', description: 'extraction: list every wrong note and every missed stated item' },
  },
  details: 'Examples:\n  engram eval retrieval --dir ../shared/corpus/bench/locomo-dev --level turn\n  engram eval extraction --set bench/extraction-sets/corpus-transcripts.json --transcripts ../shared/corpus/transcripts --verbose',
  async run(ctx) {
    if (ctx.args[0] === 'extraction') return (await import('./eval-extraction.js')).evalExtraction(ctx);
    if (ctx.args[0] !== 'retrieval') throw new EngramError('usage', `unknown evaluation "${ctx.args[0] ?? ''}"`, 'use: engram eval retrieval --corpus … --queries … --qrels …, or engram eval extraction --set … --transcripts …');
    const level = String(ctx.options.level ?? 'turn');
    if (level !== 'turn' && level !== 'session') throw new EngramError('usage', '--level must be turn or session');
    const dir = ctx.options.dir as string | undefined;
    const file = (opt: string, name: string): string => {
      const v = ctx.options[opt] as string | undefined;
      if (v) return path.resolve(ctx.cwd, v);
      if (dir) return path.resolve(ctx.cwd, dir, name);
      throw new EngramError('usage', `--${opt} is required (or --dir)`, 'see engram eval --help');
    };
    const corpusFile = file('corpus', `corpus_${level}.jsonl`);
    const queriesFile = file('queries', `queries_${level}.jsonl`);
    const qrelsFile = file('qrels', `qrels_${level}.tsv`);
    const docs = parseJsonl<EvalDoc>(read(corpusFile, 'corpus'), corpusFile).filter((d) => typeof d._id === 'string' && typeof d.text === 'string');
    const queries = parseJsonl<EvalQuery>(read(queriesFile, 'queries'), queriesFile).filter((q) => typeof q._id === 'string' && typeof q.text === 'string');
    const qrels = parseQrels(read(qrelsFile, 'qrels'));
    if (docs.length === 0 || queries.length === 0 || qrels.size === 0) throw new EngramError('usage', 'the corpus, queries or qrels file holds nothing usable');
    const mode = String(ctx.options.mode ?? 'bm25');
    if (mode !== 'bm25' && mode !== 'hybrid') throw new EngramError('usage', '--mode must be bm25 or hybrid');
    const t0 = performance.now();
    const { index, idOf } = await buildEvalIndex(docs);
    if (mode === 'hybrid') {
      const model = await resolveModel(ctx.config(), engramHome(ctx.facts));
      if (!model.embedder) throw new EngramError('not-found', `hybrid evaluation needs an embedding model: ${model.problem ?? ''}`);
      index.setEmbedder(model.embedder);
      await index.embedPending();
    }
    const buildMs = performance.now() - t0;
    const t1 = performance.now();
    const result = await evaluate(index, idOf, queries, qrels, { mode: mode as 'bm25' | 'hybrid' });
    const queryMs = performance.now() - t1;
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ level, mode, documents: docs.length, ...result, buildMs: Math.round(buildMs), queryMs: Math.round(queryMs) }, null, 2));
      return 0;
    }
    ctx.stdout(`Retrieval, ${level} level, ${mode}: ${docs.length} documents, ${result.overall.queries} queries (index ${(buildMs / 1000).toFixed(1)} s, queries ${(queryMs / 1000).toFixed(1)} s)`);
    ctx.stdout(`${'category'.padEnd(12)} ${'n'.padStart(5)}  R@1    R@5    R@10   R@20   nDCG@10`);
    ctx.stdout(row('all', result.overall));
    for (const [k, m] of Object.entries(result.byCategory)) ctx.stdout(row(k, m));
    if (result.empty) ctx.stdout(`${result.empty} queries found nothing`);
    return 0;
  },
};
