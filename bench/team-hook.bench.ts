// `npm run bench -- team-hook`: what a team store costs a person's hooks (issue 26: "promotion of 1,000 notes, recall
// with the team store cached: hook overhead unchanged, ratio to today ≤ 1.05"). A teammate promotes 1,000 notes of
// the 13,415-note zettelkasten (through the real promotion: the checks, then the store), into Debian's PostgreSQL; two
// hosts serve the same vault (dwarvesf-brain, 885 notes), one with the team store set and its notes cached, one
// without (each on its own copy). The UserPromptSubmit hook then runs for the same prompts against each, in turn (A B, B A, …), and each
// pair gives a ratio: pairing keeps the ratio meaningful while the machine's speed drifts. The host's own `context`
// answer is timed the same way over its socket (what the team adds inside the host, without process start-up).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { builtCli } from './lib/built-cli.js';
import { cliPath } from '../tests/helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../tests/helpers/host.js';
import { corpusPath, hasCorpus } from '../tests/helpers/shared.js';
import { startPostgres } from '../tests/helpers/team-db.js';
import { HostConnection } from '../sidecar/hosting/connection.js';
import { vaultState } from '../sidecar/hosting/paths.js';
import { PgTeamStore } from '../sidecar/hosting/team/pg-store.js';
import { refreshCache, teamDir } from '../sidecar/hosting/team/team-service.js';
import { prepareTeamNote } from '../src/core/team/store.js';

const TEAM_NOTES = 1000;
const PROMPTS = 40;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
const ms = (xs: number[]): string => `p50 ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms`;

function mdFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) mdFiles(p, out);
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

async function connect(sb: Sandbox): Promise<HostConnection> {
  const state = vaultState(sb.vault, sb.env);
  return waitFor(async () => HostConnection.open({ socket: state.socket, env: sb.env, deadline: Date.now() + 1000 }).catch(() => undefined), 60_000, 'host');
}

