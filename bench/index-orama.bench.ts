// Orama 3.1.18 beside Engram's own index on the same data: the measured reasons the text index is Engram's own
// (docs/recall.md, "Why Engram has its own index rather than Orama"). Build and query on the 13,415-note vault; LoCoMo retrieval quality scored by the same
// `evaluate` as Engram's; the persistence plugin's formats at 13k notes and what a restore keeps; snapshot load time,
// longest blocking stretch and heap against Engram's snapshot. `npm run bench -- index` runs it with index.bench.ts.
import fs from 'node:fs';
import path from 'node:path';
import { count, create, insert, load, save, search, type AnyOrama, type Results, type TypedDocument } from '@orama/orama';
import { index as oramaIndex, internalDocumentIDStore } from '@orama/orama/components';
import { persist, restore } from '@orama/plugin-data-persistence';
import type { VaultFile } from '../src/core/ports.js';
import { VaultIndex } from '../src/core/index/vault-index.js';
import { buildEvalIndex, evaluate } from '../src/core/index/eval.js';
import type { IndexSearchOptions } from '../src/core/index/search.js';
import { STOP_WORDS } from '../src/core/index/tokenize.js';
import { NodeVault } from '../sidecar/hosting/node-vault.js';
import { blocking, corpus, fmt, gc, heapMB, loadLocomo, ms, pct, s, zettelDir, zettelQueries } from './lib/index-corpus.js';

const noteSchema = { title: 'string', body: 'string' } as const;
/** How Orama would be set up for notes: stemming on, sorting off (with it on, every update re-sorts). */
const noteOptions = () => ({ schema: noteSchema, components: { tokenizer: { stemming: true } }, sort: { enabled: false } });
type NoteDb = ReturnType<typeof create<typeof noteSchema>>;
const noteQuery = (db: AnyOrama, q: string) => search(db, { term: q, properties: ['title', 'body'], boost: { title: 3 }, limit: 10 }) as Results<TypedDocument<NoteDb>>;
const top10 = (db: AnyOrama, q: string): string => noteQuery(db, q).hits.map((h) => h.id).join('\n');

async function buildBoth(queries: string[]): Promise<{ db: NoteDb; engram: VaultIndex }> {
  const vault = new NodeVault(zettelDir);
  const texts: VaultFile[] = [];
  for (const f of await vault.list()) texts.push(await vault.read(f.path));
  let base = heapMB();
  let t = performance.now();
  const db = create(noteOptions());
  for (const f of texts) insert(db, { id: f.path, title: path.basename(f.path, '.md'), body: f.text });
  const oBuild = performance.now() - t;
  const oHeap = heapMB() - base;
  const lat: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    noteQuery(db, q);
    lat.push(performance.now() - t0);
  }
  base = heapMB();
  t = performance.now();
  const engram = new VaultIndex({ vault });
  await engram.build();
  const eBuild = performance.now() - t;
  const eHeap = heapMB() - base;
  const eLat: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await engram.search(q, { mode: 'bm25', limit: 10 });
    eLat.push(performance.now() - t0);
  }
  console.log(`Orama (title + body, stemming, sort off; documents already read): build ${s(oBuild)}, heap ${oHeap.toFixed(0)} MB, query p50 ${ms(pct(lat, 0.5))} p95 ${ms(pct(lat, 0.95))}`);
  console.log(`Engram (chunks, 4 fields, reads included):                       build ${s(eBuild)}, heap ${eHeap.toFixed(0)} MB, query p50 ${ms(pct(eLat, 0.5))} p95 ${ms(pct(eLat, 0.95))} (${queries.length} queries, one pass each)`);
  return { db, engram };
}

/**
 * Orama's BM25 keeps, per document and token, `count / tokens.length`, and its tokenizer hands it each distinct token
 * once, so every term of a document gets the same tf, 1/(distinct tokens). This index component keeps the raw count
 * (the tokenizer then has to keep repeats; each distinct token is counted once for document frequency): Orama with
 * only that changed shows what the storage costs.
 */
function rawTfIndex(): ReturnType<typeof oramaIndex.createIndex> {
  const base = oramaIndex.createIndex();
  return {
    ...base,
    insertTokenScoreParameters(index, prop, id, tokens, token) {
      const internalId = internalDocumentIDStore.getInternalDocumentId(index.sharedInternalDocumentStore, id);
      const tfs = index.frequencies[prop][internalId]!;
      if (token in tfs) return;
      let n = 0;
      for (const t of tokens) if (t === token) n++;
      tfs[token] = n;
      index.tokenOccurrences[prop][token] = (index.tokenOccurrences[prop][token] ?? 0) + 1;
    },
  };
}

const turnSchema = { text: 'string', conv: 'enum' } as const;

