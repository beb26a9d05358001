// `engram extract` against a local Anthropic-format server: the key comes from the environment and never lands
// in the vault or in $ENGRAM_HOME; writes wait while git holds its index lock.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { startFakeAnthropic, type FakeServer } from '../helpers/real-cli.js';
import { repoRoot } from '../helpers/shared.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { gitBusy } from '../../sidecar/hosting/extract-runner.js';

const transcript = path.join(repoRoot, 'tests/fixtures/extract/markers-b.jsonl');
const KEY = 'sk-ant-test-0123456789-secret';
let tmp: string;
let server: FakeServer;
let url: string;

function runAsync(args: string[], env: Record<string, string>): { done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, cwd: repoRoot });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
}

function allText(dir: string): string {
  let out = '';
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out += fs.readFileSync(path.join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

beforeAll(async () => {
  tmp = makeTempDir('engram-extract-net-');
  // The model files the one correction of the transcript; a wrong key is refused as the real API refuses it.
  server = await startFakeAnthropic((req) => {
    if (req.headers['x-api-key'] !== KEY) return { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
    const prompt = (req.body as { messages: { content: string }[] }).messages[0].content;
    const m = /\[turn (\d+) · user[^\]]*\]\n(No, don't use moment[^\n]*)/.exec(prompt);
    const beats = m ? [{ type: 'correction', title: 'Use date-fns instead of moment', summary: 'Use date-fns, not moment.js.', body: m[2], turns: [Number(m[1])], quote: m[2].slice(0, 45), confidence: 0.9 }] : [];
    return { text: JSON.stringify({ beats }), usage: { input_tokens: 2000, output_tokens: 100 } };
  });
  url = server.url;
});
afterAll(async () => {
  await server.close();
  removeDir(tmp);
});

describe('engram extract with an API backend', () => {
  it('uses the key from the environment and never writes it anywhere', async () => {
    const vault = path.join(tmp, 'v1');
    const home = path.join(tmp, 'h1');
    fs.mkdirSync(vault);
    const r = await runAsync(['extract', transcript, '--vault', vault, '--backend', 'anthropic'], { ENGRAM_HOME: home, HOME: home, ANTHROPIC_API_KEY: KEY, ENGRAM_ANTHROPIC_URL: url, ENGRAM_FAULT: '' }).done;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/wrote 1 new/);
    expect(r.stdout).toMatch(/tokens 2000 in \/ 100 out, ~\$0\.0025/);
    expect(allText(vault)).toContain('date-fns');
    expect(allText(vault)).not.toContain(KEY);
    expect(allText(home)).not.toContain(KEY);
    const calls = fs.readFileSync(path.join(home, 'logs/llm-calls.jsonl'), 'utf8');
    expect(JSON.parse(calls.trim())).toMatchObject({ backend: 'anthropic', inputTokens: 2000, outputTokens: 100, costUsd: 0.0025 });
  });

  it.skipIf(process.platform !== 'linux')('reads the key from the OS secret store (libsecret) when the variable is unset', async () => {
    const vault = path.join(tmp, 'v4');
    const home = path.join(tmp, 'h4');
    const bin = path.join(tmp, 'secret-bin');
    fs.mkdirSync(vault);
    fs.mkdirSync(bin);
    // A stand-in for libsecret's secret-tool: answers only the exact lookup Engram makes.
    fs.writeFileSync(path.join(bin, 'secret-tool'), `#!/bin/sh\n[ "$*" = "lookup service engram key ANTHROPIC_API_KEY" ] && printf '%s\\n' '${KEY}' && exit 0\nexit 1\n`, { mode: 0o755 });
    const r = await runAsync(['extract', transcript, '--vault', vault, '--backend', 'anthropic'], { ENGRAM_HOME: home, HOME: home, ANTHROPIC_API_KEY: '', ENGRAM_ANTHROPIC_URL: url, ENGRAM_FAULT: '', PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` }).done;
    expect(r.stdout).toMatch(/wrote 1 new/);
    expect(allText(home)).not.toContain(KEY);
  });

  it('a wrong key fails without retries, falls back to rules, and the key is not printed', async () => {
    const vault = path.join(tmp, 'v2');
    const home = path.join(tmp, 'h2');
    fs.mkdirSync(vault);
    const before = server.modelRequests().length;
    const r = await runAsync(['extract', transcript, '--vault', vault, '--backend', 'anthropic'], { ENGRAM_HOME: home, HOME: home, ANTHROPIC_API_KEY: 'sk-wrong-key-42', ENGRAM_ANTHROPIC_URL: url, ENGRAM_FAULT: '' }).done;
    expect(server.modelRequests().length - before).toBe(1);
    expect(r.stdout).toMatch(/error: .*HTTP 401/);
    expect(r.stdout + r.stderr).not.toContain('sk-wrong-key-42');
    expect(allText(home)).not.toContain('sk-wrong-key-42');
  });

  it('waits while git holds .git/index.lock, then writes', async () => {
    const vault = path.join(tmp, 'v3');
    const home = path.join(tmp, 'h3');
    fs.mkdirSync(path.join(vault, '.git'), { recursive: true });
    fs.writeFileSync(path.join(vault, '.git', 'index.lock'), '');
    expect(gitBusy(vault)).toBe(true);
    const run = runAsync(['extract', transcript, '--vault', vault, '--backend', 'rules'], { ENGRAM_HOME: home, HOME: home, ENGRAM_FAULT: '' });
    await new Promise((r) => setTimeout(r, 1500));
    expect(fs.existsSync(path.join(vault, 'Engram'))).toBe(false);
    fs.rmSync(path.join(vault, '.git', 'index.lock'));
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(fs.readdirSync(path.join(vault, 'Engram', 'Projects', 'invoicer'))).toHaveLength(3);
    fs.mkdirSync(path.join(vault, '.git', 'rebase-merge'));
    expect(gitBusy(vault)).toBe(true);
  });
});
