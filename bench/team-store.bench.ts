// `npm run bench -- team-store`: the team store at scale (issue 26). A synthetic corpus built from the corpus vaults'
// own vocabulary (word frequencies as they are there), ingested into Debian's PostgreSQL (keyword search, the path a
// team without pgvector has) and into PGlite with pgvector (vectors: HNSW recall@10 against exact search). Queries are
// timed one at a time, as a person runs them, beside the local index (core's TextIndex) over the same notes.
// Size: ENGRAM_BENCH_TEAM_NOTES (default 50,000; the figure is 1,000,000, which takes a long while to ingest).
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { chunkBody } from '../src/core/index/chunk.js';
import { TextIndex } from '../src/core/index/text-index.js';
import { PgTeamStore } from '../sidecar/hosting/team/pg-store.js';
import { corpusDir, hasCorpus } from '../tests/helpers/shared.js';
import { startPglite, startPostgres } from '../tests/helpers/team-db.js';

const N = Number(process.env.ENGRAM_BENCH_TEAM_NOTES ?? 50_000);
const QUERIES = 200;

/** A seeded generator, so two runs build the same corpus. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words of the corpus vaults with their counts, most frequent first. */
function vocabulary(): { words: string[]; cumulative: number[] } | null {
  const root = hasCorpus ? corpusDir : '';
  const vaults = ['kepano-obsidian', 'dwarvesf-brain'].map((v) => path.join(root, 'vaults', v)).filter((v) => root && fs.existsSync(v));
  if (!vaults.length) return null;
  const counts = new Map<string, number>();
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) for (const w of fs.readFileSync(p, 'utf8').toLowerCase().match(/[a-z]{3,15}/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  };
  for (const v of vaults) walk(v);
  const words = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  let sum = 0;
  return { words: words.map(([w]) => w), cumulative: words.map(([, c]) => (sum += c)) };
}

