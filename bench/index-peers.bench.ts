// Engram's index beside MiniSearch 7.2 and Orama 3.1.18 in one run on the 13,415-note vault (issue 21, speed): build
// time and heap (each engine built in turn, all kept), query times two ways (single shot: p50/p95/p99 of every timed
// run, each query run once per pass as a hook runs it; fastest of 5: the p95 of each query's fastest of five runs, what
// is left when the shared machine's interference is taken out; in both, every query runs on each engine in turn with a
// scavenge forced before each, so interference and garbage fall on each engine alike), the load average while
// timed, saved size (Engram: the packed file a host writes), load time, the longest stretch a load blocks the event
// loop, and the first query after a load (a host restart's first prompt). Every engine gets the notes already read
// (no file reads timed) and Engram's stop words and English stemmer. `npm run bench -- index-peers`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import { create, insert, load, save, search } from '@orama/orama';
import { VaultIndex } from '../src/core/index/vault-index.js';
import { decodeSnapshot, unpackSnapshot } from '../src/core/index/snapshot.js';
import { TextIndex } from '../src/core/index/text-index.js';
import { STOP_WORDS } from '../src/core/index/tokenize.js';
import { MemoryVault } from '../src/core/ports/memory-vault.js';
import { yieldImmediate } from '../sidecar/hosting/yield.js';
import { miniSearchOptions } from './lib/minisearch-peer.js';
import { blocking, gc, heapMB, ms, pct, readVaultTexts, s, zettelDir, zettelQueries } from './lib/index-corpus.js';

interface Engine {
  name: string;
  build(texts: Record<string, string>): Promise<unknown> | unknown;
  query(q: string): Promise<unknown> | unknown;
  save(): Promise<Uint8Array | string> | Uint8Array | string;
  /** Loads what `save` gave, and answers from it from then on; yields (Engram) or one blocking task (the others). */
  load(saved: Uint8Array | string): Promise<unknown> | unknown;
}

const title = (p: string): string => path.basename(p, '.md');

/**
 * Engram's search as a hook runs it: ranked hits whose excerpts are cut when read (a hook reads the few it injects);
 * `excerpts`: every hit's excerpt read too (what `engram search` prints), on the same index.
 */
function engram(): Engine & { excerpts: Engine } {
  let index: VaultIndex;
  let vault: MemoryVault;
  const unused = (): never => {
    throw new Error('the excerpts row shares the index of the Engram row');
  };
  return {
    excerpts: {
      name: 'Engram, every excerpt read',
      build: unused,
      query: async (q) => (await index.search(q, { mode: 'bm25', limit: 10 })).hits.map((h) => h.snippet),
      save: unused,
      load: unused,
    },
    name: 'Engram',
    async build(texts) {
      vault = new MemoryVault({ files: texts });
      // As a Node host runs it (sidecar/hosting/yield.ts).
      index = new VaultIndex({ vault, yieldNow: yieldImmediate });
      await index.build();
      return index;
    },
    query: (q) => index.search(q, { mode: 'bm25', limit: 10 }),
    save: () => index.snapshotAsync(),
    async load(bytes) {
      const i = new VaultIndex({ vault, yieldNow: yieldImmediate });
      await i.loadSnapshotAsync(bytes as Uint8Array);
      return (index = i);
    },
  };
}

function miniSearch(cached: boolean): Engine {
  const options = miniSearchOptions(cached);
  let ms: MiniSearch;
  return {
    name: cached ? 'MiniSearch (stems cached)' : 'MiniSearch',
    build(texts) {
      ms = new MiniSearch(options);
      for (const [p, text] of Object.entries(texts)) ms.add({ id: p, title: title(p), body: text });
      return ms;
    },
    query: (q) => ms.search(q).slice(0, 10),
    save: () => JSON.stringify(ms),
    load: (json) => (ms = MiniSearch.loadJSON(json as string, options)),
  };
}