export async function run(): Promise<void> {
  if (!hasCorpus) {
    console.log('  skipped: the corpus (../shared/corpus) is absent');
    return;
  }
  builtCli();
  const postgres = await startPostgres();
  if ('skip' in postgres) {
    console.log(`  skipped: ${postgres.skip}`);
    return;
  }
  const vault = corpusPath('vaults', 'dwarvesf-brain');
  const teammate = corpusPath('vaults', 'digitalyoshixi-zettelkasten');
  const sandboxes: Sandbox[] = [];
  const conns: HostConnection[] = [];
  try {
    const admin = new PgTeamStore({ url: postgres.url, password: postgres.adminPassword });
    await admin.migrate();
    await admin.close();
    const client = new pg.Client({ host: '127.0.0.1', port: postgres.port, user: 'engram_admin', password: postgres.adminPassword, database: 'postgres' });
    await client.connect();
    for (const role of ['zoe', 'ann']) await client.query(`create role ${role} login password '${role}-pw'; grant engram_team_member to ${role}; insert into engram_team_members values ('${role}', 'core', null)`);
    await client.end();

    // The teammate promotes 1,000 notes, one at a time, as `engram team promote` and the review pane send them.
    const zoe = new PgTeamStore({ url: postgres.url.replace('engram_admin@', 'zoe@'), password: 'zoe-pw' });
    let promoted = 0;
    let refused = 0;
    const t0 = performance.now();
    for (const file of mdFiles(teammate)) {
      if (promoted >= TEAM_NOTES) break;
      const rel = path.relative(teammate, file);
      const prepared = await prepareTeamNote(rel, fs.readFileSync(file, 'utf8'), { team: 'core', author: 'zoe', vault: 'zettelkasten' });
      if (!prepared.ok) {
        refused++;
        continue;
      }
      const r = await zoe.promote(prepared.note, prepared.passages);
      if (r.status === 'promoted') promoted++;
    }
    const promoteMs = performance.now() - t0;
    await zoe.close();
    console.log(`  promotion of ${promoted} notes (checks, then the store, one at a time): ${(promoteMs / 1000).toFixed(1)} s, ${(promoteMs / promoted).toFixed(1)} ms a note; ${refused} notes refused by the checks`);

    // Two people on the same vault: A with the team store set and its notes cached, B without.
    const url = postgres.url.replace('engram_admin@', 'ann@');
    const hosts = ['team', 'none'].map((kind) => {
      const sb = makeSandbox();
      sandboxes.push(sb);
      // Each its own copy of the vault (a host keeps its lease in the vault's folder).
      fs.cpSync(vault, sb.vault, { recursive: true });
      if (kind === 'team') sb.env.ENGRAM_TEAM_PASSWORD = 'ann-pw';
      fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules', ...(kind === 'team' ? { team: { url, name: 'core' } } : {}) }));
      return sb;
    });
    const [withTeam, without] = hosts;
    const store = new PgTeamStore({ url, password: 'ann-pw' });
    const cache = await refreshCache(teamDir(withTeam.engramHome), { url, team: 'core', member: 'ann' }, store);
    await store.close();
    for (const sb of hosts) {
      sb.serve();
      const conn = await connect(sb);
      await waitFor(async () => ((await conn.call('status', {}, Date.now() + 5000)) as { index: { ready: boolean } }).index.ready, 300_000, 'index');
      conns.push(conn);
    }
    console.log(`  two hosts on ${path.basename(vault)}: one with the team store set and ${cache.notes.length} team notes cached, one without`);

    const queries = fs.readFileSync(corpusPath('bench', 'zettel-queries.txt'), 'utf8').split('\n').filter(Boolean).slice(0, PROMPTS);
    const hook = (sb: Sandbox, i: number, q: string): { ms: number; team: boolean } => {
      const payload = JSON.stringify({ session_id: `b${i}`, cwd: sb.root, prompt: `what do my notes say about ${q}?` });
      const t = performance.now();
      const r = spawnSync(process.execPath, [cliPath, 'hook', 'UserPromptSubmit'], { env: sb.env, input: payload, encoding: 'utf8' });
      return { ms: performance.now() - t, team: r.stdout.includes("Notes shared by the user's team") };
    };
    // One round of each, not counted (the hooks' first process start reads the code from disk).
    hook(withTeam, -1, 'warm up');
    hook(without, -1, 'warm up');
    const a: number[] = [];
    const b: number[] = [];
    const ratios: number[] = [];
    let teamInjected = 0;
    for (const [i, q] of queries.entries()) {
      const runA = (): number => {
        const r = hook(withTeam, i, q);
        if (r.team) teamInjected++;
        return r.ms;
      };
      const runB = (): number => hook(without, i, q).ms;
      const [x, y] = i % 2 === 0 ? [runA(), runB()] : (([yy, xx]) => [xx, yy])([runB(), runA()]);
      a.push(x);
      b.push(y);
      ratios.push(x / y);
    }
    console.log(`  hook UserPromptSubmit, whole process, ${PROMPTS} prompts in turn: team cached ${ms(a)}; no team ${ms(b)}; ratio with/without, median of pairs ${pct(ratios, 50).toFixed(3)} (target ≤ 1.05); team notes injected for ${teamInjected}/${PROMPTS}`);

    // Inside the host: the `context` answer alone, over the socket, in turn.
    const [connA, connB] = conns;
    const ca: number[] = [];
    const cb: number[] = [];
    const cr: number[] = [];
    const ask = async (conn: HostConnection, i: number, q: string): Promise<number> => {
      const t = performance.now();
      await conn.call('context', { event: 'UserPromptSubmit', prompt: `tell me about ${q}`, sessionId: `c${i}` }, Date.now() + 10_000);
      return performance.now() - t;
    };
    for (const [i, q] of [...queries, ...queries].entries()) {
      const x = i % 2 === 0 ? await ask(connA, i, q) : 0;
      const y = await ask(connB, i, q);
      const xx = i % 2 === 0 ? x : await ask(connA, i, q);
      ca.push(xx);
      cb.push(y);
      cr.push(xx / y);
    }
    console.log(`  the host's context answer alone (socket round trip), ${ca.length} prompts in turn: team cached ${ms(ca)}; no team ${ms(cb)}; ratio, median of pairs ${pct(cr, 50).toFixed(3)}`);
  } finally {
    for (const c of conns) c.close();
    for (const sb of sandboxes) await sb.cleanup();
    await postgres.stop();
  }
}
