// Private zones at each boundary, through the real CLI, hooks and an MCP client: a `<private>` span in a transcript
// never reaches the model (a fake API server records every request), a note, the index or the activity record; a note
// in a private folder or with a private tag is never injected, never in an MCP answer, and never named to the model.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, runCli } from '../helpers/cli.js';
import { makeSandbox, sessionTranscript, waitFor, type Sandbox } from '../helpers/host.js';
import { startFakeAnthropic, type FakeServer } from '../helpers/real-cli.js';
import { repoRoot } from '../helpers/shared.js';
import type { ActivityEntry, ActivityResult } from '../../src/core/activity/record.js';

const SESSION = '11111111-aaaa-4aaa-8aaa-0000000000c3';
const SECRET = 'zebra-77 merger with Initech';
const KEY = 'sk-ant-test-0123456789-private';

/** markers-a with a private span inside the pnpm decision, and a prompt that is private to its end (no closing tag). */
function privateTranscript(sb: Sandbox): string {
  const file = sessionTranscript(sb, SESSION, path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl'));
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; message: { content: unknown } });
  for (const l of lines) {
    const text = l.message.content;
    if (l.type !== 'user' || typeof text !== 'string') continue;
    if (text.startsWith('#decision We use pnpm')) l.message.content = text.replace('because', `<private>since the ${SECRET} needs it</private> because`);
    if (text.startsWith('remember: the staging')) l.message.content = `${text} <PRIVATE>and the ${SECRET} is on the same box`;
  }
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

function runAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [cliPath, ...args], { env, cwd: repoRoot });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

function everyFile(dir: string): string {
  let out = '';
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out += fs.readFileSync(path.join(e.parentPath, e.name), 'utf8');
  return out;
}

describe('private zones', () => {
  let sb: Sandbox;
  let cwd: string;
  let server: FakeServer | undefined;

  beforeEach(() => {
    sb = makeSandbox();
    cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    sb.writeNote('Journal/Therapy notes kafka.md', '# Therapy notes kafka\nKafka retention for acme topics came up in therapy.\n');
    sb.writeNote('Notes/Health kafka.md', '---\ntags: [private/health]\n---\n# Health kafka\nKafka retention for acme topics and my blood pressure.\n');
    sb.writeNote('Notes/Kafka retention.md', '---\ntype: decision\nsummary: Kafka retention for acme topics is seven days\n---\nKafka retention for acme topics is seven days.\n');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await sb.cleanup();
  });

  it('a private span never reaches the model, and a private note\'s title is never named to it', async () => {
    const prompts: string[] = [];
    server = await startFakeAnthropic((req) => {
      prompts.push(req.raw);
      return { text: JSON.stringify({ beats: [] }), usage: { input_tokens: 100, output_tokens: 10 } };
    });
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'anthropic', privacy: { private_folders: ['Journal'], private_tags: ['private'] } }));
    const transcript = privateTranscript(sb);
    // Spawned without blocking: the fake server answers from this process.
    const r = await runAsync(['extract', transcript, '--backend', 'anthropic'], { ...sb.env, ANTHROPIC_API_KEY: KEY, ENGRAM_ANTHROPIC_URL: server.url });
    expect(r.code, r.stderr).toBe(0);
    const sent = prompts.join('\n');
    expect(server.modelRequests().length).toBeGreaterThan(0);
    expect(sent).toContain('pnpm workspaces');
    expect(sent).toContain('[private]');
    expect(sent).not.toContain('zebra');
    expect(sent).not.toContain('Initech');
    // The vocabulary of titles sent with each window names the user's notes, never the private ones.
    expect(sent).toContain('Kafka retention');
    expect(sent).not.toContain('Therapy notes kafka');
    expect(sent).not.toContain('Health kafka');
  });

  it('a private span never reaches a note, the index or the activity record (hooks, rules backend)', async () => {
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
    const transcript = privateTranscript(sb);
    sb.serve();
    expect(runCli(['hook', 'SessionEnd'], { env: sb.env, input: JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd, hook_event_name: 'SessionEnd', reason: 'other' }) }).code).toBe(0);
    const extract = await waitFor(() => {
      const a = JSON.parse(runCli(['activity', '--session', SESSION, '--kind', 'extract', '--json'], { env: sb.env }).stdout) as ActivityResult;
      return a.entries.find((e): e is Extract<ActivityEntry, { kind: 'extract' }> => e.kind === 'extract' && e.beats.length > 0);
    }, 30_000, 'the extraction');
    const pnpm = extract.beats.find((b) => /pnpm/i.test(b.title))!;
    const note = fs.readFileSync(path.join(sb.vault, pnpm.path), 'utf8');
    expect(note).toContain('[private]');
    expect(everyFile(path.join(sb.vault, 'Engram'))).not.toContain('zebra');
    const search = JSON.parse(runCli(['search', 'zebra Initech merger', '--json'], { env: sb.env }).stdout) as { hits: unknown[] };
    expect(search.hits).toEqual([]);
    expect(everyFile(sb.engramHome)).not.toContain('zebra');
  });

  it('a note in a private folder or with a private tag is never injected nor given over MCP', async () => {
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
    expect(runCli(['configure', 'privacy.private_folders', 'Journal'], { env: sb.env }).code).toBe(0);
    expect(runCli(['configure', 'privacy.private_tags', '#private'], { env: sb.env }).code).toBe(0);
    sb.serve();
    await waitFor(() => {
      const r = runCli(['status', '--json'], { env: sb.env });
      return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
    }, 15_000, 'a ready host');
    const hook = runCli(['hook', 'UserPromptSubmit'], { env: sb.env, input: JSON.stringify({ session_id: SESSION, cwd, hook_event_name: 'UserPromptSubmit', prompt: 'what is the kafka retention for acme topics?' }) });
    const ctx = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(ctx).toContain('Kafka retention');
    expect(ctx).not.toMatch(/Therapy|Health|blood pressure/);
    const a = JSON.parse(runCli(['activity', '--session', SESSION, '--kind', 'inject', '--json'], { env: sb.env }).stdout) as ActivityResult;
    const inject = a.entries[0] as Extract<ActivityEntry, { kind: 'inject' }>;
    expect(inject.withheld).toEqual(expect.arrayContaining([
      { path: 'Journal/Therapy notes kafka.md', why: 'private folder Journal' },
      { path: 'Notes/Health kafka.md', why: 'private tag #private' },
    ]));

    const client = new Client({ name: 'vitest', version: '0.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp'], env: sb.env as Record<string, string>, cwd, stderr: 'pipe' }));
    type R = { content: { text: string }[]; isError?: boolean };
    try {
      const recalled = (await client.callTool({ name: 'recall', arguments: { query: 'kafka retention acme therapy health' } })) as R;
      expect(recalled.content[0].text).toContain('Kafka retention');
      expect(recalled.content[0].text).not.toMatch(/Therapy|Health kafka|blood pressure/);
      const read = (await client.callTool({ name: 'read', arguments: { ref: 'Journal/Therapy notes kafka.md' } })) as R;
      expect(read.isError).toBe(true);
      expect(read.content[0].text).toMatch(/private folder Journal: it is not given to agents/);
      expect(read.content[0].text).not.toContain('came up in therapy');
    } finally {
      await client.close();
    }
    // The person's own search still finds them.
    const mine = JSON.parse(runCli(['search', 'therapy kafka', '--json'], { env: sb.env }).stdout) as { hits: { path: string }[] };
    expect(mine.hits.map((h) => h.path)).toContain('Journal/Therapy notes kafka.md');
  });
});