/** An Orama database behind the one method `evaluate` calls, so Orama's nDCG comes from the same code as Engram's. */
function oramaRanker(db: AnyOrama): Pick<VaultIndex, 'search'> {
  return {
    search: (q: string, opts: IndexSearchOptions = {}) => {
      const r = search(db, { term: q, properties: ['text'], where: opts.folders ? { conv: { in: opts.folders } } : undefined, limit: opts.limit ?? 20 }) as Results<TypedDocument<AnyOrama>>;
      return Promise.resolve({ hits: r.hits.map((h) => ({ path: h.id })) } as unknown as Awaited<ReturnType<VaultIndex['search']>>);
    },
  };
}

async function locomo(): Promise<void> {
  console.log('\n-- LoCoMo dev, turn level: Orama vs Engram, nDCG@10 by src/core/index/eval.ts --');
  const { docs, qrels, splits } = loadLocomo();
  const shown = create({ schema: { text: 'string' } as const });
  insert(shown, { id: 'x', text: 'apple apple apple pear' });
  const stored = shown.data.index;
  console.log(`what Orama stores for "apple apple apple pear": tf ${JSON.stringify(stored.frequencies.text[1])}, field length ${stored.fieldLengths.text[1]}`);
  const fill = (db: AnyOrama): AnyOrama => {
    for (const d of docs) insert(db, { id: d._id, text: d.text, conv: d._id.split('|')[0] });
    return db;
  };
  // Folders in `evaluate` are the conversation ids (no slashes to replace in LoCoMo's ids).
  const stopWords = [...STOP_WORDS];
  // A ladder: Orama's defaults, then what its options allow (Engram's stop words, its own English stemmer), then the
  // scoring storage replaced (a custom index component).
  const variants: [string, AnyOrama][] = [
    ['Orama at its defaults (prefix match, no stop words, no stemming)', fill(create({ schema: turnSchema }))],
    ['Orama + Engram stop words', fill(create({ schema: turnSchema, components: { tokenizer: { stopWords } } }))],
    ['Orama + stop words + stemming', fill(create({ schema: turnSchema, components: { tokenizer: { stopWords, stemming: true } } }))],
    ['Orama + stop words + stemming + raw term counts (index component replaced)', fill(create({ schema: turnSchema, components: { tokenizer: { stopWords, stemming: true, allowDuplicates: true }, index: rawTfIndex() } }))],
  ];
  const plain = await buildEvalIndex(docs, { stemming: false, ranking: { bm25: { weights: { title: 0, summary: 0, tags: 0, body: 1 }, k1: 1.2, b: 0.75, restChunks: 0, restTerms: 0, titleCover: 0, whenGain: 0, follows: 0 } } });
  const ours = await buildEvalIndex(docs);
  for (const [name, qs] of Object.entries(splits)) {
    console.log(`${name}:`);
    console.log(`  Engram: ${fmt(await evaluate(ours.index, ours.idOf, qs, qrels))}`);
    console.log(`  plain BM25 (Engram's index as k1 1.2, b 0.75, stop words, no stemming, body only): ${fmt(await evaluate(plain.index, plain.idOf, qs, qrels))}`);
    for (const [label, db] of variants) console.log(`  ${label}: ${fmt(await evaluate(oramaRanker(db) as VaultIndex, new Map(), qs, qrels))}`);
  }
}

/** The plugin's four formats on the 13k database: size and time, or the error; then a restore of each. */
async function persistence(db: NoteDb, queries: string[]): Promise<void> {
  console.log(`\n-- @orama/plugin-data-persistence 3.1.18 on the ${count(db)}-note database --`);
  for (const format of ['json', 'dpack', 'binary', 'seqproto'] as const) {
    let data: string | Buffer | ArrayBuffer;
    let t = performance.now();
    try {
      data = await persist(db, format);
    } catch (e) {
      console.log(`${format.padEnd(8)} persist FAILS after ${s(performance.now() - t)}: ${(e as Error).message.slice(0, 160)}`);
      continue;
    }
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    const save = performance.now() - t;
    t = performance.now();
    try {
      const back = await restore(format, data);
      const n = count(back);
      console.log(`${format.padEnd(8)} ${(size / 1e6).toFixed(0)} MB, persisted in ${s(save)}, restored in ${s(performance.now() - t)} (${n} documents)`);
    } catch (e) {
      console.log(`${format.padEnd(8)} ${(size / 1e6).toFixed(0)} MB, persisted in ${s(save)}; restore FAILS after ${s(performance.now() - t)}: ${(e as Error).message.slice(0, 160)}`);
    }
  }
  // What a JSON restore keeps: the database it builds is `create({ schema: { __placeholder: 'string' } })`.
  const back = (await restore('json', (await persist(db, 'json')) as string)) as AnyOrama;
  const differ = queries.filter((q) => top10(back, q) !== top10(db, q)).length;
  console.log(`json restore: schema ${JSON.stringify(Object.keys(back.schema))} (saved: ${JSON.stringify(Object.keys(db.schema))}), stemmer ${(back.tokenizer as { stemmer?: unknown }).stemmer ? 'kept' : 'lost'}; ${differ}/${queries.length} queries' top 10 differ from the saved database`);
  const custom = create({ schema: { body: 'string' } as const, components: { tokenizer: { stemmer: (w: string) => (w === 'colour' ? 'color' : w) } } });
  insert(custom, { id: 'a', body: 'a color chart' });
  const customBack = (await restore('json', (await persist(custom, 'json')) as string)) as AnyOrama;
  const hits = (d: AnyOrama): number => (search(d, { term: 'colour' }) as Results<TypedDocument<AnyOrama>>).count;
  console.log(`a custom stemmer (colour -> color): "colour" finds ${hits(custom)} document before, ${hits(customBack)} after a json restore`);
}

