// The team store against real Postgres over the wire protocol (tests/helpers/team-db.ts): PGlite with pgvector for the
// schema, promotion, fused keyword + vector search and retraction; Debian's PostgreSQL 15 for real logins, roles and
// row-level security on the keyword path (no pgvector there). Nothing a member may not read reaches them.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareTeamNote, type TeamNoteInput } from '../../src/core/team/store.js';
import { PgTeamStore } from '../../sidecar/hosting/team/pg-store.js';
import { startPglite, startPostgres, type PostgresDb, type TeamDb } from '../helpers/team-db.js';
import { enqueue, flushQueue, queued } from '../../sidecar/hosting/team/team-service.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/host.js';

const note = (over: Partial<TeamNoteInput> = {}): TeamNoteInput => ({
  team: 'core',
  project: 'acme',
  title: 'Use pnpm workspaces',
  body: 'The acme monorepo moved from npm to pnpm workspaces because installs took four minutes.',
  frontmatter: { type: 'decision' },
  author: 'postgres',
  vault: 'ann-vault',
  session: 's-1',
  sourceHash: 'h1',
  sourcePath: 'Engram/Projects/acme/Use pnpm workspaces.md',
  ...over,
});

/** A unit vector of 384 dimensions pointing mostly along `axis`. */
function unit(axis: number, tilt = 0): number[] {
  const v = new Array<number>(384).fill(0);
  v[axis] = 1;
  v[(axis + 1) % 384] = tilt;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const pglite = await startPglite();

describe.skipIf('skip' in pglite)(`the team store on PGlite with pgvector${'skip' in pglite ? `: skipped, ${pglite.skip}` : ''}`, () => {
  const db = pglite as TeamDb;
  let store: PgTeamStore;
  beforeAll(async () => {
    store = new PgTeamStore({ url: db.url });
  });
  afterAll(async () => {
    await store?.close();
    await db.stop();
  });

  it('migrates once (a second run changes nothing) and has vector search', async () => {
    expect(await store.migrate()).toBe(3);
    expect(await store.migrate()).toBe(3);
    expect(await store.capabilities()).toEqual({ vectors: true, schemaVersion: 3 });
  });

  it('promotes a note once: the same text again is unchanged, a new text updates it, and both are audited', async () => {
    const first = await store.promote(note(), [{ heading: '', text: note().body }], [unit(0)]);
    expect(first.status).toBe('promoted');
    expect(await store.promote(note(), [{ heading: '', text: note().body }], [unit(0)])).toEqual({ status: 'unchanged', id: first.id });
    const changed = note({ body: 'The acme monorepo uses pnpm workspaces (strict node_modules).', sourceHash: 'h2' });
    expect(await store.promote(changed, [{ heading: '', text: changed.body }], [unit(0)])).toEqual({ status: 'updated', id: first.id });
    const kept = await store.get(first.id);
    expect(kept?.body).toContain('strict node_modules');
    expect(kept?.session).toBe('s-1');
    const audit = await store.audit();
    expect(audit.filter((a) => a.noteId === first.id).map((a) => a.action)).toEqual(['update', 'promote']);
    expect(audit[0].detail).toContain('ann-vault:Engram/Projects/acme/Use pnpm workspaces.md');
  });

  it('finds a note by its words (title above body) and by meaning, fused, with the passage that matched', async () => {
    const other = note({ title: 'Deploy on Fridays', body: 'We never deploy on Fridays; the release train leaves on Tuesday.', sourcePath: 'Engram/Projects/acme/Deploy.md', sourceHash: 'h3' });
    await store.promote(other, [{ heading: 'Release', text: other.body }], [unit(10)]);
    const byWords = await store.search({ text: 'why pnpm workspaces instead of npm?' });
    expect(byWords[0]).toMatchObject({ title: 'Use pnpm workspaces', team: 'core', author: 'postgres', why: ['words'] });
    expect(byWords[0].snippet).toMatch(/pnpm/);
    // A question with none of the words, but the vector of the deploy note: found by meaning alone.
    const byMeaning = await store.search({ text: 'shipping schedule', vector: unit(10, 0.1) });
    expect(byMeaning[0]).toMatchObject({ title: 'Deploy on Fridays', why: ['meaning'], heading: 'Release' });
    const both = await store.search({ text: 'deploy release', vector: unit(10) });
    expect(both[0].why.sort()).toEqual(['meaning', 'words']);
    expect(await store.search({ text: 'deploy', project: 'elsewhere' })).toEqual([]);
  });

  it('a note holding all the question\'s words comes before notes holding some; a word no note holds does not hide the others', async () => {
    const some = note({ title: 'Lockfile churn', body: 'Lockfile churn lockfile churn: the lockfile changes on every install of lockfile tools.', sourcePath: 'Some.md', sourceHash: 'hs' });
    const all = note({ title: 'Renovate batches', body: 'Renovate batches lockfile updates weekly for the whole monorepo.', sourcePath: 'All.md', sourceHash: 'hl' });
    await store.promote(some, [{ heading: '', text: some.body }]);
    await store.promote(all, [{ heading: '', text: all.body }]);
    expect((await store.search({ text: 'renovate lockfile monorepo' })).map((h) => h.title)[0]).toBe('Renovate batches');
    // "quokka" is in no note: all the words find nothing, then the rarer words with any other, then any of them.
    const titles = (await store.search({ text: 'quokka lockfile churn' })).map((h) => h.title);
    expect(titles[0]).toBe('Lockfile churn');
    expect(titles).toContain('Renovate batches');
    for (const n of [some, all]) await store.retract((await store.search({ text: n.title }))[0].id, 'postgres');
  });

  it('another member\'s note with the same title is a conflict, never overwritten', async () => {
    const theirs = note({ author: 'bob', body: 'Bob says yarn.', sourceHash: 'hb', vault: 'bob-vault' });
    const r = await store.promote(theirs, [{ heading: '', text: theirs.body }]);
    expect(r.status).toBe('conflict');
    expect((await store.search({ text: 'yarn' })).length).toBe(0);
  });

  it('a promotion that fails half-way leaves nothing; sent again, it is there once', async () => {
    const n = note({ title: 'Atomic', body: 'alpha beta gamma', sourcePath: 'Engram/Inbox/Atomic.md', sourceHash: 'ha' });
    // The second passage's vector has the wrong size: the server refuses it after the note and a passage went in.
    await expect(store.promote(n, [{ heading: 'one', text: 'alpha' }, { heading: 'two', text: 'beta' }], [unit(3), [1, 0]])).rejects.toThrow();
    expect(await store.search({ text: 'alpha' })).toEqual([]);
    const again = await store.promote(n, [{ heading: 'one', text: 'alpha' }, { heading: 'two', text: 'beta' }], [unit(3), unit(4)]);
    expect(again.status).toBe('promoted');
    expect((await store.search({ text: 'alpha gamma' })).map((h) => h.title)).toEqual(['Atomic']);
  });

  it('only the author retracts; a retracted note is no longer found', async () => {
    const [hit] = await store.search({ text: 'pnpm' });
    expect(await store.retract(hit.id, 'bob')).toBe(false);
    expect(await store.retract(hit.id, 'postgres')).toBe(true);
    expect((await store.search({ text: 'pnpm' })).map((h) => h.title)).not.toContain('Use pnpm workspaces');
    expect((await store.audit(1))[0]).toMatchObject({ action: 'retract', noteId: hit.id });
  });
});

describe('what leaves the vault', () => {
  it('durable notes only, the user\'s own, never with a secret; e-mails rewritten; the source footer stays home', async () => {
    const who = { team: 'core', author: 'ann', vault: 'v' };
    const working = '---\ntype: insight\nreview_after: 2026-12-01\n---\nA working note.\n';
    expect(await prepareTeamNote('W.md', working, who)).toMatchObject({ ok: false, reason: expect.stringContaining('working memory stays personal') });
    const clipped = '---\nengram_trust: outside\n---\nA web page.\n';
    expect(await prepareTeamNote('C.md', clipped, who)).toMatchObject({ ok: false, reason: expect.stringContaining('outside text') });
    const secret = '---\ntype: reference\n---\nThe staging key is AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.\n';
    const refused = await prepareTeamNote('S.md', secret, who);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? '' : refused.reason).toMatch(/holds a secret/);
    const fine = '---\ntype: decision\nproject: acme\nengram_session: s-9\n---\nAsk ann@example.com before changing /home/ann/src/acme.\n\n> [!quote]- Source\n> the user said so\n';
    const ok = await prepareTeamNote('Engram/Projects/acme/Ask first.md', fine, who);
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    expect(ok.note).toMatchObject({ project: 'acme', session: 's-9', title: 'Ask first', sourcePath: 'Engram/Projects/acme/Ask first.md' });
    expect(ok.note.body).toBe('Ask [REDACTED:email] before changing ~/src/acme.');
    expect(ok.passages.map((p) => p.text).join('\n')).not.toContain('the user said so');
  });
});

