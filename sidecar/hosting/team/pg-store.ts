// The team store on PostgreSQL (≥ 15; pgvector where the team's server has it), through node-postgres. The same code
// runs against a team's server and, in the tests, against PGlite served over the wire protocol and Debian's Postgres.
// The password never comes from the configuration: from ENGRAM_TEAM_PASSWORD (or the URL the caller built from the
// OS keychain), so nothing secret is written to ~/.engram.
import type pg from 'pg';
import { EngramError, errorMessage } from '../../../src/core/errors.js';
import type { PromoteOutcome, TeamAuditEntry, TeamHit, TeamNote, TeamNoteInput, TeamPassage, TeamQuery, TeamStore } from '../../../src/core/team/store.js';
import { MIGRATIONS, SCHEMA_TABLE, nearestFunction, vectorMigration } from './migrations.js';

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

const quiet = (): void => undefined;

export class PgTeamStore implements TeamStore {
  /** Made at the first query: `pg` (a quarter of a second of a host's start) loads only for a team store in use. */
  private pool: Promise<pg.Pool> | undefined;
  private readonly dimensions: number;
  private vectors: boolean | undefined;

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
    // A connection cut while in use (the server killed, the network gone) fails the query under way, and the client
    // emits 'error' too: the pool listens only while it is idle, so it is heard here, or it would end the host.
    c.on('error', quiet);
    try {
      return await work(c);
    } catch (e) {
      if (e instanceof EngramError) throw e;
      const code = (e as { code?: string }).code;
      if (code === '42501') throw new EngramError('refused', `the team store refused: ${errorMessage(e)}`, 'ask the team\'s admin to add your database role to engram_team_members');
      throw connectionError(e, this.opts.url);
    } finally {
      c.off('error', quiet);
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
    const vector = query.vector !== undefined && (await this.hasVectors()) ? `[${query.vector.join(',')}]` : null;
    return this.run(async (c) => {
      // One round trip: the words, the tiers of words, the vectors, their fusion and the snippets are all worked out on
      // the server (engram_team_search, migration 3), whose statements PostgreSQL keeps parsed per session. The call
      // itself is not a named prepared statement: a pooler in front of the server (PgBouncer's transaction mode), or a
      // server with one session behind every connection (PGlite), would find the name taken or gone.
      const rows = (
        await c.query<{ note_id: string; score: number; why: string[]; team: string; project: string; title: string; author: string; heading: string; snippet: string; promoted_at: Date }>(
          'select note_id, score, why, team, project, title, author, heading, snippet, promoted_at from engram_team_search($1, $2, $3, $4, $5)',
          [query.text.slice(0, 2000), vector, query.project ?? null, limit, CANDIDATES],
        )
      ).rows;
      return rows.map((r) => ({
        id: r.note_id, team: r.team, project: r.project, title: r.title, author: r.author, heading: r.heading,
        snippet: r.snippet.replace(/\s+/g, ' ').trim(), score: Number(r.score), promotedAt: new Date(r.promoted_at).toISOString(), why: [...new Set(r.why)],
      }));
    });
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
