// The team store on PostgreSQL (≥ 15; pgvector where the team's server has it), through node-postgres. The same code
// runs against a team's server and, in the tests, against PGlite served over the wire protocol and Debian's Postgres.
// The password never comes from the configuration: from ENGRAM_TEAM_PASSWORD (or the URL the caller built from the
// OS keychain), so nothing secret is written to ~/.engram.
import type pg from 'pg';
import { EngramError, errorMessage } from '../../../src/core/errors.js';
import { fuseRanked } from '../../../src/core/team/recall.js';
import type { PromoteOutcome, TeamAuditEntry, TeamHit, TeamNote, TeamNoteInput, TeamPassage, TeamQuery, TeamStore } from '../../../src/core/team/store.js';
import { MIGRATIONS, SCHEMA_TABLE, TEXT_SEARCH, nearestFunction, vectorMigration } from './migrations.js';

export interface PgTeamStoreOptions {
  /** postgres://user@host:port/db (a password in it is used, never stored by Engram). */
  url: string;
  password?: string;
  /** Vector dimensions of the store's embedding column (the local model's). */
  dimensions?: number;
  /** Connection timeout: a store that does not answer fails fast; hooks never wait on it (they read the cache). */
  connectTimeoutMs?: number;
  /** Queries slower than this are cancelled by the server. */
  statementTimeoutMs?: number;
}

/** An advisory lock key for migrations: "engr" as an int. */
const MIGRATION_LOCK = 0x656e6772;

/** At most this many passages are ranked for one keyword query (the GIN index finds them; ranking reads each). */
const CANDIDATES = 600;

interface QueryWord {
  /** The stemmed word as a tsquery literal. */
  literal: string;
  /** The share of passages that hold it (the statistics' estimate), and how many passages there are. */
  share: number;
  rows: number;
}

/**
 * The rarest words of a query, as many as are expected to match about CANDIDATES passages together (one at least),
 * or the `count` rarest.
 */
export function rarest<T extends { share: number; rows: number }>(words: T[], count?: number): T[] {
  const sorted = [...words].sort((a, b) => a.share - b.share);
  if (count !== undefined) return sorted.slice(0, count);
  const out: T[] = [];
  let expected = 0;
  for (const w of sorted) {
    expected += w.share * w.rows;
    if (out.length && expected > CANDIDATES) break;
    out.push(w);
  }
  return out;
}


/** A connection failure in the words a user can act on. */
function connectionError(e: unknown, url: string): EngramError {
  const code = (e as { code?: string }).code;
  const where = redactUrl(url);
  if (code === '28P01' || code === '28000') return new EngramError('refused', `the team store at ${where} refused the login (${errorMessage(e)})`, 'check the user in the URL and ENGRAM_TEAM_PASSWORD');
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH') return new EngramError('io', `the team store at ${where} cannot be reached (${code})`, 'promotions wait in the queue and are sent when it answers');
  return new EngramError('io', `the team store at ${where} failed: ${errorMessage(e)}`);
}

/** The parts of a postgres:// URL (node-postgres lets a URL's missing password override the one given beside it). */
function connectionOf(url: string): pg.PoolConfig {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new EngramError('invalid-config', `the team store's URL is not a URL: ${JSON.stringify(redactUrl(url))}`, 'write it as postgres://user@host:5432/database');
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new EngramError('invalid-config', `the team store's URL must start with postgres:// (it is ${u.protocol}//…)`);
  const ssl = u.searchParams.get('sslmode');
  return {
    host: decodeURIComponent(u.hostname) || 'localhost',
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(ssl && ssl !== 'disable' ? { ssl: { rejectUnauthorized: ssl === 'verify-full' || ssl === 'verify-ca' } } : {}),
  };
}

