// Never waste a window: against a local Anthropic-format server that fails in each way a real one does (HTTP 500
// forever, a long Retry-After, no answer at all, a reply that is not JSON), `engram extract` gives up within a bounded
// time and number of requests, exits non-zero, files nothing in the window's place and leaves it out of the ledger;
// once the server answers, the next run files the notes exactly once. A dry run sends nothing; rejected beats say why.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LEDGER_VERSION } from '../../src/core/extract/journal.js';
import { cliPath } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

const transcript = path.join(repoRoot, 'tests/fixtures/extract/markers-b.jsonl');
const SESSION_KEY = 'claude-code:22222222-bbbb-4bbb-8bbb-000000000002';
const KEY = 'sk-ant-test-windows-0123456789';

type Mode = 'ok' | '500' | '429-long' | 'hang' | 'garbage' | 'ungrounded';
let mode: Mode = 'ok';
let requests = 0;
let tmp: string;
let server: http.Server;
let url: string;

function beatReply(prompt: string): unknown[] {
  const m = /\[turn (\d+) · user[^\]]*\]\n(No, don't use moment[^\n]*)/.exec(prompt);
  return m ? [{ type: 'correction', title: 'Use date-fns instead of moment', summary: 'Use date-fns, not moment.js.', body: m[2], turns: [Number(m[1])], quote: m[2].slice(0, 45), confidence: 0.9 }] : [];
}

function answer(res: http.ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ model: 'claude-haiku-4-5', content: [{ type: 'text', text }], usage: { input_tokens: 2000, output_tokens: 100 } }));
}

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ENGRAM_FAULT: '', ...env }, cwd: repoRoot });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
}