function orama(): Engine {
  const schema = { title: 'string', body: 'string' } as const;
  const options = { schema, components: { tokenizer: { stemming: true, stopWords: [...STOP_WORDS] } }, sort: { enabled: false } };
  let db = create(options);
  return {
    name: 'Orama',
    build(texts) {
      db = create(options);
      for (const [p, text] of Object.entries(texts)) insert(db, { id: p, title: title(p), body: text });
      return db;
    },
    query: (q) => search(db, { term: q, properties: ['title', 'body'], boost: { title: 3 }, limit: 10 }),
    save: () => JSON.stringify(save(db)),
    load: (json) => {
      const d = create(options);
      load(d, JSON.parse(json as string) as Parameters<typeof load>[1]);
      return (db = d);
    },
  };
}

interface Figures {
  build: number;
  /** CPU time of the build (user + system): less disturbed than wall time by other processes on a shared machine. */
  buildCpu: number;
  heap: number;
  single: Single;
  /** p95 of each query's fastest of 5 interleaved runs. */
  fastP95: number;
  size: number;
  load: number;
  longest: number;
  /** The first query after a load (median of three loads): what the first prompt after a host restart waits. */
  firstQuery: number;
}

/** Single-shot figures of one engine: every timed run of every pass pooled, and the collections that fell within them. */
interface Single {
  p50: number;
  p95: number;
  p99: number;
  /** p95 of the first pass alone: each query new to the engine (caches of stems and term statistics cold). */
  firstP95: number;
  /** Garbage collections that started within this engine's timed queries, and their total pause. */
  gcs: number;
  gcMs: number;
  /** Heap a query leaves to collect (mean, KB): what sets how often a collection falls within some query. */
  allocKB: number;
  /** Share of the runs over 1 ms and over 5 ms: how often the machine took the CPU away mid-query. */
  over1: number;
  over5: number;
}

async function build(e: Engine, texts: Record<string, string>): Promise<Pick<Figures, 'build' | 'buildCpu' | 'heap'>> {
  const base = heapMB();
  const t = performance.now();
  const cpu = process.cpuUsage();
  await e.build(texts);
  const build = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { build, buildCpu: (used.user + used.system) / 1000, heap: heapMB() - base };
}

const PASSES = 10;
/** A scavenge of the young generation: what one engine's query left is not collected in another's timed query. */
const minorGc = (): void => (gc as ((o?: { type: 'minor' }) => void) | undefined)?.({ type: 'minor' });

/**
 * After 100 warm-up queries (note names: the code warm, the measured queries new), PASSES passes over the queries,
 * each query run once on every engine in turn (the order of the engines turning with each query and each pass), so
 * that what the shared machine takes away falls on all of them alike, with a scavenge forced before each timed run (one engine's garbage is not paid by the next) and a full collection before each pass.
 * Single shot = p50/p95/p99 of all the timed runs of an engine (PASSES × queries); fastest of 5 = the p95 of each
 * query's fastest run in the first five passes. The garbage collections that start within an engine's timed runs are
 * counted against it: what its own allocation costs.
 */