function noteOfRow(n: Record<string, unknown>): TeamNote {
  return {
    id: String(n.id), team: String(n.team), project: String(n.project), title: String(n.title), body: String(n.body),
    frontmatter: (n.frontmatter ?? {}) as Record<string, unknown>, author: String(n.author), vault: String(n.vault),
    session: n.session ? String(n.session) : undefined, sourceHash: String(n.source_hash), sourcePath: String(n.source_path),
    promotedAt: new Date(n.promoted_at as Date).toISOString(), updatedAt: new Date(n.updated_at as Date).toISOString(),
    retractedAt: n.retracted_at ? new Date(n.retracted_at as Date).toISOString() : undefined,
  };
}

/** The URL without its password, for messages and status. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an invalid URL)';
  }
}

export class PgTeamStore implements TeamStore {
  /** Made at the first query: `pg` (a quarter of a second of a host's start) loads only for a team store in use. */
  private pool: Promise<pg.Pool> | undefined;
  private readonly dimensions: number;
  private vectors: boolean | undefined;
  private stats: { at: number; freq: Map<string, number>; floor: number; rows: number } | undefined;

  constructor(private readonly opts: PgTeamStoreOptions) {
    this.dimensions = opts.dimensions ?? 384;
  }

  private async openPool(): Promise<pg.Pool> {
    const { default: driver } = await import('pg');
    const pool = new driver.Pool({
      ...connectionOf(this.opts.url),
      ...(this.opts.password !== undefined ? { password: this.opts.password } : {}),
      max: 4,
      connectionTimeoutMillis: this.opts.connectTimeoutMs ?? 5000,
      statement_timeout: this.opts.statementTimeoutMs ?? 10_000,
      idleTimeoutMillis: 10_000,
    });
    // An idle client's error (the server restarted) must not crash the host: the next query reconnects.
    pool.on('error', () => undefined);
    return pool;
  }

  private async client(): Promise<pg.PoolClient> {
    try {
      return await (await (this.pool ??= this.openPool())).connect();
    } catch (e) {
      throw connectionError(e, this.opts.url);
    }
  }

  private async run<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.client();
    try {
      return await work(c);
    } catch (e) {
      if (e instanceof EngramError) throw e;
      const code = (e as { code?: string }).code;
      if (code === '42501') throw new EngramError('refused', `the team store refused: ${errorMessage(e)}`, 'ask the team\'s admin to add your database role to engram_team_members');
      throw connectionError(e, this.opts.url);
    } finally {
      c.release();
    }
  }

  private async tx<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.run(async (c) => {
      await c.query('begin');
      try {
        const out = await work(c);
        await c.query('commit');
        return out;
      } catch (e) {
        await c.query('rollback').catch(() => undefined);
        throw e;
      }
    });
  }

  async migrate(): Promise<number> {
    return this.run(async (c) => {
      await c.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        // A member's role may not create tables: touch the schema only when something is missing.
        if ((await c.query<{ t: string | null }>("select to_regclass('engram_team_schema') as t")).rows[0].t === null) await c.query(SCHEMA_TABLE);
        const done = new Set((await c.query<{ version: number }>('select version from engram_team_schema')).rows.map((r) => r.version));
        const newest = Math.max(0, ...done);
        const known = Math.max(...MIGRATIONS.map((m) => m.version));
        if (newest > known) throw new EngramError('format-version', `the team store's schema is version ${newest}; this Engram knows up to ${known}`, 'update Engram');
        for (const m of MIGRATIONS) {
          if (done.has(m.version)) continue;
          await c.query('begin');
          try {
            await c.query(m.sql);
            await c.query('insert into engram_team_schema (version, what) values ($1, $2)', [m.version, m.what]);
            await c.query('commit');
          } catch (e) {
            await c.query('rollback').catch(() => undefined);
            throw e;
          }
        }
        this.vectors = await this.tryVectors(c);
        return known;
      } finally {
        await c.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      }
    });
  }

  /** Adds the vector column where the extension exists; keyword search alone where it does not. */
  private async tryVectors(c: pg.PoolClient): Promise<boolean> {
    if ((await c.query("select 1 from information_schema.columns where table_name = 'engram_team_passages' and column_name = 'embedding'")).rowCount) {
      // A store given vectors before the search functions existed gets its vector search function now.
      if ((await c.query<{ f: string | null }>("select to_regproc('engram_team_nearest') as f")).rows[0].f !== null) return true;
      return c.query(nearestFunction()).then(() => true, () => false);
    }
    const available = (await c.query("select 1 from pg_available_extensions where name = 'vector'")).rowCount! > 0;
    if (!available) return false;
    await c.query('begin');
    try {
      await c.query(vectorMigration(this.dimensions));
      await c.query('commit');
      return true;
    } catch {
      await c.query('rollback').catch(() => undefined);
      return false;
    }
  }

  private async hasVectors(): Promise<boolean> {
    if (this.vectors !== undefined) return this.vectors;
    this.vectors = await this.run(async (c) => (await c.query("select 1 from information_schema.columns where table_name = 'engram_team_passages' and column_name = 'embedding'")).rowCount! > 0);
    return this.vectors;
  }

  async capabilities(): Promise<{ vectors: boolean; schemaVersion: number }> {
    const version = await this.run(async (c) => (await c.query<{ v: number | null }>('select max(version) as v from engram_team_schema')).rows[0]?.v ?? 0);
    return { vectors: await this.hasVectors(), schemaVersion: version };
  }

  async promote(note: TeamNoteInput, passages: TeamPassage[], vectors?: number[][]): Promise<PromoteOutcome> {
    const withVectors = vectors !== undefined && vectors.length === passages.length && (await this.hasVectors());
    return this.tx(async (c) => {
      // Another member's live note under the same title in the same project: never overwritten, shown as a conflict.
      const other = await c.query<{ id: string; author: string }>(
        'select id, author from engram_team_notes where team = $1 and project = $2 and lower(title) = lower($3) and author <> $4 and retracted_at is null limit 1',
        [note.team, note.project, note.title, note.author],
      );
      if (other.rowCount) return { status: 'conflict', id: other.rows[0].id, author: other.rows[0].author };
      const mine = await c.query<{ id: string; source_hash: string; retracted_at: Date | null }>(
        'select id, source_hash, retracted_at from engram_team_notes where team = $1 and author = $2 and vault = $3 and source_path = $4 for update',
        [note.team, note.author, note.vault, note.sourcePath],
      );
      let id: string;
      let status: PromoteOutcome['status'];
      if (mine.rowCount) {
        id = mine.rows[0].id;
        if (mine.rows[0].source_hash === note.sourceHash && mine.rows[0].retracted_at === null) return { status: 'unchanged', id };
        await c.query(
          'update engram_team_notes set project = $2, title = $3, body = $4, frontmatter = $5, session = $6, source_hash = $7, updated_at = now(), retracted_at = null where id = $1',
          [id, note.project, note.title, note.body, JSON.stringify(note.frontmatter), note.session ?? null, note.sourceHash],
        );
        await c.query('delete from engram_team_passages where note_id = $1', [id]);
        status = 'updated';
      } else {
        const r = await c.query<{ id: string }>(
          `insert into engram_team_notes (team, project, title, body, frontmatter, author, vault, session, source_path, source_hash)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id`,
          [note.team, note.project, note.title, note.body, JSON.stringify(note.frontmatter), note.author, note.vault, note.session ?? null, note.sourcePath, note.sourceHash],
        );
        id = r.rows[0].id;
        status = 'promoted';
      }
      for (const [i, p] of passages.entries()) {
        if (withVectors) {
          await c.query('insert into engram_team_passages (note_id, team, project, ord, title, heading, body, embedding) values ($1, $2, $3, $4, $5, $6, $7, $8)', [id, note.team, note.project, i, note.title, p.heading, p.text, `[${vectors[i].join(',')}]`]);
        } else {
          await c.query('insert into engram_team_passages (note_id, team, project, ord, title, heading, body) values ($1, $2, $3, $4, $5, $6, $7)', [id, note.team, note.project, i, note.title, p.heading, p.text]);
        }
      }
      await c.query('insert into engram_team_audit (actor, team, action, note_id, detail) values ($1, $2, $3, $4, $5)', [note.author, note.team, status === 'promoted' ? 'promote' : 'update', id, `${note.vault}:${note.sourcePath}${note.session ? ` session ${note.session}` : ''}`]);
      return { status, id };
    });
  }

  async retract(id: string, author: string): Promise<boolean> {
    return this.tx(async (c) => {
      const r = await c.query<{ team: string }>('update engram_team_notes set retracted_at = now(), updated_at = now() where id = $1 and author = $2 and retracted_at is null returning team', [id, author]);
      if (!r.rowCount) return false;
      // Its passages go (search reads only passages); the note stays, for its author and the audit log.
      await c.query('delete from engram_team_passages where note_id = $1', [id]);
      await c.query('insert into engram_team_audit (actor, team, action, note_id, detail) values ($1, $2, $3, $4, $5)', [author, r.rows[0].team, 'retract', id, '']);
      return true;
    });
  }

  async search(query: TeamQuery): Promise<TeamHit[]> {
    const limit = Math.max(1, Math.min(query.limit ?? 10, 50));
    const depth = limit * 5;
    const useVectors = query.vector !== undefined && (await this.hasVectors());
    return this.run(async (c) => {
      const words = await this.wordsOf(c, query.text);
      const byWords = async (q: string): Promise<{ note_id: string; pid: string }[]> =>
        (await c.query<{ note_id: string; pid: string }>('select note_id, pid from engram_team_search_words($1::tsquery, $2, $3, $4)', [q, query.project ?? null, depth, CANDIDATES])).rows;
      // All the words first (the GIN index reads the rarest word's list and skips through the others': few rows, even
      // at a million notes); when that finds too few, one of the two rarest words with any other (the index still reads
      // only those two lists); then any of the rarest words, as many as keep the rows to rank about CANDIDATES. A query
      // of common words ORed would make the index read every list whole and rank every note holding one.
      const tiers = words.length ? [words.map((w) => w.literal).join(' & ')] : [];
      if (words.length > 2) {
        const [a, b] = rarest(words, 2);
        const rest = (w: QueryWord): string => words.filter((x) => x !== w).map((x) => x.literal).join(' | ');
        tiers.push(`(${a.literal} & (${rest(a)})) | (${b.literal} & (${rest(b)}))`);
      }
      if (words.length > 1) tiers.push(rarest(words).map((w) => w.literal).join(' | '));
      let keyword: { note_id: string; pid: string }[] = [];
      for (const tier of tiers) {
        if (keyword.length >= limit) break;
        const seen = new Set(keyword.map((k) => k.note_id));
        keyword = [...keyword, ...(await byWords(tier)).filter((k) => !seen.has(k.note_id))];
      }
      const vector = useVectors
        ? (await c.query<{ note_id: string; pid: string }>('select note_id, pid from engram_team_nearest($1::vector, $2, $3)', [`[${query.vector!.join(',')}]`, query.project ?? null, depth])).rows
        : [];
      // Reciprocal-rank fusion of the two lists, a note once (its best passage of each list).
      const firstOfNote = (rows: { note_id: string; pid: string }[], why: string) => {
        const seen = new Set<string>();
        return rows.filter((r) => !seen.has(r.note_id) && seen.add(r.note_id)).map((r) => ({ key: r.note_id, pid: String(r.pid), why }));
      };
      const top = fuseRanked([firstOfNote(keyword, 'words'), firstOfNote(vector, 'meaning')]).slice(0, limit);
      if (!top.length) return [];
      const tsq = words.map((w) => w.literal).join(' | ');
      const rows = (
        await c.query<{ pid: string; note_id: string; team: string; project: string; title: string; author: string; heading: string; snippet: string; promoted_at: Date }>(
          `select p.id as pid, n.id as note_id, n.team, n.project, n.title, n.author, p.heading, n.promoted_at,
             ${tsq ? `ts_headline('${TEXT_SEARCH}', p.body, $2::tsquery, 'MaxFragments=1, MinWords=8, MaxWords=30, StartSel="", StopSel=""')` : 'left(p.body, 200)'} as snippet
           from engram_team_passages p join engram_team_notes n on n.id = p.note_id where p.id = any($1::bigint[])`,
          tsq ? [top.map((t) => t.item.pid), tsq] : [top.map((t) => t.item.pid)],
        )
      ).rows;
      const byPid = new Map(rows.map((r) => [String(r.pid), r]));
      return top.flatMap((t) => {
        const r = byPid.get(t.item.pid);
        if (!r) return [];
        const why = [...new Set(t.from.map((i) => (i === 0 ? 'words' : 'meaning')))];
        return [{ id: r.note_id, team: r.team, project: r.project, title: r.title, author: r.author, heading: r.heading, snippet: r.snippet.replace(/\s+/g, ' ').trim(), score: t.score, promotedAt: new Date(r.promoted_at).toISOString(), why }];
      });
    });
  }

  /**
   * The query's words as the keyword column holds them (stemmed, stop words out), each with the share of passages
   * that hold it: from the planner's statistics of the column (ANALYZE keeps its most common words), read again every
   * 10 minutes. A word the statistics do not list is rarer than any they do.
   */
  private async wordsOf(c: pg.PoolClient, text: string): Promise<QueryWord[]> {
    const lexemes = (await c.query<{ l: string[] }>(`select tsvector_to_array(to_tsvector('${TEXT_SEARCH}', $1)) as l`, [text.slice(0, 2000)])).rows[0].l.slice(0, 32);
    if (!lexemes.length) return [];
    if (!this.stats || Date.now() - this.stats.at > 600_000) {
      const r = (
        await c.query<{ elems: string[] | null; freqs: number[] | null; rows: number }>(
          `select s.most_common_elems::text::text[] as elems, s.most_common_elem_freqs as freqs, greatest(c.reltuples, 0)::float8 as rows
           from pg_class c left join pg_stats s on s.tablename = c.relname and s.attname = 'tsv' where c.relname = 'engram_team_passages' limit 1`,
        )
      ).rows[0];
      const freq = new Map<string, number>();
      const elems = r?.elems ?? [];
      elems.forEach((e, i) => freq.set(e, r!.freqs![i]));
      // The statistics end with the lowest frequency they list, then their null fraction: past that, not listed.
      const floor = elems.length ? Math.min(...(r!.freqs ?? []).slice(0, elems.length)) / 2 : 0;
      this.stats = { at: Date.now(), freq, floor, rows: Number(r?.rows ?? 0) };
    }
    const st = this.stats;
    return lexemes.map((l) => ({ literal: `'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`, share: st.freq.get(l) ?? st.floor, rows: st.rows }));
  }

  async get(id: string): Promise<TeamNote | undefined> {
    return this.run(async (c) => {
      const r = await c.query('select * from engram_team_notes where id = $1', [id]);
      const n = r.rows[0] as Record<string, unknown> | undefined;
      return n ? noteOfRow(n) : undefined;
    });
  }

  async listLive(team: string, limit: number): Promise<TeamNote[]> {
    return this.run(async (c) => (await c.query('select * from engram_team_notes where team = $1 and retracted_at is null order by updated_at desc limit $2', [team, limit])).rows.map((n) => noteOfRow(n as Record<string, unknown>)));
  }

  async audit(limit = 50): Promise<TeamAuditEntry[]> {
    return this.run(async (c) => {
      const r = await c.query<{ at: Date; actor: string; action: TeamAuditEntry['action']; note_id: string; detail: string }>('select at, actor, action, note_id, detail from engram_team_audit order by id desc limit $1', [limit]);
      return r.rows.map((x) => ({ at: new Date(x.at).toISOString(), actor: x.actor, action: x.action, noteId: String(x.note_id), detail: x.detail }));
    });
  }

  /** The database role this connection acts as: the author of what it promotes. */
  async whoami(): Promise<string> {
    return this.run(async (c) => (await c.query<{ u: string }>('select current_user as u')).rows[0].u);
  }

  async close(): Promise<void> {
    await this.pool?.then((p) => p.end()).catch(() => undefined);
  }
}