function notes(vault: string): string[] {
  if (!fs.existsSync(vault)) return [];
  return fs.readdirSync(vault, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.md')).map((e) => path.join(e.parentPath, e.name));
}

interface LedgerFile {
  version: number;
  sessions: Record<string, { ranges: { backend?: string }[]; pending?: { failure: string; reason: string; windows: number; retryAt: string } }>;
}

function ledger(home: string): LedgerFile | undefined {
  const vaults = path.join(home, 'vaults');
  if (!fs.existsSync(vaults)) return undefined;
  const file = path.join(vaults, fs.readdirSync(vaults)[0], 'ledger.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as LedgerFile) : undefined;
}

let n = 0;
function sandbox(extra: Record<string, string> = {}): { vault: string; home: string; env: Record<string, string> } {
  const root = path.join(tmp, `s${++n}`);
  const vault = path.join(root, 'vault');
  const home = path.join(root, 'home');
  fs.mkdirSync(vault, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  return { vault, home, env: { ENGRAM_HOME: home, HOME: home, XDG_RUNTIME_DIR: path.join(root, 'run'), ANTHROPIC_API_KEY: KEY, ENGRAM_ANTHROPIC_URL: url, ...extra } };
}

beforeAll(async () => {
  tmp = makeTempDir('engram-extract-windows-');
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests++;
      const prompt = (JSON.parse(body) as { messages: { content: string }[] }).messages[0].content;
      if (mode === '500') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"type":"error","error":{"type":"api_error","message":"Internal server error"}}');
      } else if (mode === '429-long') {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
        res.end('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}');
      } else if (mode === 'hang') {
        // Never answers: only the client's deadline ends the request.
      } else if (mode === 'garbage') {
        answer(res, "I'm sorry, I can't help with extracting notes from this conversation.");
      } else if (mode === 'ungrounded') {
        const grounded = beatReply(prompt);
        answer(res, JSON.stringify({ beats: [...grounded, { type: 'decision', title: 'Use Postgres for invoices', summary: 'Invoices live in Postgres.', body: 'We store invoices in Postgres.', turns: [1], quote: 'we store every invoice in postgres', confidence: 0.8 }] }));
      } else answer(res, JSON.stringify({ beats: beatReply(prompt) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  removeDir(tmp);
});
beforeEach(() => {
  requests = 0;
  mode = 'ok';
});

describe('a window whose LLM call fails is not wasted', () => {
  it('HTTP 500 forever: bounded time and requests, exit 1, nothing filed, not in the ledger; filed exactly once when the server recovers', async () => {
    const s = sandbox();
    mode = '500';
    const failed = await run(['extract', transcript, '--vault', s.vault, '--backend', 'anthropic'], s.env);
    expect(failed.stderr).toBe('');
    expect(failed.code).toBe(1);
    // Before: 44 requests and 742 s (the claude CLI's own retries under Engram's), then the window was used up.
    // Bounded: three requests (the backoff between them is pinned with a fake sleep in tests/core/extract).
    expect(requests).toBe(3);
    expect(failed.stdout).toMatch(/HTTP 500/);
    expect(failed.stdout).toMatch(/1 window not extracted: it stays pending \(nothing filed in its place\)/);
    // No rules stand-in: the correction in the transcript is not filed by the offline pass.
    expect(notes(s.vault)).toEqual([]);
    const l = ledger(s.home)!;
    expect(l.version).toBe(LEDGER_VERSION);
    expect(l.sessions[SESSION_KEY].ranges).toEqual([]);
    expect(l.sessions[SESSION_KEY].pending).toMatchObject({ failure: 'server', windows: 1 });
    const runs = fs.readFileSync(path.join(s.home, 'logs/extract-runs.jsonl'), 'utf8').trim().split('\n').map((x) => JSON.parse(x) as { failed: { failure: string; attempts: number }[] });
    expect(runs.at(-1)!.failed).toMatchObject([{ failure: 'server', attempts: 3 }]);

    const status = await run(['status', '--vault', s.vault], s.env);
    expect(status.stdout).toMatch(new RegExp(`pending\\s+${SESSION_KEY}: 1 window not extracted by anthropic \\(server: .*HTTP 500`));

    mode = 'ok';
    requests = 0;
    const retried = await run(['extract', transcript, '--vault', s.vault, '--backend', 'anthropic'], s.env);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(/wrote 1 new/);
    expect(requests).toBe(1);
    const filed = notes(s.vault);
    expect(filed).toHaveLength(1);
    // A command the user typed: the note says so.
    expect(fs.readFileSync(filed[0], 'utf8')).toMatch(/^engram_source: manual$/m);
    expect(ledger(s.home)!.sessions[SESSION_KEY]).toMatchObject({ ranges: [{ backend: 'anthropic' }] });
    expect(ledger(s.home)!.sessions[SESSION_KEY].pending).toBeUndefined();
    const again = await run(['extract', transcript, '--vault', s.vault, '--backend', 'anthropic'], s.env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/nothing new/);
    expect(notes(s.vault)).toHaveLength(1);
    expect(requests).toBe(1);
  }, 60_000);

  it('a Retry-After longer than any backoff ends the call at once; the window stays pending', async () => {
    const s = sandbox();
    mode = '429-long';
    const r = await run(['extract', transcript, '--vault', s.vault, '--backend', 'anthropic'], s.env);
    expect(r.code).toBe(1);
    // One request and no wait for the hour the server asked for (the test's timeout is 30 s).
    expect(requests).toBe(1);
    expect(ledger(s.home)!.sessions[SESSION_KEY].pending).toMatchObject({ failure: 'rate-limit' });
  }, 30_000);

  it('a hung server: extract.timeout_ms bounds the call (one request, no second wait)', async () => {
    const s = sandbox({ ENGRAM_EXTRACT_TIMEOUT_MS: '5000' });
    mode = 'hang';
    const r = await run(['extract', transcript, '--vault', s.vault, '--backend', 'anthropic'], s.env);
    expect(r.code).toBe(1);
    expect(requests).toBe(1);
    // The hung server never answers: the run ending at all is the timeout; it waited for it, not less.
    expect(r.ms).toBeGreaterThanOrEqual(5000);
    expect(r.stdout).toMatch(/within 5000 ms/);
    expect(notes(s.vault)).toEqual([]);
    expect(ledger(s.home)!.sessions[SESSION_KEY]).toMatchObject({ ranges: [], pending: { failure: 'timeout' } });
  }, 40_000);

  it('an unparseable reply leaves the window pending, and `engram status` says why', async () => {
    const s = sandbox();
    mode = 'garbage';
    const r = await run(['extract', transcript, '--vault', s.vault, '--backend', 'anthropic'], s.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/not the JSON asked for/);
    expect(notes(s.vault)).toEqual([]);
    expect(ledger(s.home)!.sessions[SESSION_KEY].ranges).toEqual([]);
    const status = await run(['status', '--vault', s.vault], s.env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/pending\s+claude-code:22222222-bbbb-4bbb-8bbb-000000000002: 1 window not extracted by anthropic \(reply: .*not the JSON asked for/);
    const json = JSON.parse((await run(['status', '--vault', s.vault, '--json'], s.env)).stdout) as { pending: { failure: string }[] };
    expect(json.pending).toMatchObject([{ failure: 'reply' }]);
  }, 30_000);

  it('--dry-run never calls the LLM and says what a real run would send', async () => {
    const s = sandbox();
    const r = await run(['extract', transcript, '--vault', s.vault, '--backend', 'anthropic', '--dry-run'], s.env);
    expect(r.code).toBe(0);
    expect(requests).toBe(0);
    expect(r.stdout).toMatch(/dry run, nothing sent: a real run would send 1 window to anthropic \(claude-haiku-4-5\), about [\d,]+ input tokens/);
    expect(notes(s.vault)).toEqual([]);
    expect(fs.existsSync(path.join(s.home, 'logs/llm-calls.jsonl'))).toBe(false);
  }, 30_000);

  it('rejected beats say why, in the output and in extract-runs.jsonl', async () => {
    const s = sandbox();
    mode = 'ungrounded';
    const r = await run(['extract', transcript, '--vault', s.vault, '--backend', 'anthropic'], s.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/wrote 1 new, .* 1 rejected/);
    expect(r.stdout).toMatch(/rejected\s+"Use Postgres for invoices": not grounded: /);
    const last = JSON.parse(fs.readFileSync(path.join(s.home, 'logs/extract-runs.jsonl'), 'utf8').trim().split('\n').at(-1)!) as { source: string; rejectedBeats: { title: string; reason: string }[] };
    expect(last.source).toBe('manual');
    expect(last.rejectedBeats).toMatchObject([{ title: 'Use Postgres for invoices', reason: expect.stringMatching(/^not grounded: /) as unknown }]);
  }, 30_000);
});
