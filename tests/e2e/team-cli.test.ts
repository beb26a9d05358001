// Two vaults on one machine share a team store through the real CLI (issue 26, "done when"): each person connects,
// promotes a durable note of their own vault, finds the other's note, and retracts their own. A promotion made while
// the store cannot be reached waits in the queue and is sent once, exactly once. The store is PGlite (Postgres in
// WASM, pgvector included) on 127.0.0.1, in this process; so the CLI runs without blocking it (runCliAsync). A
// prompt hook injects a team note only when it clears the bar a vault note clears.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliPath, runCliAsync } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import pg from 'pg';
import { PgTeamStore } from '../../sidecar/hosting/team/pg-store.js';
import { startPglite, startPostgres, type TeamDb } from '../helpers/team-db.js';

const db = await startPglite();

describe.skipIf('skip' in db)(`two vaults share a team store through the CLI${'skip' in db ? `: skipped, ${db.skip}` : ''}`, () => {
  const server = db as TeamDb;
  const sandboxes: Sandbox[] = [];
  afterAll(async () => {
    for (const sb of sandboxes) await sb.cleanup();
    await server.stop();
  });
  const person = (): { sb: Sandbox; cli: (...args: string[]) => ReturnType<typeof runCliAsync> } => {
    const sb = makeSandbox();
    sandboxes.push(sb);
    return { sb, cli: (...args) => runCliAsync(args, { env: sb.env, timeout: 90_000 }) };
  };
  const ann = person();
  const bob = person();

  it('ann promotes a durable note; bob finds it with its author, from the store or his cache; ann retracts it and bob no longer does', async () => {
    ann.sb.writeNote('Engram/Projects/acme/Use pnpm workspaces.md', '---\ntype: decision\nproject: acme\nengram_session: s-1\n---\nThe acme monorepo moved from npm to pnpm workspaces: installs took four minutes.\n\n> [!quote]- Source\n> we are moving to pnpm\n');
    ann.sb.writeNote('Engram/Working memory/Flaky test.md', '---\ntype: problem\nreview_after: 2026-12-24\n---\nThe login test is flaky on CI.\n');
    ann.sb.writeNote('Notes/Staging.md', '---\ntype: reference\n---\nStaging uses the key AKIAIOSFODNN7EXAMPLE with wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.\n');
    const c = await ann.cli('team', 'connect', server.url, '--team', 'core');
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/Connected to postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres as postgres, team core \(schema 3; keyword \+ vector/);
    expect(JSON.parse(fs.readFileSync(path.join(ann.sb.engramHome, 'config.json'), 'utf8')).team).toEqual({ url: server.url, name: 'core' });

    const p = await ann.cli('team', 'promote', 'Use pnpm workspaces');
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/Engram\/Projects\/acme\/Use pnpm workspaces\.md: promoted \(team note [0-9a-f-]{36}\)/);
    // Working memory stays personal; a note with a secret is refused, and nothing of it is sent.
    const w = await ann.cli('team', 'promote', 'Engram/Working memory/Flaky test.md');
    expect(w.code).not.toBe(0);
    expect(w.stderr).toMatch(/working memory stays personal/);
    const s = await ann.cli('team', 'promote', 'Staging');
    expect(s.code).not.toBe(0);
    expect(s.stderr).toMatch(/holds a secret/);

    expect((await bob.cli('team', 'connect', server.url, '--team', 'core')).code).toBe(0);
    const found = await bob.cli('team', 'search', 'why pnpm instead of npm', '--json');
    expect(found.code, found.stderr).toBe(0);
    const answer = JSON.parse(found.stdout) as { from: string; hits: { id: string; title: string; author: string; snippet: string }[] };
    expect(answer.from).toBe('store');
    expect(answer.hits.map((h) => [h.title, h.author])).toEqual([['Use pnpm workspaces', 'postgres']]);
    expect(answer.hits[0].snippet).toMatch(/pnpm workspaces/);
    expect(JSON.stringify(answer)).not.toMatch(/we are moving to pnpm|AKIA|Flaky/);

    // bob's cache holds it for recall: the same search answers from it when the store is unreachable.
    const cache = JSON.parse(fs.readFileSync(path.join(bob.sb.engramHome, 'team', 'cache.json'), 'utf8')) as { notes: { title: string }[] };
    expect(cache.notes.map((n) => n.title)).toEqual(['Use pnpm workspaces']);
    // engram search joins the team's notes (from the cache) with bob's own, labelled; an unrelated query gets none.
    bob.sb.writeNote('Notes/Groceries.md', '# Groceries\nOat milk and lemons.\n');
    const joined = await bob.cli('search', 'pnpm workspaces');
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout).toMatch(/1\. Use pnpm workspaces {2}\[team core, acme, by postgres\]/);
    expect(joined.stdout).toMatch(/0 notes and 1 team note,/);
    expect((await bob.cli('search', 'oat milk lemons')).stdout).not.toMatch(/team/);
    // bob's prompt hook injects it (from his cache) when the prompt is about it, and not for a prompt that only shares
    // some of its words: the bar a vault note clears.
    bob.sb.serve();
    await waitFor(async () => {
      const st = await bob.cli('status', '--json');
      return st.code === 0 && (JSON.parse(st.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
    }, 30_000, 'bob\'s host ready');
    const cwd = path.join(bob.sb.root, 'acme');
    fs.mkdirSync(cwd, { recursive: true });
    const hook = async (prompt: string, session: string): Promise<string> => {
      const h = await runCliAsync(['hook', 'UserPromptSubmit'], { env: bob.sb.env, input: JSON.stringify({ session_id: session, cwd, hook_event_name: 'UserPromptSubmit', prompt }) });
      expect(h.code, h.stderr).toBe(0);
      return h.stdout;
    };
    expect(await hook('why did the acme monorepo move to pnpm?', 's-on')).toMatch(/Use pnpm workspaces \(team core, acme, by postgres/);
    expect(await hook('how many minutes does the acme bakery take to bake sourdough?', 's-off')).not.toMatch(/Use pnpm workspaces/);
    expect((await bob.cli('configure', 'team.url', server.url.replace(/:\d+\//, ':9/'))).code).toBe(0);
    const offline = JSON.parse((await bob.cli('team', 'search', 'pnpm workspaces', '--json')).stdout) as { from: string; notice: string; hits: { title: string }[] };
    expect(offline.from).toBe('cache');
    expect(offline.notice).toMatch(/cannot be reached.*answered from the cache/);
    expect(offline.hits.map((h) => h.title)).toEqual(['Use pnpm workspaces']);
    expect((await bob.cli('configure', 'team.url', server.url)).code).toBe(0);

    // bob copies it into his vault: a new note in his inbox, saying whose it is, marked as not his words.
    const cp = await bob.cli('team', 'copy', answer.hits[0].id);
    expect(cp.code, cp.stderr).toBe(0);
    expect(cp.stdout).toMatch(/Copied Use pnpm workspaces \(team core, acme, by postgres\) to Engram\/Inbox\/Use pnpm workspaces\.md/);
    const copied = fs.readFileSync(path.join(bob.sb.vault, 'Engram/Inbox/Use pnpm workspaces.md'), 'utf8');
    expect(copied).toMatch(/engram_trust: outside/);
    expect(copied).toMatch(/author: postgres/);
    expect(copied).toContain('The acme monorepo moved from npm to pnpm workspaces');
    expect(copied).not.toMatch(/we are moving to pnpm/);
    // Copied twice: a second note beside it, the first untouched.
    expect((await bob.cli('team', 'copy', answer.hits[0].id)).stdout).toMatch(/Use pnpm workspaces 1\.md/);

    const r = await ann.cli('team', 'retract', answer.hits[0].id);
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse((await bob.cli('team', 'search', 'pnpm', '--json')).stdout) as { hits: unknown[] };
    expect(after.hits, JSON.stringify(after)).toEqual([]);
  });

  it('a promotion while the store is unreachable waits, is said in status, and is sent once', async () => {
    const cara = person();
    cara.sb.writeNote('Notes/Deploy days.md', '---\ntype: decision\n---\nWe never deploy on Fridays.\n');
    // A store that does not answer (nothing listens on port 9): the note waits.
    const dead = server.url.replace(/:\d+\//, ':9/');
    expect((await cara.cli('configure', 'team.url', dead)).code).toBe(0);
    expect((await cara.cli('configure', 'team.name', 'core')).code).toBe(0);
    const p = await cara.cli('team', 'promote', 'Deploy days');
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/1 waiting: the team store at .* cannot be reached \(ECONNREFUSED\)/);
    const st = JSON.parse((await cara.cli('team', 'status', '--json')).stdout) as { queued: number; store: string };
    expect(st.queued).toBe(1);
    expect(st.store).toMatch(/cannot be reached/);
    // The store answers again: sent, once, however often sync runs.
    expect((await cara.cli('configure', 'team.url', server.url)).code).toBe(0);
    const sync = await cara.cli('team', 'sync');
    expect(sync.stdout).toMatch(/Notes\/Deploy days\.md: promoted/);
    expect((await cara.cli('team', 'sync')).stdout).toMatch(/Nothing waiting/);
    expect((await cara.cli('team', 'promote', 'Deploy days')).stdout).toMatch(/unchanged/);
    const hits = JSON.parse((await cara.cli('team', 'search', 'deploy Fridays', '--json')).stdout) as { hits: { title: string }[] };
    expect(hits.hits.map((h) => h.title)).toEqual(['Deploy days']);
  });

  it('the host sends what waits and caches the team\'s notes in the background', async () => {
    const eve = person();
    eve.sb.writeNote('Notes/Code review.md', '---\ntype: decision\n---\nEvery change gets one reviewer before merge.\n');
    const dead = server.url.replace(/:\d+\//, ':9/');
    expect((await eve.cli('configure', 'team.url', dead)).code).toBe(0);
    expect((await eve.cli('configure', 'team.name', 'core')).code).toBe(0);
    expect((await eve.cli('team', 'promote', 'Code review')).stdout).toMatch(/1 waiting/);
    expect((await eve.cli('configure', 'team.url', server.url)).code).toBe(0);
    const queue = path.join(eve.sb.engramHome, 'team', 'queue');
    const cache = path.join(eve.sb.engramHome, 'team', 'cache.json');
    eve.sb.serve();
    await waitFor(() => fs.readdirSync(queue).length === 0 && fs.existsSync(cache) && fs.readFileSync(cache, 'utf8').includes('Code review'), 60_000, 'the host to send the queue and cache the team');
    const hits = JSON.parse((await eve.cli('team', 'search', 'reviewer before merge', '--json')).stdout) as { hits: { title: string }[] };
    expect(hits.hits.map((h) => h.title)).toEqual(['Code review']);
  });

  it('an agent proposes a note over MCP; nothing leaves the vault until the person approves it', async () => {
    const fay = person();
    fay.sb.writeNote('Notes/Retry policy.md', '---\ntype: decision\n---\nClients retry idempotent calls three times with jittered backoff.\n');
    fay.sb.writeNote('Engram/Working memory/Half idea.md', '---\ntype: insight\nreview_after: 2026-12-24\n---\nMaybe retries should be five.\n');
    expect((await fay.cli('team', 'connect', server.url, '--team', 'core')).code).toBe(0);
    fay.sb.serve();
    const client = new Client({ name: 'vitest', version: '0.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp'], env: fay.sb.env as Record<string, string>, cwd: fay.sb.vault, stderr: 'pipe' }));
    type R = { content: { text: string }[]; isError?: boolean };
    try {
      const proposed = (await client.callTool({ name: 'team_propose', arguments: { ref: 'Retry policy', why: 'the team keeps asking' } })) as R;
      expect(proposed.isError, proposed.content[0].text).toBeFalsy();
      expect(proposed.content[0].text).toMatch(/Proposed Notes\/Retry policy\.md for the team: it waits for the user's approval \(1 waiting/);
      const refused = (await client.callTool({ name: 'team_propose', arguments: { ref: 'Engram/Working memory/Half idea.md' } })) as R;
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toMatch(/working memory stays personal/);
    } finally {
      await client.close();
    }
    // Proposed is not sent: the store does not have it, the person sees it waiting.
    expect((JSON.parse((await fay.cli('team', 'search', 'retry jittered backoff', '--json')).stdout) as { hits: unknown[] }).hits).toEqual([]);
    const waiting = await fay.cli('team', 'proposals');
    expect(waiting.stdout).toMatch(/proposed: Notes\/Retry policy\.md: the team keeps asking \(by agent/);
    const ok = await fay.cli('team', 'approve', 'Notes/Retry policy.md');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/Notes\/Retry policy\.md: promoted/);
    expect((await fay.cli('team', 'proposals')).stdout).toMatch(/Nothing waits for you/);
    const hits = JSON.parse((await fay.cli('team', 'search', 'retry jittered backoff', '--json')).stdout) as { hits: { title: string }[] };
    expect(hits.hits.map((h) => h.title)).toEqual(['Retry policy']);
  });

  it('a password is never written to the configuration', async () => {
    const dan = person();
    const withPassword = server.url.replace('postgres@', 'postgres:s3cret-pw@');
    const c = await dan.cli('team', 'connect', withPassword, '--team', 'core');
    expect(c.code, c.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dan.sb.engramHome, 'config.json'), 'utf8')).not.toContain('s3cret-pw');
    const set = await dan.cli('configure', 'team.url', withPassword);
    expect(set.code).not.toBe(0);
    expect(set.stderr).toMatch(/without a password/);
  });
});

const postgres = await startPostgres();

describe.skipIf('skip' in postgres || process.platform !== 'linux')(`the password from the OS keychain, against PostgreSQL with real logins${'skip' in postgres ? `: skipped, ${postgres.skip}` : process.platform !== 'linux' ? ': skipped, the stand-in secret-tool is for Linux' : ''}`, () => {
  const server = postgres as TeamDb & { adminPassword: string; port: number };
  const sandboxes: Sandbox[] = [];
  afterAll(async () => {
    for (const sb of sandboxes) await sb.cleanup();
    await server.stop();
  });

  it('connect --save-password keeps the password in the keyring, never in the configuration; later runs log in with it', async () => {
    const admin = new PgTeamStore({ url: server.url, password: server.adminPassword });
    await admin.migrate();
    await admin.close();
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'engram_admin', password: server.adminPassword, database: 'postgres' });
    await c.connect();
    await c.query("create role kim login password 'kim-pw'; grant engram_team_member to kim; insert into engram_team_members values ('kim', 'core', null)");
    await c.end();
    const sb = makeSandbox();
    sandboxes.push(sb);
    // A stand-in for libsecret's secret-tool on PATH: `store` reads the secret from stdin, `lookup` prints it.
    const bin = path.join(sb.root, 'bin');
    const keyring = path.join(sb.root, 'keyring');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'secret-tool'), `#!/bin/sh\nif [ "$1" = store ]; then cat > '${keyring}'; exit 0; fi\nif [ "$1" = lookup ] && [ -f '${keyring}' ]; then cat '${keyring}'; exit 0; fi\nexit 1\n`, { mode: 0o755 });
    const env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}`, ENGRAM_TEAM_PASSWORD: '' };
    const cli = (...args: string[]): ReturnType<typeof runCliAsync> => runCliAsync(args, { env, timeout: 90_000 });
    const url = `postgres://kim:kim-pw@127.0.0.1:${server.port}/postgres`;

    const con = await cli('team', 'connect', url, '--team', 'core', '--save-password');
    expect(con.code, con.stderr).toBe(0);
    expect(con.stdout).toMatch(/The password is kept in the Secret Service keyring/);
    expect(fs.readFileSync(keyring, 'utf8')).toBe('kim-pw');
    expect(fs.readFileSync(path.join(sb.engramHome, 'config.json'), 'utf8')).not.toContain('kim-pw');
    // No password in the environment nor the URL: the keyring's logs in.
    expect(JSON.parse((await cli('team', 'status', '--json')).stdout).store).toBe('reachable');
    // A wrong one in the keyring: the login is refused, said plainly.
    fs.writeFileSync(keyring, 'not-it');
    expect(JSON.parse((await cli('team', 'status', '--json')).stdout).store).toMatch(/refused the login/);
  });
});
