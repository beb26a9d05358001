// `npm run bench -- team-store`: the team store at scale (issue 26). A synthetic corpus built from the corpus vaults'
// own vocabulary (word frequencies as they are there), ingested into Debian's PostgreSQL (keyword search, the path a
// team without pgvector has) and into PGlite with pgvector (vectors: HNSW recall@10 against exact search). Queries are
// timed one at a time, as a person runs them (after 50 other queries), beside the local index (core's TextIndex) over
// the same notes.
// Size: ENGRAM_BENCH_TEAM_NOTES (default 50,000; the figure is 1,000,000, which takes a long while to ingest).
// ENGRAM_BENCH_TEAM_DB: a folder the PostgreSQL cluster is kept in; a later run with the same size reuses it (no ingest).
import pg from 'pg';
import { chunkBody } from '../src/core/index/chunk.js';
import { TextIndex } from '../src/core/index/text-index.js';
import { PgTeamStore } from '../sidecar/hosting/team/pg-store.js';
import { startPglite, startPostgres } from '../tests/helpers/team-db.js';
import { loadNotes, rng, syntheticNote, syntheticQueries, vocabulary } from './lib/team-corpus.js';

const N = Number(process.env.ENGRAM_BENCH_TEAM_NOTES ?? 50_000);
/** The local index is built over the first notes of the same corpus, at most this many (the comparison). */
const LOCAL = Math.min(N, 50_000);
const QUERIES = 200;

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
  const queries = syntheticQueries(vocab, QUERIES);
  console.log(`  ${N.toLocaleString('en')} synthetic notes from ${vocab.words.length.toLocaleString('en')} corpus words; ${QUERIES} queries of 2-5 words, each timed once`);

  // The local index over the first notes of the same corpus, for the ratio.
  const local = new TextIndex();
  let t0 = performance.now();
  for (let i = 0; i < LOCAL; i++) {
    const n = syntheticNote(vocab, i);
    local.add({ path: `n${i}`, title: n.title, folder: '', hash: '', mtime: 0, size: n.body.length, working: false, tags: [], time: 0, superseded: false, links: [], dupKey: String(i), beat: false }, chunkBody(n.body));
  }
  const localBuild = performance.now() - t0;
  const localTimes = queries.map((q) => {
    const s = performance.now();
    local.score(local.queryTerms(q), null, undefined, 10);
    return performance.now() - s;
  });
  console.log(`  local index, ${LOCAL.toLocaleString('en')} notes: build ${(localBuild / 1000).toFixed(1)} s; query p50 ${fmt(percentile(localTimes, 50))} ms, p95 ${fmt(percentile(localTimes, 95))} ms`);

  const keep = process.env.ENGRAM_BENCH_TEAM_DB;
  const postgres = await startPostgres(keep ? { keep } : {});
  if ('skip' in postgres) console.log(`  PostgreSQL: skipped, ${postgres.skip}`);
  else {
    const admin = new PgTeamStore({ url: postgres.url, password: postgres.adminPassword, statementTimeoutMs: 120_000 });
    // A member as a team has them: a login of its own, row-level security applied (the admin, a superuser, bypasses it).
    const member = new PgTeamStore({ url: postgres.url.replace('engram_admin@', 'ann@'), password: 'ann-pw', statementTimeoutMs: 120_000 });
    try {
      await admin.migrate();
      const client = new pg.Client({ host: '127.0.0.1', port: postgres.port, user: 'engram_admin', password: postgres.adminPassword, database: 'postgres' });
      await client.connect();
      // Ended whatever happens: a client left open when the server stops errors with no one listening.
      try {
        const held = postgres.reused ? Number((await client.query<{ n: string }>("select count(*) as n from engram_team_notes where team = 'bench'")).rows[0].n) : 0;
        if (held === N) console.log(`  PostgreSQL 15: the ${N.toLocaleString('en')} notes kept in ${keep} from an earlier run (no ingest timed)`);
        else {
          if (held) throw new Error(`${keep} holds ${held} notes, not ${N}: remove it or set ENGRAM_BENCH_TEAM_NOTES=${held}`);
          await client.query("create role ann login password 'ann-pw'; grant engram_team_member to ann; insert into engram_team_members values ('ann', 'bench', null)");
          const ingest = await loadNotes(client, vocab, { from: 0, to: N, team: 'bench', author: 'engram_admin' });
          t0 = performance.now();
          await client.query('analyze');
          const analyze = performance.now() - t0;
          console.log(`  PostgreSQL 15 ingest: ${(ingest / 1000).toFixed(1)} s (${Math.round(N / (ingest / 1000)).toLocaleString('en')} notes/s, GIN index kept up as rows arrive), then ANALYZE ${(analyze / 1000).toFixed(1)} s`);
        }
      } finally {
        await client.end();
      }
      for (const [who, store] of [['member', member], ['superuser', admin]] as const) {
        // Warmed with other queries first (a server that just started, or a kept cluster restarted, reads from disk).
        for (const q of syntheticQueries(vocab, 50, 27)) await store.search({ text: q, limit: 10 });
        const times: number[] = [];
        let answered = 0;
        for (const q of queries) {
          const s = performance.now();
          if ((await store.search({ text: q, limit: 10 })).length) answered++;
          times.push(performance.now() - s);
        }
        console.log(`  PostgreSQL 15 keyword search as ${who}: p50 ${fmt(percentile(times, 50))} ms, p95 ${fmt(percentile(times, 95))} ms (×${(percentile(times, 95) / percentile(localTimes, 95)).toFixed(1)} the local index's p95); ${answered}/${QUERIES} queries answered`);
      }
    } finally {
      await admin.close();
      await member.close();
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
      // The candidate list engram_team_nearest searches with (migrations.ts).
      await client.query('set hnsw.ef_search = 400');
      const approx = (await client.query<{ id: string }>('select id from engram_team_passages order by embedding <=> $1 limit 10', [lit])).rows.map((x) => x.id);
      hnswTimes.push(performance.now() - s);
      await client.query('begin');
      await client.query('set local enable_indexscan = off');
      const exact = (await client.query<{ id: string }>('select id from engram_team_passages order by embedding <=> $1 limit 10', [lit])).rows.map((x) => x.id);
      await client.query('commit');
      agree += approx.filter((x) => exact.includes(x)).length;
    }
    await client.end();
    console.log(`  PGlite + pgvector: ${V.toLocaleString('en')} random unit vectors of 384 dimensions ingested with the HNSW index in ${(ingest / 1000).toFixed(1)} s; HNSW recall@10 against exact ${(agree / (probes.length * 10)).toFixed(3)}; query p95 ${fmt(percentile(hnswTimes, 95))} ms`);
  } finally {
    await store.close();
    await lite.stop();
  }
}
