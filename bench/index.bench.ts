// Index figures (issue 4): the 13,415-note Zettelkasten (build, snapshot save/load, heap, BM25 and hybrid latency),
// 50,000 generated notes, and LoCoMo retrieval quality (BM25 mode, tuned on conv-26/30/41/42, held out 43/44/47;
// plain BM25 and MiniSearch 7.2 with Engram's stop words and stemmer beside it).
// Heap = heapUsed after a forced GC + arrayBuffers. Hybrid latencies use random unit vectors of dimension 384 for every
// chunk and for the query (the query embedding is excluded; the tiny test model's embedding time is shown separately).
// Orama on the same data (why the text index is our own) is measured in index-orama.bench.ts, which
// `npm run bench -- index` runs too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Embedder, VaultFile, VaultFileInfo, VaultPort } from '../src/core/ports.js';
import { VaultIndex } from '../src/core/index/vault-index.js';
import MiniSearch from 'minisearch';
import { buildEvalIndex, evaluate, evaluateRanked, type EvalDoc, type EvalQuery, type Qrels } from '../src/core/index/eval.js';
import { STOP_WORDS } from '../src/core/index/tokenize.js';
import { rng } from '../src/core/rng.js';
import { NodeVault } from '../sidecar/hosting/node-vault.js';
import { MemoryVault } from '../src/core/ports/memory-vault.js';
import { loadEmbedder } from '../sidecar/hosting/embedder.js';
import { makeTinyModel } from '../tests/helpers/tiny-model.js';
import { miniSearchOptions } from './lib/minisearch-peer.js';
import { corpus, fmt, gc, heapMB, loadLocomo, ms, pct, s, zettelDir, zettelQueries } from './lib/index-corpus.js';

/** Random unit vectors: what hybrid latency is measured with (no model needed, same arithmetic as real vectors). */
class RandomEmbedder implements Embedder {
  readonly modelId = 'bench/random-unit';
  private readonly rand = rng(7);
  constructor(readonly dimension = 384) {}
  vector(): Float32Array {
    const v = new Float32Array(this.dimension);
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      v[i] = this.rand() * 2 - 1;
      n += v[i] * v[i];
    }
    n = Math.sqrt(n);
    for (let i = 0; i < v.length; i++) v[i] /= n;
    return v;
  }
  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map(() => this.vector()));
  }
}

/**
 * Three timed passes over the queries (after a warm-up). This machine is shared, so a pass can be stretched by other
 * processes: we print the median pass's p50/p95 and the best pass's p95 (interference only ever adds time).
 */
async function latencies(index: VaultIndex, queries: string[], opts: Parameters<VaultIndex['search']>[1], vec?: () => Float32Array): Promise<{ p50: number; p95: number; bestP95: number; all: number[] }> {
  for (const q of queries.slice(0, 20)) await index.search(q, { ...opts, queryVector: vec?.() });
  const passes: number[][] = [];
  for (let pass = 0; pass < 3; pass++) {
    const out: number[] = [];
    for (const q of queries) {
      const qv = vec?.();
      const t = performance.now();
      await index.search(q, { ...opts, queryVector: qv });
      out.push(performance.now() - t);
    }
    passes.push(out);
  }
  const p95s = passes.map((p) => pct(p, 0.95)).sort((a, b) => a - b);
  const mid = passes.find((p) => pct(p, 0.95) === p95s[1])!;
  return { p50: pct(mid, 0.5), p95: p95s[1], bestP95: p95s[0], all: mid };
}
const lat = (l: { p50: number; p95: number; bestP95: number }): string => `p50 ${ms(l.p50)}, p95 ${ms(l.p95)} (best pass p95 ${ms(l.bestP95)})`;

/** In its own frame, so the loaded copy is garbage when the caller measures heap again. */
async function measureLoad(vault: VaultPort, bytes: Uint8Array): Promise<void> {
  let t = performance.now();
  const loaded = new VaultIndex({ vault });
  loaded.loadSnapshot(bytes);
  const load = performance.now() - t;
  t = performance.now();
  const sync = await loaded.sync();
  console.log(`snapshot load: ${ms(load)} (target < 1.5 s); then start-up check of the vault (list + compare mtimes): ${ms(performance.now() - t)}, ${sync.indexed} re-indexed`);
}