async function queryTimes(engines: Engine[], queries: string[], warmUp: string[]): Promise<Pick<Figures, 'single' | 'fastP95'>[]> {
  for (const e of engines) for (const q of warmUp) await e.query(q);
  const windows = engines.map(() => [] as [number, number][]);
  const alloc = engines.map(() => [] as number[]);
  const pauses: { start: number; duration: number }[] = [];
  const observer = new PerformanceObserver((list) => pauses.push(...list.getEntries().map((g) => ({ start: g.startTime, duration: g.duration }))));
  observer.observe({ entryTypes: ['gc'] });
  const passes = engines.map(() => [] as number[][]);
  for (let pass = 0; pass < PASSES; pass++) {
    gc?.();
    const out = engines.map(() => new Array<number>(queries.length));
    for (let i = 0; i < queries.length; i++) {
      for (let k = 0; k < engines.length; k++) {
        const e = (i + pass + k) % engines.length;
        minorGc();
        const h0 = process.memoryUsage().heapUsed;
        const t0 = performance.now();
        await engines[e].query(queries[i]);
        const t1 = performance.now();
        out[e][i] = t1 - t0;
        windows[e].push([t0, t1]);
        alloc[e].push(process.memoryUsage().heapUsed - h0);
      }
    }
    out.forEach((o, e) => passes[e].push(o));
  }
  // The observer hears of the last collections after a turn of the event loop.
  await new Promise((r) => setTimeout(r, 10));
  observer.disconnect();
  return passes.map((runs, e) => {
    const all = runs.flat();
    const fastest = queries.map((_, i) => Math.min(...runs.slice(0, 5).map((p) => p[i])));
    const within = pauses.filter((g) => windows[e].some(([a, b]) => g.start >= a && g.start < b));
    const allocKB = alloc[e].reduce((a, b) => a + Math.max(0, b), 0) / alloc[e].length / 1024;
    const single = { p50: pct(all, 0.5), p95: pct(all, 0.95), p99: pct(all, 0.99), firstP95: pct(runs[0], 0.95), over1: all.filter((t) => t > 1).length / all.length, over5: all.filter((t) => t > 5).length / all.length, gcs: within.length, gcMs: within.reduce((a, g) => a + g.duration, 0), allocKB };
    return { single, fastP95: pct(fastest, 0.95) };
  });
}

async function saveAndLoad(e: Engine, query: string): Promise<Pick<Figures, 'size' | 'load' | 'longest' | 'firstQuery'>> {
  const saved = await e.save();
  const size = typeof saved === 'string' ? Buffer.byteLength(saved) : saved.byteLength;
  const loads: { total: number; longest: number; first: number }[] = [];
  for (let i = 0; i < 3; i++) {
    gc?.();
    const l = await blocking(() => e.load(saved));
    const t = performance.now();
    await e.query(query);
    loads.push({ ...l, first: performance.now() - t });
  }
  const median = (xs: number[]): number => pct(xs, 0.5);
  return { size, load: median(loads.map((l) => l.total)), longest: median(loads.map((l) => l.longest)), firstQuery: median(loads.map((l) => l.first)) };
}

/**
 * The longest step of Engram's snapshot decoding (loadSnapshotAsync yields between steps), each step's fastest of
 * five decodes by wall time and by the process's CPU time (which other processes do not inflate, but which counts the
 * garbage collector's helper threads): what its longest block is when the shared machine does not take the CPU away.
 */
async function decodeSteps(packed: Uint8Array): Promise<{ steps: number; longest: number; longestCpu: number }> {
  const raw = await unpackSnapshot(packed);
  let best: number[] = [];
  let bestCpu: number[] = [];
  for (let run = 0; run < 5; run++) {
    gc?.();
    const times: number[] = [];
    const cpus: number[] = [];
    const steps = decodeSnapshot(raw, new TextIndex());
    for (;;) {
      const t = performance.now();
      const c = process.cpuUsage();
      const r = steps.next();
      const u = process.cpuUsage(c);
      times.push(performance.now() - t);
      cpus.push((u.user + u.system) / 1000);
      if (r.done) break;
    }
    best = run === 0 ? times : best.map((b, i) => Math.min(b, times[i] ?? b));
    bestCpu = run === 0 ? cpus : bestCpu.map((b, i) => Math.min(b, cpus[i] ?? b));
  }
  return { steps: best.length, longest: Math.max(...best), longestCpu: Math.max(...bestCpu) };
}

