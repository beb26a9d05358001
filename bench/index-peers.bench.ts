// Engram's index beside MiniSearch 7.2 and Orama 3.1.18 in one run on the 13,415-note vault (issue 21, speed): build
// time and heap, query p95 two ways (single shot: each query timed once per pass, as a user runs it, median of three
// passes; fastest of 5: each query's fastest of five interleaved runs, what is left when the shared machine's
// interference is taken out), saved size (Engram: the packed file a host writes), load time and the longest stretch a
// load blocks the event loop. Every engine gets the notes already read (no file reads timed) and Engram's stop words
// and English stemmer. `npm run bench -- index-peers`.
import fs from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { create, insert, save, search } from '@orama/orama';
import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { VaultIndex } from '../src/core/index/vault-index.js';
import { decodeSnapshot, unpackSnapshot } from '../src/core/index/snapshot.js';
import { TextIndex } from '../src/core/index/text-index.js';
import { STOP_WORDS } from '../src/core/index/tokenize.js';
import { MemoryVault } from '../src/core/ports/memory-vault.js';
import { yieldImmediate } from '../sidecar/hosting/yield.js';
import { blocking, gc, heapMB, ms, pct, readVaultTexts, s, zettelDir, zettelQueries } from './lib/index-corpus.js';

interface Engine {
  name: string;
  build(texts: Record<string, string>): Promise<unknown> | unknown;
  query(q: string): Promise<unknown> | unknown;
  save(): Promise<Uint8Array | string> | Uint8Array | string;
  /** Loads what `save` gave; yields (Engram) or one blocking task (the others). */
  load(saved: Uint8Array | string): Promise<unknown> | unknown;
}

/** Engram's stop words and English stemmer (Orama's Porter stemmer, as tokenize.ts uses it) on each word MiniSearch splits. */
const stem = (oramaTokenizer.createTokenizer({ language: 'english', stemming: true }) as unknown as { stemmer: (w: string) => string }).stemmer;
const processTerm = (term: string): string | null => {
  const t = term.toLowerCase();
  return STOP_WORDS.has(t) ? null : stem(t);
};
const title = (p: string): string => path.basename(p, '.md');

function engram(): Engine {
  let index: VaultIndex;
  let vault: MemoryVault;
  return {
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
      return i;
    },
  };
}

/** The same, each word stemmed once (a cache as Engram's tokenizer keeps): MiniSearch at its fastest. */
const stemCache = new Map<string, string | null>();
const processTermCached = (term: string): string | null => {
  let t = stemCache.get(term);
  if (t === undefined) stemCache.set(term, (t = processTerm(term)));
  return t;
};

function miniSearch(cached: boolean): Engine {
  const options = { fields: ['title', 'body'], storeFields: ['title'], processTerm: cached ? processTermCached : processTerm, searchOptions: { boost: { title: 3 } } };
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
    load: (json) => MiniSearch.loadJSON(json as string, options),
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
      (d as unknown as { data: unknown }).data = JSON.parse(json as string);
      return d;
    },
  };
}

interface Figures {
  build: number;
  /** CPU time of the build (user + system): less disturbed than wall time by other processes on a shared machine. */
  buildCpu: number;
  heap: number;
  p50: number;
  p95: number;
  /** p95 of each query's fastest of 5 interleaved runs. */
  fastP95: number;
  size: number;
  load: number;
  longest: number;
}

async function measure(e: Engine, texts: Record<string, string>, queries: string[]): Promise<Figures> {
  const base = heapMB();
  const t = performance.now();
  const cpu = process.cpuUsage();
  await e.build(texts);
  const build = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const buildCpu = (used.user + used.system) / 1000;
  const heap = heapMB() - base;
  for (const q of queries.slice(0, 20)) await e.query(q);
  const passes: number[][] = [];
  for (let pass = 0; pass < 5; pass++) {
    const out: number[] = [];
    for (const q of queries) {
      const t0 = performance.now();
      await e.query(q);
      out.push(performance.now() - t0);
    }
    passes.push(out);
  }
  const fastest = queries.map((_, i) => Math.min(...passes.map((p) => p[i])));
  const p95s = passes.slice(0, 3).map((p) => pct(p, 0.95)).sort((a, b) => a - b);
  const mid = passes.find((p) => pct(p, 0.95) === p95s[1])!;
  const saved = await e.save();
  const size = typeof saved === 'string' ? Buffer.byteLength(saved) : saved.byteLength;
  const loads: { total: number; longest: number }[] = [];
  for (let i = 0; i < 3; i++) {
    gc?.();
    loads.push(await blocking(() => e.load(saved)));
  }
  const median = (xs: number[]): number => pct(xs, 0.5);
  return { build, buildCpu, heap, p50: pct(mid, 0.5), p95: p95s[1], fastP95: pct(fastest, 0.95), size, load: median(loads.map((l) => l.total)), longest: median(loads.map((l) => l.longest)) };
}

/**
 * The longest step of Engram's snapshot decoding (loadSnapshotAsync yields between steps), each step's fastest of
 * five decodes: what its longest block is when other processes do not take the CPU away in the middle of a step.
 */
async function decodeSteps(packed: Uint8Array): Promise<{ steps: number; longest: number }> {
  const raw = await unpackSnapshot(packed);
  let best: number[] = [];
  for (let run = 0; run < 5; run++) {
    gc?.();
    const times: number[] = [];
    const steps = decodeSnapshot(raw, new TextIndex());
    for (;;) {
      const t = performance.now();
      const r = steps.next();
      times.push(performance.now() - t);
      if (r.done) break;
    }
    best = run === 0 ? times : best.map((b, i) => Math.min(b, times[i] ?? b));
  }
  return { steps: best.length, longest: Math.max(...best) };
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
  const rows: [string, Figures][] = [];
  const engines = [engram(), miniSearch(false), miniSearch(true), orama()];
  for (const e of engines) {
    const f = await measure(e, texts, queries);
    rows.push([e.name, f]);
    gc?.();
  }
  const [, ours] = rows[0];
  const packed = (await engines[0].save()) as Uint8Array;
  const d = await decodeSteps(packed);
  console.log(`Engram's snapshot decoding: ${d.steps} steps, the longest ${ms(d.longest)} (each step's fastest of 5); the heartbeat's longest gap below adds what the machine took away`);
  const x = (a: number, b: number): string => `×${(a / b).toFixed(2)}`;
  for (const [name, f] of rows) {
    const vs = name === 'Engram' ? '' : `\n    vs Engram: build ${x(f.build, ours.build)} (CPU ${x(f.buildCpu, ours.buildCpu)}), heap ${x(f.heap, ours.heap)}, p95 single ${x(f.p95, ours.p95)}, p95 fastest of 5 ${x(f.fastP95, ours.fastP95)}, saved ${x(f.size, ours.size)}, load ${x(f.load, ours.load)}`;
    console.log(`${name} build ${s(f.build)} (CPU ${s(f.buildCpu)}), heap ${f.heap.toFixed(0)} MB, query p50 ${ms(f.p50)} p95 ${ms(f.p95)} single shot, ${ms(f.fastP95)} fastest of 5; saved ${(f.size / 1e6).toFixed(1)} MB, load ${ms(f.load)} (longest block ${ms(f.longest)})${vs}`);
  }
}
