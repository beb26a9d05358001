// Write control through the real hooks, CLI and an MCP client: capture.mode inbox holds what a session yields as
// review proposals (nothing written until approved); recall.read_only refuses an agent's writes but not its reads.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, runCli } from '../helpers/cli.js';
import { makeSandbox, sessionTranscript, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import type { ActivityEntry, ActivityResult } from '../../src/core/activity/record.js';
import type { ReviewPlanResult } from '../../src/core/curate/service.js';

const SESSION = '11111111-aaaa-4aaa-8aaa-0000000000b2';
const fixture = path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl');

function engramNotes(sb: Sandbox): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith('.md')) out.push(path.relative(sb.vault, f).split(path.sep).join('/'));
    }
  };
  walk(path.join(sb.vault, 'Engram'));
  return out.filter((p) => !p.startsWith('Engram/Log/'));
}

describe('write control', () => {
  let sb: Sandbox;
  let cwd: string;

  beforeEach(() => {
    sb = makeSandbox();
    cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
  });
  afterEach(async () => sb.cleanup());

  it('capture.mode inbox: a session\'s notes wait as proposals, and `engram review --apply` writes one', async () => {
    expect(runCli(['configure', 'capture.mode', 'inbox'], { env: sb.env }).code).toBe(0);
    const transcript = sessionTranscript(sb, SESSION, fixture);
    sb.serve();
    const r = runCli(['hook', 'SessionEnd'], { env: sb.env, input: JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd, hook_event_name: 'SessionEnd', reason: 'other' }) });
    expect(r.code).toBe(0);
    const extract = await waitFor(() => {
      const a = JSON.parse(runCli(['activity', '--session', SESSION, '--kind', 'extract', '--json'], { env: sb.env }).stdout) as ActivityResult;
      return a.entries.find((e): e is Extract<ActivityEntry, { kind: 'extract' }> => e.kind === 'extract' && e.beats.length > 0);
    }, 30_000, 'the extraction');
    expect(extract.beats.length).toBeGreaterThanOrEqual(3);
    expect(extract.beats.every((b) => b.action === 'proposed' && b.proposal)).toBe(true);
    expect(extract.outcome).toMatch(/extracted 0 notes, \d+ held for review/);
    expect(engramNotes(sb)).toEqual([]);

    const plan = JSON.parse(runCli(['review', '--json'], { env: sb.env }).stdout) as ReviewPlanResult;
    const held = plan.proposals.filter((p) => p.kind === 'capture');
    expect(held.map((p) => p.id).sort()).toEqual(extract.beats.map((b) => b.proposal).sort());
    const one = held[0];
    const applied = runCli(['review', '--apply', one.id], { env: sb.env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(engramNotes(sb)).toEqual([one.writes[0].path]);
    expect(fs.readFileSync(path.join(sb.vault, one.writes[0].path), 'utf8')).toBe(one.writes[0].text);
  });

  it('recall.read_only: an agent can recall but not remember or forget', async () => {
    sb.writeNote('Notes/Kafka.md', '# Kafka retention\nKafka retention is seven days for acme topics.\n');
    expect(runCli(['configure', 'recall.read_only', 'true'], { env: sb.env }).code).toBe(0);
    const client = new Client({ name: 'vitest', version: '0.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp'], env: sb.env as Record<string, string>, cwd, stderr: 'pipe' }));
    type R = { content: { text: string }[]; isError?: boolean };
    try {
      const recalled = (await client.callTool({ name: 'recall', arguments: { query: 'kafka retention', all_projects: true } })) as R;
      expect(recalled.isError ?? false).toBe(false);
      expect(recalled.content[0].text).toContain('Kafka');
      const remembered = (await client.callTool({ name: 'remember', arguments: { text: 'The deploy window is Tuesday mornings for the acme service.' } })) as R;
      expect(remembered.isError).toBe(true);
      expect(remembered.content[0].text).toMatch(/read-only for agents \(recall\.read_only\): remember is refused/);
      const forgot = (await client.callTool({ name: 'forget', arguments: { ref: 'Notes/Kafka.md' } })) as R;
      expect(forgot.isError).toBe(true);
      expect(engramNotes(sb)).toEqual([]);
      expect(fs.existsSync(path.join(sb.vault, 'Notes/Kafka.md'))).toBe(true);
    } finally {
      await client.close();
    }
    // The person at the terminal is not an agent: the CLI still writes.
    expect(runCli(['forget', 'Notes/Kafka.md'], { env: sb.env }).code).toBe(0);
  });
});
