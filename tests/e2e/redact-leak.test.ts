// End to end: a session holding every fake secret of tests/fixtures/redact-secrets.ts goes through
// `engram extract`, with an API backend whose model (a local Anthropic-format server) writes back
// everything it is shown, and with the `rules` backend, which files notes from the user's own words.
// No secret value may reach the recorded request bodies, any file of the vault or of $ENGRAM_HOME
// (notes, proposals, logs, extract-runs.jsonl, ledger), any file name, or the command's output.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { startFakeAnthropic, type FakeServer } from '../helpers/real-cli.js';
import { repoRoot } from '../helpers/shared.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { secretSamples } from '../fixtures/redact-secrets.js';

const KEY = 'sk-ant-test-0123456789-secret';
const samples = secretSamples();
const SESSION = '33333333-cccc-4ccc-8ccc-000000000003';
let tmp: string;
let server: FakeServer;
let url: string;
const bodies: string[] = [];

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, cwd: repoRoot });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

/** A Claude Code transcript: one user turn per sample (marked for `rules`), each answered; the title holds one too. */
function writeTranscript(file: string): void {
  const lines: string[] = [];
  let parent: string | null = null;
  const base = { isSidechain: false, userType: 'external', cwd: '/home/dev/acme', sessionId: SESSION, version: '2.1.39', gitBranch: 'main' };
  samples.forEach((s, i) => {
    const u = `${SESSION}-u${i}`;
    const a = `${SESSION}-a${i}`;
    const ts = new Date(Date.UTC(2026, 10, 20, 9, 0, i * 2)).toISOString();
    lines.push(JSON.stringify({ ...base, parentUuid: parent, uuid: u, timestamp: ts, type: 'user', message: { role: 'user', content: `remember: for the ${s.format} setup we use this exact line\n${s.text}` } }));
    lines.push(
      JSON.stringify({
        ...base,
        parentUuid: u,
        uuid: a,
        timestamp: ts,
        type: 'assistant',
        requestId: `req_${a}`,
        message: { model: 'claude-opus-4-6', id: `msg_${a}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: `Noted. I will keep using ${s.text.split('\n').pop()} for ${s.format}.` }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 10 } },
      }),
    );
    parent = a;
  });
  lines.push(JSON.stringify({ type: 'custom-title', customTitle: `deploy with ${samples[0]!.secret}`, sessionId: SESSION }));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Every file under `dir`: names (relative) and contents. */
function everything(dir: string): { names: string[]; text: string } {
  const names: string[] = [];
  let text = '';
  if (!fs.existsSync(dir)) return { names, text };
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath, e.name);
    names.push(path.relative(dir, p));
    if (e.isFile()) text += `${fs.readFileSync(p, 'utf8')}\n`;
  }
  return { names, text };
}

function leaks(where: string, text: string): string[] {
  // Also the JSON-escaped form: a value with `/` or `"` is stored escaped in JSON files.
  return samples.filter((s) => text.includes(s.secret) || text.includes(JSON.stringify(s.secret).slice(1, -1))).map((s) => `${s.format} in ${where}`);
}

beforeAll(async () => {
  tmp = makeTempDir('engram-redact-leak-');
  // The model writes back every user turn it is shown, whole, as a note: the worst a model can do.
  server = await startFakeAnthropic((req) => {
    bodies.push(req.raw);
    const prompt = (req.body as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');
    const turns = [...prompt.matchAll(/\[turn (\d+) · (user|assistant)[^\]]*\]\n([\s\S]*?)(?=\n\[turn |\n<\/transcript>|$)/g)].map((m) => ({ index: Number(m[1]), text: m[3]!.trim() }));
    // Five beats (the per-window limit), each carrying a fifth of the turns whole: every turn ends up in a note.
    const beats = [0, 1, 2, 3, 4].map((k) => {
      const mine = turns.filter((_, i) => i % 5 === k);
      const first = mine[0]!.text.split('\n').filter((l) => l.trim().length >= 20).pop() ?? mine[0]!.text;
      return {
        type: 'decision',
        title: first.trim().slice(0, 70),
        summary: mine.map((t) => t.text).join(' ').slice(0, 300),
        body: mine.map((t) => t.text).join('\n\n'),
        turns: mine.map((t) => t.index),
        quote: first.trim().slice(0, 60),
        scope: 'project',
        durability: 'durable',
        tags: ['test'],
        confidence: 0.9,
      };
    });
    return { text: JSON.stringify({ beats }) };
  });
  url = server.url;
});
afterAll(async () => {
  await server.close();
  removeDir(tmp);
});

describe('no secret leaves the transcript', () => {
  it.each(['anthropic', 'rules'])('engram extract --backend %s: request bodies, vault, ENGRAM_HOME, file names and output hold none', async (backend) => {
    const dir = path.join(tmp, backend);
    const vault = path.join(dir, 'vault');
    const home = path.join(dir, 'home');
    fs.mkdirSync(vault, { recursive: true });
    const transcript = path.join(dir, `${SESSION}.jsonl`);
    writeTranscript(transcript);
    const before = bodies.length;
    const r = await run(['extract', transcript, '--vault', vault, '--backend', backend], { ENGRAM_HOME: home, HOME: home, ANTHROPIC_API_KEY: KEY, ENGRAM_ANTHROPIC_URL: url, ENGRAM_FAULT: '' });
    expect(r.code, r.out).toBe(0);
    const v = everything(vault);
    const h = everything(home);
    const notes = v.names.filter((n) => n.endsWith('.md'));
    // The run did file notes from the secret-bearing turns (the test sees what a user would open): with the
    // model, the notes carry every turn, each secret replaced by its kind.
    expect(notes.length, r.out).toBeGreaterThanOrEqual(5);
    const marks = new Set([...v.text.matchAll(/\[REDACTED:([a-z0-9-]+)\]/g)].map((m) => m[1]));
    if (backend === 'anthropic') expect([...new Set(samples.map((x) => x.kind))].filter((k) => !marks.has(k))).toEqual([]);
    else expect(marks.size).toBeGreaterThan(0);
    if (backend === 'anthropic') expect(bodies.length).toBeGreaterThan(before);
    else expect(bodies.length).toBe(before);
    const found = [
      ...bodies.slice(before).flatMap((b, i) => leaks(`request body ${i}`, b)),
      ...leaks('vault files', v.text),
      ...leaks('vault file names', v.names.join('\n')),
      ...leaks('ENGRAM_HOME files', h.text),
      ...leaks('ENGRAM_HOME file names', h.names.join('\n')),
      ...leaks('command output', r.out),
    ];
    expect(found).toEqual([]);
  });
});