export async function run(): Promise<void> {
  if (!fs.existsSync(zettelDir)) {
    console.log(`  skipped: the 13,415-note vault is not at ${zettelDir} (../shared/corpus absent)`);
    return;
  }
  if (!gc) console.log('  (no --expose-gc: heap figures include garbage)');
  const texts = readVaultTexts(zettelDir);
  const queries = zettelQueries();
  console.log(`${Object.keys(texts).length} notes, ${queries.length} queries; notes already in memory; one process, engines in turn (machine shared: ratios, not absolutes)`);
  const engines = [engram(), miniSearch(false), miniSearch(true), orama()];
  const built = [];
  for (const e of engines) {
    built.push(await build(e, texts));
    gc?.();
  }
  const before = os.loadavg();
  const [ours0] = engines as [ReturnType<typeof engram>];
  // The code warmed up on other queries (note names), so that the first pass is each query new, not code run first.
  const names = Object.keys(texts).sort();
  const warmUp = Array.from({ length: 100 }, (_, i) => title(names[Math.floor((i * names.length) / 100)]));
  const times = await queryTimes([...engines, ours0.excerpts], queries, warmUp);
  const after = os.loadavg();
  const rows: [string, Figures][] = [];
  for (const [i, e] of engines.entries()) rows.push([e.name, { ...built[i], ...times[i], ...(await saveAndLoad(e, queries[0])) }]);
  const [, ours] = rows[0];
  const packed = (await engines[0].save()) as Uint8Array;
  const d = await decodeSteps(packed);
  console.log(`Engram's snapshot decoding: ${d.steps} steps, the longest ${ms(d.longest)} wall, ${ms(d.longestCpu)} CPU (each step's fastest of 5); the heartbeat's longest gap below adds what the machine took away`);
  const x = (a: number, b: number): string => `×${(a / b).toFixed(2)}`;
  const load = (l: number[]): string => l.map((v) => v.toFixed(1)).join(' ');
  console.log(`load average (1, 5, 15 min) ${load(before)} before the queries, ${load(after)} after; ${os.cpus().length} cores`);
  for (const [name, f] of rows) {
    const vs = name === 'Engram' ? '' : `\n    vs Engram: build ${x(f.build, ours.build)} (CPU ${x(f.buildCpu, ours.buildCpu)}), heap ${x(f.heap, ours.heap)}, saved ${x(f.size, ours.size)}, load ${x(f.load, ours.load)}, first query after load ${x(f.firstQuery, ours.firstQuery)}`;
    console.log(`${name} build ${s(f.build)} (CPU ${s(f.buildCpu)}), heap ${f.heap.toFixed(0)} MB; saved ${(f.size / 1e6).toFixed(1)} MB, load ${ms(f.load)} (longest block ${ms(f.longest)}), first query after it ${ms(f.firstQuery)}${vs}`);
  }
  console.log(`queries, ${PASSES} passes × ${queries.length} queries per engine, engines interleaved per query (single shot: every timed run; 1st: the first pass alone, each query new; fastest of 5: each query's fastest of its first 5 runs)`);
  console.log(`  ${'engine'.padEnd(26)} ${'p50'.padStart(6)} ${'p95'.padStart(6)} ${'p99'.padStart(6)}  ${'p95 ×'.padStart(6)} ${'p99 ×'.padStart(6)}  ${'1st p95'.padStart(7)} ${'×'.padStart(6)}  ${'fast p95'.padStart(8)} ${'×'.padStart(6)}  KB/query  >1 ms  >5 ms  GCs in its queries`);
  const excerpts: [string, Figures] = [ours0.excerpts.name, { ...ours, ...times[engines.length] }];
  for (const [name, f] of [...rows, excerpts]) {
    const g = f.single;
    const o = ours.single;
    const t = (v: number, w: number): string => v.toFixed(2).padStart(w);
    console.log(`  ${name.padEnd(26)} ${t(g.p50, 6)} ${t(g.p95, 6)} ${t(g.p99, 6)}  ${x(g.p95, o.p95).padStart(6)} ${x(g.p99, o.p99).padStart(6)}  ${t(g.firstP95, 7)} ${x(g.firstP95, o.firstP95).padStart(6)}  ${t(f.fastP95, 8)} ${x(f.fastP95, ours.fastP95).padStart(6)}  ${g.allocKB.toFixed(0).padStart(8)}  ${(g.over1 * 100).toFixed(1).padStart(4)}%  ${(g.over5 * 100).toFixed(1).padStart(4)}%  ${g.gcs} (${g.gcMs.toFixed(0)} ms)`);
  }
  console.log('  (times in ms; × is the engine against Engram, above 1 Engram is faster)');
}
