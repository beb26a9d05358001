// Failed windows on a running host, and the passes around them: one session's failing backend never holds up
// another's extraction; setup's offline `rules` pass never stops `engram backfill`'s LLM pass from reading the same
// turns (and the rules notes are extended or kept, never duplicated); a backend that cannot run is said up front.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { hostListening, makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

const KEY = 'sk-ant-test-pending-0123456789';
const A = '11111111-aaaa-4aaa-8aaa-000000000001';
const B = '22222222-bbbb-4bbb-8bbb-000000000002';
let server: http.Server;
let url: string;
/** Prompts the server received, in order. */
let prompts: string[] = [];
/** Prompts containing this text get HTTP 500. */
let failWhen: string | undefined;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(404).end();
      const prompt = (JSON.parse(body) as { messages: { content: string }[] }).messages[0].content;
      prompts.push(prompt);
      if (failWhen && prompt.includes(failWhen)) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"type":"error","error":{"type":"api_error","message":"Internal server error"}}');
        return;
      }
      const beats = [];
      const m = /\[turn (\d+) · user[^\]]*\]\n(No, don't use moment[^\n]*)/.exec(prompt);
      if (m) beats.push({ type: 'correction', title: 'Use date-fns instead of moment.js', summary: 'Use date-fns, not moment.js, for the invoice dates: it tree-shakes and moment is in maintenance mode.', body: m[2], turns: [Number(m[1])], quote: m[2].slice(0, 45), confidence: 0.9 });
      const p = /\[turn (\d+) · user[^\]]*\]\n#decision (We use pnpm workspaces[^\n]*)/.exec(prompt);
      if (p) beats.push({ type: 'decision', title: 'pnpm workspaces for the monorepo', summary: 'The monorepo uses pnpm workspaces, not npm: installs are three times faster.', body: p[2], turns: [Number(p[1])], quote: p[2].slice(0, 40), confidence: 0.9 });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: 'claude-haiku-4-5', content: [{ type: 'text', text: JSON.stringify({ beats }) }], usage: { input_tokens: 2000, output_tokens: 100 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function vaultNotes(vault: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of fs.readdirSync(vault, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.md') && !e.parentPath.includes(`${path.sep}.`)) out.set(path.join(e.parentPath, e.name), fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'));
  }
  return out;
}