async function zettel(): Promise<void> {
  const dir = zettelDir;
  const queries = zettelQueries();
  console.log(`\n-- ${dir} (${queries.length} queries) --`);
  const base = heapMB();
  const vault = new NodeVault(dir);
  let t = performance.now();
  const index = new VaultIndex({ vault });
  const report = await index.build();
  const build = performance.now() - t;
  const st = index.stats();
  console.log(`full text build: ${s(build)} for ${report.indexed} notes (${st.chunks} chunks, ${st.terms} terms; ${(report.indexed / (build / 1000)).toFixed(0)} notes/s; target < 10 s) skipped ${report.skipped.length}, bad frontmatter ${report.problems.length}`);
  const heap = heapMB();
  console.log(`heap: ${(heap - base).toFixed(0)} MB for the index (${heap.toFixed(0)} MB in the process; target < 250 MB)`);
  const bm = await latencies(index, queries, { mode: 'bm25', limit: 10 });
  console.log(`BM25 query (200 keyword queries, top 10): ${lat(bm)}, max ${ms(Math.max(...bm.all))} (target p95 < 3 ms)`);
  t = performance.now();
  let bytes = index.snapshot();
  console.log(`snapshot (BM25 only): ${(bytes.length / 1e6).toFixed(1)} MB, encoded in ${ms(performance.now() - t)}`);
  await measureLoad(vault, bytes);
  const upd: number[] = [];
  const files = (await vault.list()).slice(0, 50);
  for (let i = 0; i < files.length; i++) {
    const f = await vault.read(files[i].path);
    const t0 = performance.now();
    index.updateText(f.path, `${f.text}\nzqxupdate${i}`, f.mtime + 1, f.size + 12);
    const hit = (await index.search(`zqxupdate${i}`, { mode: 'bm25', limit: 1 })).hits[0]?.path === f.path;
    upd.push(hit ? performance.now() - t0 : Infinity);
  }
  console.log(`update(note) then search finds it: p50 ${ms(pct(upd, 0.5))}, max ${ms(Math.max(...upd))} over 50 saves (target < 50 ms)`);

  // Hybrid: random unit vectors of dimension 384 for every chunk.
  const emb = new RandomEmbedder();
  index.setEmbedder(emb);
  t = performance.now();
  await index.embedPending();
  console.log(`vectors: ${index.stats().vectors} chunks x 384 stored in ${ms(performance.now() - t)} (random unit vectors)`);
  const hy = await latencies(index, queries, { mode: 'hybrid', limit: 10 }, () => emb.vector());
  console.log(`hybrid query (BM25 + exact cosine over all chunks + RRF + priors; query embedding excluded): ${lat(hy)} (targets p50 12, p95 25 ms)`);
  const hyf = await latencies(index, queries, { mode: 'hybrid', limit: 10, folders: ['Math'] }, () => emb.vector());
  console.log(`hybrid with a folder filter (Math/, vectors prefiltered): ${lat(hyf)}`);
  console.log(`heap with vectors: ${(heapMB() - base).toFixed(0)} MB`);
  t = performance.now();
  bytes = index.snapshot();
  const enc = performance.now() - t;
  t = performance.now();
  new VaultIndex({ vault, embedder: emb }).loadSnapshot(bytes);
  console.log(`snapshot with vectors: ${(bytes.length / 1e6).toFixed(1)} MB, encoded in ${ms(enc)}, loaded in ${ms(performance.now() - t)}`);
  const tinyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
  try {
    const tiny = await loadEmbedder(makeTinyModel(path.join(tinyDir, 'tiny')).dir);
    const qe: number[] = [];
    for (const q of queries) {
      const t0 = performance.now();
      await tiny.embed([q]);
      qe.push(performance.now() - t0);
    }
    console.log(`query embedding with the tiny test model (transformers.js, onnxruntime-node): p50 ${ms(pct(qe, 0.5))}, p95 ${ms(pct(qe, 0.95))} (a real MiniLM/bge-micro costs more)`);
  } finally {
    fs.rmSync(tinyDir, { recursive: true, force: true });
  }
}