interface LoadRun {
  total: number;
  longest: number;
  heap: number;
}
const median = (xs: number[]): number => pct(xs, 0.5);

async function loadRun(label: string, loadOnce: () => unknown): Promise<LoadRun> {
  const base = heapMB();
  const r = await blocking(loadOnce);
  const heap = heapMB() - base;
  if (!r.value) throw new Error(`${label}: nothing loaded`);
  return { total: r.total, longest: r.longest, heap };
}

/**
 * Three loads (the machine is shared: the best run is the least disturbed), each in its own frame (`loadRun`) so the
 * previous copy is garbage; heap is measured while the loaded copy is still referenced.
 */
async function loads(label: string, loadOnce: () => unknown): Promise<LoadRun> {
  const runs: LoadRun[] = [];
  for (let i = 0; i < 3; i++) runs.push(await loadRun(label, loadOnce));
  const m = { total: median(runs.map((r) => r.total)), longest: median(runs.map((r) => r.longest)), heap: median(runs.map((r) => r.heap)) };
  console.log(`${label}: ${ms(m.total)} (best ${ms(Math.min(...runs.map((r) => r.total)))}), longest block ${ms(m.longest)}, heap ${m.heap.toFixed(0)} MB`);
  return m;
}

async function loading(db: NoteDb, engram: VaultIndex): Promise<void> {
  console.log('\n-- snapshot load, 13k notes: Engram vs Orama (median of 3; file read excluded; heap of the loaded copy after a forced GC) --');
  const bytes = engram.snapshot();
  const json = (await persist(db, 'json')) as string;
  console.log(`sizes: Engram snapshot ${(bytes.length / 1e6).toFixed(1)} MB (BM25 only), Orama JSON ${(Buffer.byteLength(json) / 1e6).toFixed(1)} MB (documents included)`);
  const vault = new NodeVault(zettelDir);
  const e = await loads('Engram loadSnapshot (one task)', () => {
    const i = new VaultIndex({ vault });
    i.loadSnapshot(bytes);
    return i;
  });
  await loads('Engram loadSnapshotAsync (what open() uses: yields between sections)', async () => {
    const i = new VaultIndex({ vault });
    await i.loadSnapshotAsync(bytes);
    return i;
  });
  const o = await loads('Orama plugin restore(json)', () => restore('json', json));
  // `load` into a database made with the same options is the way that keeps the components (its docs).
  await loads('Orama core load() of the same JSON into create(same options)', () => {
    const d = create(noteOptions());
    load(d, JSON.parse(json) as ReturnType<typeof save>);
    return d;
  });
  console.log(`Orama restore vs Engram loadSnapshot: ${(o.total / e.total).toFixed(1)}x the time, ${(o.heap / e.heap).toFixed(1)}x the heap`);
}

export async function run(): Promise<void> {
  if (!fs.existsSync(corpus)) {
    console.log(`  skipped: ../shared/corpus not found at ${corpus}`);
    return;
  }
  if (!gc) console.log('  (no --expose-gc: heap figures include garbage)');
  // ENGRAM_BENCH_ORAMA: 0 skips this file; otherwise the parts to run (locomo, persist, load), e.g. `locomo,load`.
  const only = process.env.ENGRAM_BENCH_ORAMA;
  if (only === '0') return;
  if (!only || only.includes('locomo')) await locomo();
  if (only && !/zettel|persist|load/.test(only)) return;
  console.log(`\n-- ${zettelDir}: Orama 3.1.18 and Engram on the same notes --`);
  const queries = zettelQueries();
  const { db, engram } = await buildBoth(queries);
  if (!only || only.includes('persist')) await persistence(db, queries);
  if (!only || only.includes('load')) await loading(db, engram);
}