function sampler(v: { words: string[]; cumulative: number[] }, r: () => number): () => string {
  const total = v.cumulative[v.cumulative.length - 1];
  return () => {
    const x = r() * total;
    let lo = 0;
    let hi = v.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v.cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return v.words[lo];
  };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const fmt = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

export async function run(): Promise<void> {
  const vocab = vocabulary();
  if (!vocab) {
    console.log('  skipped: the corpus vaults (../shared/corpus) are absent');
    return;
  }
  const r = rng(26);
  const word = sampler(vocab, r);
  const notes = Array.from({ length: N }, (_, i) => ({
    title: Array.from({ length: 3 + Math.floor(r() * 3) }, word).join(' '),
    body: Array.from({ length: 40 + Math.floor(r() * 80) }, word).join(' '),
    project: `p${i % 50}`,
  }));
  // Questions of 2 to 5 words from the middle of the vocabulary (not stop words, not hapaxes), as people ask.
  const mid = vocab.words.slice(100, 5000);
  const queries = Array.from({ length: QUERIES }, () => Array.from({ length: 2 + Math.floor(r() * 4) }, () => mid[Math.floor(r() * mid.length)]).join(' '));
  console.log(`  ${N.toLocaleString('en')} synthetic notes from ${vocab.words.length.toLocaleString('en')} corpus words; ${QUERIES} queries of 2-5 words, each timed once`);

  // The local index over the same notes, for the ratio.
  const local = new TextIndex();
  let t0 = performance.now();
  notes.forEach((n, i) => local.add({ path: `n${i}`, title: n.title, folder: '', hash: '', mtime: 0, size: n.body.length, working: false, tags: [], time: 0, superseded: false, links: [], dupKey: String(i), beat: false }, chunkBody(n.body)), 0);
  const localBuild = performance.now() - t0;
  const localTimes = queries.map((q) => {
    const s = performance.now();
    local.score(local.queryTerms(q), null, undefined, 10);
    return performance.now() - s;
  });
  console.log(`  local index: build ${(localBuild / 1000).toFixed(1)} s; query p50 ${fmt(percentile(localTimes, 50))} ms, p95 ${fmt(percentile(localTimes, 95))} ms`);

  const postgres = await startPostgres();
  if ('skip' in postgres) console.log(`  PostgreSQL: skipped, ${postgres.skip}`);
  else {
    const store = new PgTeamStore({ url: postgres.url, password: postgres.adminPassword, statementTimeoutMs: 120_000 });
    try {
      await store.migrate();
      const client = new pg.Client({ host: '127.0.0.1', port: postgres.port, user: 'engram_admin', password: postgres.adminPassword, database: 'postgres' });
      await client.connect();
      await client.query("insert into engram_team_members values ('engram_admin', 'bench', null)");
      t0 = performance.now();
      for (let i = 0; i < notes.length; i += 2000) {
        const batch = notes.slice(i, i + 2000);
        await client.query(
          `with n as (
             insert into engram_team_notes (team, project, title, body, author, vault, source_path, source_hash)
             select 'bench', p, t, b, 'engram_admin', 'bench', 'n' || (ord + $4), 'h' from unnest($1::text[], $2::text[], $3::text[]) with ordinality as x(p, t, b, ord)
             returning id, project, title, body)
           insert into engram_team_passages (note_id, team, project, ord, title, heading, body) select id, 'bench', project, 0, title, '', body from n`,
          [batch.map((n) => n.project), batch.map((n) => n.title), batch.map((n) => n.body), i],
        );
      }
      await client.query('analyze');
      const ingest = performance.now() - t0;
      await client.end();
      const times: number[] = [];
      for (const q of queries) {
        const s = performance.now();
        await store.search({ text: q, limit: 10 });
        times.push(performance.now() - s);
      }
      console.log(`  PostgreSQL 15, keyword: ingest ${(ingest / 1000).toFixed(1)} s (${Math.round(N / (ingest / 1000)).toLocaleString('en')} notes/s); query p50 ${fmt(percentile(times, 50))} ms, p95 ${fmt(percentile(times, 95))} ms (×${(percentile(times, 95) / percentile(localTimes, 95)).toFixed(0)} the local index's p95)`);
    } finally {
      await store.close();
      await postgres.stop();
    }
  }

  // Vectors: HNSW against exact search on PGlite (pgvector), 384 dimensions, a smaller set (WASM is single-threaded).
  const V = Math.min(N, Number(process.env.ENGRAM_BENCH_TEAM_VECTORS ?? 5000));
  const lite = await startPglite();
  if ('skip' in lite) {
    console.log(`  PGlite: skipped, ${lite.skip}`);
    return;
  }
  const store = new PgTeamStore({ url: lite.url, statementTimeoutMs: 600_000 });
  try {
    await store.migrate();
    const client = new pg.Client({ connectionString: lite.url });
    await client.connect();
    const vec = (): number[] => {
      const v = Array.from({ length: 384 }, () => r() - 0.5);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const vectors = Array.from({ length: V }, vec);
    t0 = performance.now();
    await client.query("insert into engram_team_notes (id, team, title, body, vault, source_path, source_hash) values ('00000000-0000-0000-0000-000000000001', 'bench', 'v', 'v', 'bench', 'v', 'h')");
    for (let i = 0; i < V; i += 500) {
      const batch = vectors.slice(i, i + 500);
      await client.query(
        "insert into engram_team_passages (note_id, team, project, ord, title, heading, body, embedding) select '00000000-0000-0000-0000-000000000001', 'bench', '', o, 'v', '', 'v', e::vector from unnest($1::text[]) with ordinality as x(e, o)",
        [batch.map((v) => `[${v.join(',')}]`)],
      );
    }
    const ingest = performance.now() - t0;
    let agree = 0;
    const hnswTimes: number[] = [];
    const probes = Array.from({ length: 50 }, vec);
    for (const p of probes) {
      const lit = `[${p.join(',')}]`;
      const s = performance.now();
      await client.query('set hnsw.ef_search = 100');
      const approx = (await client.query<{ id: string }>('select id from engram_team_passages order by embedding <=> $1 limit 10', [lit])).rows.map((x) => x.id);
      hnswTimes.push(performance.now() - s);
      await client.query('begin');
      await client.query('set local enable_indexscan = off');
      const exact = (await client.query<{ id: string }>('select id from engram_team_passages order by embedding <=> $1 limit 10', [lit])).rows.map((x) => x.id);
      await client.query('commit');
      agree += approx.filter((x) => exact.includes(x)).length;
    }
    await client.end();
    console.log(`  PGlite + pgvector: ${V.toLocaleString('en')} vectors of 384 dimensions ingested with the HNSW index in ${(ingest / 1000).toFixed(1)} s; HNSW recall@10 against exact ${(agree / (probes.length * 10)).toFixed(3)}; query p95 ${fmt(percentile(hnswTimes, 95))} ms`);
  } finally {
    await store.close();
    await lite.stop();
  }
}