/** A vault of generated notes: Zipf-distributed pseudo-words, produced on read (nothing stored). */
class GeneratedVault implements VaultPort {
  readonly words: string[];
  constructor(readonly n: number) {
    const r = rng(1);
    const syl = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'ber', 'dan', 'fel', 'gor', 'hum'];
    this.words = Array.from({ length: 20_000 }, (_, i) => {
      let w = '';
      for (let k = 0; k < 2 + (i % 3); k++) w += syl[Math.floor(r() * syl.length)];
      return `${w}${i}`;
    });
  }
  private zipf(r: () => number): string {
    return this.words[Math.min(this.words.length - 1, Math.floor(Math.pow(this.words.length, r()) - 1))];
  }
  text(i: number): string {
    const r = rng(1000 + i);
    const title = [this.zipf(r), this.zipf(r), this.zipf(r)].join(' ');
    const words: string[] = [];
    const len = 150 + Math.floor(r() * 250);
    for (let k = 0; k < len; k++) words.push(this.zipf(r));
    return `---\ntype: ${['decision', 'insight', 'problem', 'reference'][i % 4]}\nproject: p${i % 20}\ntags: [${this.zipf(r)}, ${this.zipf(r)}]\ncreated: 2026-0${1 + (i % 9)}-1${i % 10}T10:00:00Z\n---\n# ${title}\n\n${words.join(' ')}\n`;
  }
  list(): Promise<VaultFileInfo[]> {
    return Promise.resolve(Array.from({ length: this.n }, (_, i) => ({ path: `Gen/${Math.floor(i / 1000)}/Note ${i}.md`, mtime: 1, size: 1 })));
  }
  listConflictCopies(): Promise<string[]> {
    return Promise.resolve([]);
  }
  read(p: string): Promise<VaultFile> {
    const i = Number(/Note (\d+)\.md$/.exec(p)![1]);
    return Promise.resolve({ path: p, mtime: 1, size: 1, text: this.text(i) });
  }
  exists(): Promise<boolean> {
    return Promise.resolve(true);
  }
  create(): Promise<VaultFileInfo> {
    return Promise.reject(new Error('read-only'));
  }
  writeIfUnchanged(): Promise<VaultFileInfo> {
    return Promise.reject(new Error('read-only'));
  }
  append(): Promise<void> {
    return Promise.reject(new Error('read-only'));
  }
  trash(): Promise<void> {
    return Promise.reject(new Error('read-only'));
  }
  rename(): Promise<void> {
    return Promise.reject(new Error('read-only'));
  }
  watch(): () => void {
    return () => undefined;
  }
}

async function generated(n = 50_000): Promise<void> {
  console.log(`\n-- ${n.toLocaleString('en')} generated notes (Zipf pseudo-words, 150-400 words each, 384-d random unit vectors) --`);
  const vault = new GeneratedVault(n);
  const base = heapMB();
  const emb = new RandomEmbedder();
  let t = performance.now();
  const index = new VaultIndex({ vault, embedder: emb });
  const report = await index.build();
  console.log(`build with vectors: ${s(performance.now() - t)} (${report.indexed} notes, ${report.skipped.length} errors)`);
  console.log(`heap: ${(heapMB() - base).toFixed(0)} MB (target < 600 MB)`);
  const r = rng(3);
  const queries = Array.from({ length: 200 }, () => {
    const w = () => vault.words[50 + Math.floor(r() * 3000)];
    return r() < 0.5 ? w() : `${w()} ${w()}`;
  });
  const bm = await latencies(index, queries, { mode: 'bm25', limit: 10 });
  const hy = await latencies(index, queries, { mode: 'hybrid', limit: 10 }, () => emb.vector());
  console.log(`BM25 ${lat(bm)}; hybrid ${lat(hy)} (target hybrid p95 < 60 ms)`);
  t = performance.now();
  const bytes = index.snapshot();
  const enc = performance.now() - t;
  t = performance.now();
  new VaultIndex({ vault, embedder: emb }).loadSnapshot(bytes);
  console.log(`snapshot: ${(bytes.length / 1e6).toFixed(0)} MB, encoded in ${s(enc)}, loaded in ${s(performance.now() - t)} (target < 5 s)`);
}

/** MiniSearch over the same turns (Engram's stop words and stemmer, the turn's own title if any), each question within its conversation. */
function miniSearchLocomo(docs: EvalDoc[], qrels: Qrels): (qs: EvalQuery[]) => ReturnType<typeof evaluateRanked> {
  const mini = new MiniSearch(miniSearchOptions());
  mini.addAll(docs.map((d) => ({ id: d._id, title: d.title ?? '', body: d.text })));
  return (qs) => evaluateRanked(qs, qrels, (q, g) => mini.search(q.text, { filter: (r) => String(r.id).startsWith(`${g}|`) }).slice(0, 20).map((r) => String(r.id)));
}