const postgres = await startPostgres();

describe.skipIf('skip' in postgres)(`the team store on PostgreSQL: logins, roles, row-level security${'skip' in postgres ? `: skipped, ${postgres.skip}` : ''}`, () => {
  const server = postgres as PostgresDb;
  const stores: PgTeamStore[] = [];
  const as = (user: string, password: string): PgTeamStore => {
    const s = new PgTeamStore({ url: `postgres://${user}@127.0.0.1:${server.port}/postgres`, password, connectTimeoutMs: 5000 });
    stores.push(s);
    return s;
  };
  let admin: pg.Client;
  beforeAll(async () => {
    const store = as('engram_admin', server.adminPassword);
    expect(await store.migrate()).toBe(3);
    expect((await store.capabilities()).vectors).toBe(false);
    admin = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'engram_admin', password: server.adminPassword, database: 'postgres' });
    await admin.connect();
    for (const [role, team, project] of [['alice', 'core', null], ['bob', 'core', null], ['dave', 'core', 'other'], ['carol', null, null]] as const) {
      await admin.query(`create role ${role} login password '${role}-pw'`);
      await admin.query(`grant engram_team_member to ${role}`);
      if (team) await admin.query('insert into engram_team_members (role_name, team, project) values ($1, $2, $3)', [role, team, project]);
    }
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await admin?.end();
    await server.stop();
  });

  it('a member promotes in their own name; members of the team find it; nobody else does', async () => {
    const alice = as('alice', 'alice-pw');
    expect(await alice.migrate()).toBe(3);
    expect(await alice.whoami()).toBe('alice');
    const n = note({ author: 'alice' });
    expect((await alice.promote(n, [{ heading: '', text: n.body }])).status).toBe('promoted');
    expect((await as('bob', 'bob-pw').search({ text: 'pnpm workspaces' })).map((h) => [h.title, h.author])).toEqual([['Use pnpm workspaces', 'alice']]);
    // dave reads only the team's project "other"; carol is in no team.
    expect(await as('dave', 'dave-pw').search({ text: 'pnpm workspaces' })).toEqual([]);
    const theirs = note({ author: 'alice', project: 'other', title: 'Pnpm in other', sourcePath: 'Other.md', sourceHash: 'o1' });
    expect((await alice.promote(theirs, [{ heading: '', text: theirs.body }])).status).toBe('promoted');
    expect((await as('dave', 'dave-pw').search({ text: 'pnpm workspaces' })).map((h) => h.title)).toEqual(['Pnpm in other']);
    expect((await as('bob', 'bob-pw').search({ text: 'pnpm workspaces' })).map((h) => h.title).sort()).toEqual(['Pnpm in other', 'Use pnpm workspaces']);
    expect(await as('carol', 'carol-pw').search({ text: 'pnpm workspaces' })).toEqual([]);
    expect(await as('carol', 'carol-pw').audit()).toEqual([]);
  });

  it('a member cannot write in another\'s name, nor retract another\'s note', async () => {
    const bob = as('bob', 'bob-pw');
    const forged = note({ author: 'alice', title: 'Forged', sourcePath: 'Forged.md', sourceHash: 'f' });
    await expect(bob.promote(forged, [{ heading: '', text: 'x' }])).rejects.toThrow(/refused/);
    const [hit] = await bob.search({ text: 'pnpm', project: 'acme' });
    expect(await bob.retract(hit.id, 'bob')).toBe(false);
    expect(await bob.retract(hit.id, 'alice')).toBe(false);
    expect((await as('alice', 'alice-pw').search({ text: 'pnpm', project: 'acme' })).length).toBe(1);
  });

  it('the database killed mid-promotion: nothing half-written, nothing lost; sent once when it is back', async () => {
    const dir = makeTempDir('engram-team-');
    const alice = as('alice', 'alice-pw');
    const n = note({ author: 'alice', title: 'Crash safe', body: 'Quorum writes survive a crash.', sourcePath: 'Notes/Crash safe.md', sourceHash: 'c1' });
    enqueue(dir, n, [{ heading: 'one', text: 'Quorum writes survive a crash.' }, { heading: 'two', text: 'The log is replayed on start.' }]);
    // Another session holds the audit log: the promotion writes its note and passages, then waits, inside its transaction.
    const holder = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'engram_admin', password: server.adminPassword, database: 'postgres' });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('begin; lock table engram_team_audit in exclusive mode');
    const flushing = flushQueue(dir, alice);
    // (Watched from another session: one in a transaction sees the activity as it was when the transaction began.)
    await waitFor(async () => (await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where usename = 'alice' and wait_event_type = 'Lock'")).rows[0].n === 1, 20_000, 'the promotion to wait on the lock');
    admin.on('error', () => undefined);
    await server.crash();
    const report = await flushing;
    expect(report).toMatchObject({ sent: [], waiting: 1 });
    expect(queued(dir)).toHaveLength(1);
    await server.restart();
    const look = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'engram_admin', password: server.adminPassword, database: 'postgres' });
    await look.connect();
    const count = async (): Promise<number[]> =>
      (await look.query<{ notes: number; passages: number; audit: number }>(
        "select (select count(*)::int from engram_team_notes where title = 'Crash safe') as notes, (select count(*)::int from engram_team_passages p join engram_team_notes n on n.id = p.note_id where n.title = 'Crash safe') as passages, (select count(*)::int from engram_team_audit a join engram_team_notes n on n.id = a.note_id where n.title = 'Crash safe') as audit",
      )).rows.map((r) => [r.notes, r.passages, r.audit])[0];
    try {
      // The crash took the transaction with it: no note, no passage, no audit entry.
      expect(await count()).toEqual([0, 0, 0]);
      const again = await flushQueue(dir, alice);
      expect(again.sent.map((x) => x.outcome.status)).toEqual(['promoted']);
      expect(queued(dir)).toEqual([]);
      expect(await flushQueue(dir, alice)).toEqual({ sent: [], waiting: 0 });
      expect(await count()).toEqual([1, 2, 1]);
      expect((await as('bob', 'bob-pw').search({ text: 'quorum writes crash' })).map((h) => h.title)).toEqual(['Crash safe']);
    } finally {
      await look.end();
      removeDir(dir);
    }
  });

  it('a wrong password and an unreachable server fail with what to do, quickly', async () => {
    await expect(as('alice', 'wrong').search({ text: 'pnpm' })).rejects.toThrow(/refused the login[\s\S]*/);
    const gone = new PgTeamStore({ url: 'postgres://alice@127.0.0.1:1/postgres', password: 'x', connectTimeoutMs: 2000 });
    stores.push(gone);
    await expect(gone.search({ text: 'pnpm' })).rejects.toThrow(/cannot be reached/);
  });
});