function stateDir(sb: Sandbox): string {
  const vaults = path.join(sb.engramHome, 'vaults');
  return path.join(vaults, fs.readdirSync(vaults)[0]);
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

interface Ledger {
  sessions: Record<string, { ranges: { backend?: string }[]; pending?: { failure: string; reason: string } }>;
}

describe('failed windows on a running host', () => {
  let sb: Sandbox;
  let proj: string;
  beforeEach(() => {
    sb = makeSandbox();
    prompts = [];
    failWhen = undefined;
    proj = path.join(sb.home, '.claude', 'projects', '-home-dev-work');
    fs.mkdirSync(proj, { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl'), path.join(proj, `${A}.jsonl`));
    fs.copyFileSync(path.join(repoRoot, 'tests/fixtures/extract/markers-b.jsonl'), path.join(proj, `${B}.jsonl`));
    Object.assign(sb.env, { ANTHROPIC_API_KEY: KEY, ENGRAM_ANTHROPIC_URL: url, ENGRAM_BACKEND: 'anthropic', ENGRAM_BUDGET_TOKENS_PER_DAY: '1000000', ENGRAM_FAULT: '' });
  });
  afterEach(async () => sb.cleanup());

  it("session A's backend fails while session B's notes land; A stays pending with its reason", async () => {
    failWhen = 'pnpm workspaces';
    sb.serve();
    await waitFor(() => fs.existsSync(path.join(sb.env.XDG_RUNTIME_DIR!, 'engram')) && fs.readdirSync(path.join(sb.env.XDG_RUNTIME_DIR!, 'engram')).length > 0, 10_000, 'socket');
    for (const id of [A, B]) {
      const r = runCli(['hook', 'SessionEnd'], { env: sb.env, input: JSON.stringify({ session_id: id, transcript_path: path.join(proj, `${id}.jsonl`), cwd: sb.root, hook_event_name: 'SessionEnd', reason: 'other' }) });
      expect(r.code).toBe(0);
    }
    const runs = () => readJson<{ runs: { sessionId: string; outcome: string }[] }>(path.join(stateDir(sb), 'ledger.json'))?.runs ?? [];
    const bRun = await waitFor(() => runs().find((x) => x.sessionId === B), 40_000, "B's extraction");
    expect(bRun.outcome).toMatch(/extracted 1 notes/);
    expect([...vaultNotes(sb.vault).values()].filter((t) => t.includes('date-fns'))).toHaveLength(1);
    const aRun = runs().find((x) => x.sessionId === A)!;
    expect(aRun.outcome).toMatch(/^deferred: 1 window pending \(anthropic backend: HTTP 500/);
    // A spent a bounded number of requests, filed nothing, and waits in spool/deferred (not failed, not covered).
    expect(prompts.filter((p) => p.includes('pnpm workspaces'))).toHaveLength(3);
    expect([...vaultNotes(sb.vault).values()].some((t) => t.includes('pnpm'))).toBe(false);
    expect(fs.readdirSync(path.join(stateDir(sb), 'spool', 'deferred')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    const ledger = readJson<Ledger>(path.join(stateDir(sb), 'ledger.json'))!;
    expect(ledger.sessions[`claude-code:${A}`]).toMatchObject({ ranges: [], pending: { failure: 'server' } });
    const st = runCli(['status'], { env: sb.env });
    expect(st.stdout).toMatch(new RegExp(`pending\\s+claude-code:${A}: 1 window not extracted by anthropic \\(server: .*HTTP 500.*next background try after`));
  }, 90_000);

  it('the host retries a failed session after its backoff and files its notes exactly once', async () => {
    failWhen = 'pnpm workspaces';
    // A backoff of zero: the session comes back at its retry time on the next sweep, not after the hour that
    // other deferred events (budget spent) wait.
    await hostListening(sb, sb.serve({ ENGRAM_EXTRACT_RETRY_AFTER_MINUTES: '0' }, { sweepMs: 300 }));
    const end = () => runCli(['hook', 'SessionEnd'], { env: sb.env, input: JSON.stringify({ session_id: A, transcript_path: path.join(proj, `${A}.jsonl`), cwd: sb.root, hook_event_name: 'SessionEnd', reason: 'other' }) });
    expect(end().code).toBe(0);
    const runs = () => readJson<{ runs: { sessionId: string; outcome: string }[] }>(path.join(stateDir(sb), 'ledger.json'))?.runs.filter((r) => r.sessionId === A) ?? [];
    await waitFor(() => runs().some((r) => r.outcome.startsWith('deferred: 1 window pending')), 30_000, 'the failed run');
    expect([...vaultNotes(sb.vault).values()].some((t) => t.includes('pnpm'))).toBe(false);
    failWhen = undefined;
    await waitFor(() => runs().some((r) => /extracted 1 notes/.test(r.outcome)), 30_000, 'the retry');
    const ledger = readJson<Ledger>(path.join(stateDir(sb), 'ledger.json'))!;
    expect(ledger.sessions[`claude-code:${A}`].pending).toBeUndefined();
    expect(ledger.sessions[`claude-code:${A}`].ranges.map((r) => r.backend)).toEqual(['anthropic']);
    const sent = prompts.length;
    // Another event for the same session adds nothing: the window is covered once.
    const before = runs().length;
    expect(end().code).toBe(0);
    await waitFor(() => runs().length > before, 20_000, 'the next run');
    expect(prompts.length).toBe(sent);
    expect([...vaultNotes(sb.vault).values()].filter((t) => t.includes('pnpm workspaces'))).toHaveLength(1);
  }, 90_000);

  it("setup's rules pass, then backfill with an LLM backend: the LLM reads the turns rules covered, no note is duplicated", async () => {
    fs.rmSync(path.join(proj, `${A}.jsonl`));
    const cfg = path.join(sb.home, '.config', 'obsidian');
    fs.mkdirSync(cfg, { recursive: true });
    fs.writeFileSync(path.join(cfg, 'obsidian.json'), JSON.stringify({ vaults: { b: { path: sb.vault, ts: 2000, open: true } } }));
    const env = { ...sb.env };
    delete env.ENGRAM_VAULT;
    delete env.CLAUDE_CONFIG_DIR;
    const setup = runCli(['setup', '--yes'], { env, timeout: 60_000 });
    expect(setup.code, setup.stderr).toBe(0);
    const ledgerFile = path.join(stateDir(sb), 'ledger.json');
    const key = `claude-code:${B}`;
    await waitFor(() => readJson<Ledger>(ledgerFile)?.sessions[key]?.ranges.length, 30_000, 'the rules pass');
    expect(readJson<Ledger>(ledgerFile)!.sessions[key].ranges.every((r) => r.backend === 'rules')).toBe(true);
    expect(prompts).toEqual([]);
    const afterRules = vaultNotes(sb.vault);
    const rulesDateFns = [...afterRules].filter(([, t]) => t.includes('date-fns'));
    expect(rulesDateFns).toHaveLength(1);

    const bf = runCli(['backfill', '--yes'], { env, timeout: 60_000 });
    expect(bf.code, bf.stdout + bf.stderr).toBe(0);
    expect(bf.stdout).toMatch(/Backend: anthropic/);
    await waitFor(() => readJson<Ledger>(ledgerFile)?.sessions[key]?.ranges.some((r) => r.backend === 'anthropic'), 40_000, 'the LLM pass');
    // The LLM saw the turns only rules had seen.
    expect(prompts.some((p) => p.includes("No, don't use moment.js here"))).toBe(true);
    const after = vaultNotes(sb.vault);
    // Rules' date-fns note is extended or kept; no second note says it.
    expect([...after].filter(([, t]) => t.includes('date-fns')).map(([p]) => p)).toEqual([rulesDateFns[0][0]]);
    expect(after.size).toBe(afterRules.size);
  }, 120_000);
});

describe('a backend that cannot run is said up front', () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = makeSandbox();
    // The claude backend (the default), and no claude anywhere: PATH has only the system folders.
    Object.assign(sb.env, { PATH: '/usr/bin:/bin', ENGRAM_BACKEND: 'claude', ANTHROPIC_API_KEY: '' });
    const proj = path.join(sb.home, '.claude', 'projects', '-home-dev-work');
    fs.mkdirSync(proj, { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'tests/fixtures/extract/markers-b.jsonl'), path.join(proj, `${B}.jsonl`));
  });
  afterEach(async () => sb.cleanup());

  const choices = (out: string) => {
    expect(out).toMatch(/The claude backend cannot run: the claude backend runs the Claude Code CLI, and `claude` is not on PATH/);
    expect(out).toMatch(/1\. install Claude Code and log in/);
    expect(out).toMatch(/2\. `engram configure backend rules`/);
    expect(out).toMatch(/3\. an API key: `export ANTHROPIC_API_KEY=…`/);
  };

  it('backfill says so, with the three choices, queues nothing and exits 1', () => {
    const r = runCli(['backfill', '--yes'], { env: sb.env });
    expect(r.code).toBe(1);
    choices(r.stdout);
    expect(r.stdout).toMatch(/Nothing queued/);
    expect(r.stdout.indexOf('cannot run')).toBeLessThan(r.stdout.indexOf('Nothing queued'));
    const spool = path.join(sb.engramHome, 'vaults');
    expect(fs.existsSync(spool) ? JSON.stringify(fs.readdirSync(spool, { recursive: true })) : '').not.toMatch(/\.json/);
  });

  it('setup says so first, then sets up the offline parts (exit 0)', () => {
    const r = runCli(['setup', '--yes', '--vault', sb.vault], { env: sb.env, timeout: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    choices(r.stdout);
    expect(r.stdout.indexOf('cannot run')).toBeLessThan(r.stdout.indexOf('1. Vault:'));
  }, 60_000);
});