async function locomo(): Promise<void> {
  console.log(`\n-- LoCoMo dev, turn level, BM25 mode (no model) --`);
  const { docs, qrels, splits: split } = loadLocomo();
  const queries = split['all seven'];
  // Plain BM25 as the issue defines it: k1 1.2, b 0.75, stop words, no stemming, one field.
  const plain = await buildEvalIndex(docs, { stemming: false, ranking: { bm25: { weights: { title: 0, summary: 0, tags: 0, body: 1 }, k1: 1.2, b: 0.75, restChunks: 0, restTerms: 0, titleCover: 0, whenGain: 0, follows: 0 } } });
  const ours = await buildEvalIndex(docs);
  const mini = miniSearchLocomo(docs, qrels);
  const names: Record<string, string> = { '1': 'multi-hop', '2': 'temporal', '3': 'open-domain', '4': 'single-hop' };
  const vs = (a: number, b: number): string => `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(3)}`;
  for (const [name, qs] of Object.entries(split)) {
    const p = await evaluate(plain.index, plain.idOf, qs, qrels);
    const o = await evaluate(ours.index, ours.idOf, qs, qrels);
    const m = await mini(qs);
    console.log(`${name}: Engram ${fmt(o)}`);
    console.log(`${' '.repeat(name.length)}  plain BM25 (our re-run) ${fmt(p)}`);
    console.log(`${' '.repeat(name.length)}  MiniSearch 7.2 (Engram's stop words and stemmer) ${fmt(m)}`);
    for (const [c, e] of Object.entries(o.byCategory)) {
      const [en, b, ms] = [e['nDCG@10'], p.byCategory[c]['nDCG@10'], m.byCategory[c]['nDCG@10']];
      console.log(`    ${(names[c] ?? c).padEnd(11)} nDCG@10 ${en.toFixed(3)} vs plain ${b.toFixed(3)} (${vs(en, b)}), vs MiniSearch ${ms.toFixed(3)} (${vs(en, ms)}), n=${e.queries}`);
    }
  }
  // What an all-terms-must-match query (SQLite FTS5's default, Cyberbrain) returns for these questions.
  const byConv = new Map<string, Set<string>[]>();
  for (const doc of docs) {
    const c = doc._id.split('|')[0];
    const list = byConv.get(c) ?? [];
    list.push(new Set(doc.text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)));
    byConv.set(c, list);
  }
  let emptyAll = 0;
  let emptyContent = 0;
  for (const q of queries) {
    const sets = byConv.get(q._id.split('|')[0]) ?? [];
    const words = q.text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (!sets.some((s) => words.every((w) => s.has(w)))) emptyAll++;
    const content = words.filter((w) => !STOP_WORDS.has(w));
    if (!sets.some((s) => content.every((w) => s.has(w)))) emptyContent++;
  }
  console.log(`all-terms-must-match (FTS5-style AND of every question word): no result for ${emptyAll}/${queries.length} questions (${((100 * emptyAll) / queries.length).toFixed(1)}%); even without stop words: ${((100 * emptyContent) / queries.length).toFixed(1)}%. Engram's BM25 returned results for all of them.`);
}

/**
 * A check, not a speed figure: the 13,415-note vault in memory, 1,000 random edits (rewrite, delete, rename, new note)
 * followed by the index as a host follows them, then its snapshot loaded into a new index must answer every query
 * exactly as a fresh build of the edited vault does (BM25, scores and why included; equal scores ordered by path).
 */
async function snapshotAfterEdits(): Promise<void> {
  console.log('\n-- snapshot after 1,000 random edits vs a fresh build (13,415-note vault, BM25) --');
  const dir = zettelDir;
  const files: Record<string, string> = {};
  for (const f of await new NodeVault(dir).list()) files[f.path] = fs.readFileSync(path.join(dir, f.path), 'utf8');
  const vault = new MemoryVault({ files });
  const index = new VaultIndex({ vault });
  await index.build();
  const r = rng(1000);
  const paths = Object.keys(files);
  const pick = (): string => paths[Math.floor(r() * paths.length)];
  const kinds = { rewrite: 0, delete: 0, rename: 0, add: 0 };
  for (let i = 0; i < 1000; i++) {
    const x = r();
    let p = pick();
    while (!(await vault.exists(p))) p = pick();
    if (x < 0.4) {
      const other = (await vault.read(pick()).catch(() => ({ text: 'empty' }))).text;
      vault.externalWrite(p, `${other.slice(0, 400)}\n\nEdited ${i}: snapshot check edit${i}.\n`);
      await index.update(p);
      kinds.rewrite++;
    } else if (x < 0.6) {
      vault.externalDelete(p);
      index.remove(p);
      kinds.delete++;
    } else if (x < 0.8) {
      const to = `Renamed/${i} ${p.slice(p.lastIndexOf('/') + 1)}`;
      await vault.rename(p, to);
      await index.rename(p, to);
      paths.push(to);
      kinds.rename++;
    } else {
      const to = `New/Added ${i}.md`;
      vault.externalWrite(to, `# Added ${i}\nA new note about ${(await vault.read(pick()).catch(() => ({ text: 'nothing' }))).text.slice(0, 200)}`);
      await index.update(to);
      paths.push(to);
      kinds.add++;
    }
  }
  let t = performance.now();
  const bytes = index.snapshot();
  const saveMs = performance.now() - t;
  t = performance.now();
  const loaded = new VaultIndex({ vault });
  const report = await loaded.open(bytes);
  const loadMs = performance.now() - t;
  const fresh = new VaultIndex({ vault });
  await fresh.build();
  const queries = [...zettelQueries(), 'edit17', 'snapshot check', 'Added 400'];
  // Scores may differ in the last bits (a note's other chunks are summed in chunk order, which a fresh build numbers
  // differently), so they are compared to 1e-5, and notes tied with the last one kept at the cut-off are left out.
  const answer = async (i: VaultIndex, q: string): Promise<Map<string, { score: number; rest: string }>> => {
    const hits = (await i.search(q, { mode: 'bm25', limit: 1000 })).hits;
    const floor = hits.length === 1000 ? hits[hits.length - 1].score + 1e-5 : -Infinity;
    return new Map(hits.filter((h) => h.score > floor).map((h) => [h.path, { score: h.score, rest: `${h.why.join('; ')} | ${h.snippet}` }]));
  };
  let differ = 0;
  for (const q of queries) {
    const a = await answer(loaded, q);
    const b = await answer(fresh, q);
    const bad = [...a.keys(), ...b.keys()].filter((p) => {
      const x = a.get(p);
      const y = b.get(p);
      return !x || !y || Math.abs(x.score - y.score) > 1e-5 || x.rest !== y.rest;
    });
    if (bad.length) {
      differ++;
      if (process.env.ENGRAM_BENCH_DEBUG) console.log(`DIFF ${q}:`, bad.slice(0, 3).map((p) => [p, a.get(p), b.get(p)]));
    }
  }
  const same = JSON.stringify(loaded.stats()) === JSON.stringify(fresh.stats());
  console.log(
    `edits: ${kinds.rewrite} rewrites, ${kinds.delete} deletes, ${kinds.rename} renames, ${kinds.add} new; snapshot saved in ${ms(saveMs)}, loaded in ${ms(loadMs)} (${report.loaded ? 'used' : `not used: ${report.reason}`}, ${report.indexed} re-read)`,
  );
  console.log(`loaded snapshot vs fresh build: ${queries.length - differ}/${queries.length} queries answered identically; stats ${same ? 'equal' : 'differ'} => ${differ === 0 && same && report.loaded && report.indexed === 0 ? 'PASS' : 'FAIL'}`);
  if (differ > 0 || !same) process.exitCode = 1;
}

export async function run(): Promise<void> {
  if (!fs.existsSync(corpus)) {
    console.log(`  skipped: ../shared/corpus not found at ${corpus}`);
    return;
  }
  if (!gc) console.log('  (no --expose-gc: heap figures include garbage)');
  console.log(`  load average at start: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (other processes share these ${os.cpus().length} cores)`);
  const only = process.env.ENGRAM_BENCH_INDEX;
  if (!only || only.includes('zettel')) await zettel();
  if (!only || only.includes('gen')) await generated();
  if (!only || only.includes('locomo')) await locomo();
  if (!only || only.includes('snapshot')) await snapshotAfterEdits();
}
