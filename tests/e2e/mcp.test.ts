// The SDK's real MCP client over stdio against the built `engram mcp`, which talks to a real host.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, runCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';

type TextResult = { content: { type: string; text: string }[]; isError?: boolean };

describe('engram mcp (real client, real host)', () => {
  let sb: Sandbox;
  let client: Client;

  beforeEach(async () => {
    sb = makeSandbox();
    sb.writeNote('Engram/Inbox/Use pnpm workspaces.md', '---\ntype: decision\nscope: general\nsummary: The monorepo uses pnpm workspaces because npm installs were slow\nengram_id: e-pnpm-1\nengram_source: hook-extraction\n---\nWe moved the monorepo from npm to pnpm workspaces; installs went from 4 minutes to 40 seconds.\n');
    sb.writeNote('.obsidian/plugins/secret/data.json', '{"apiKey":"sk-secret"}');
    sb.writeNote('.obsidian/notes.md', 'secret config note');
    client = new Client({ name: 'vitest', version: '0.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp'], env: sb.env as Record<string, string>, cwd: sb.root, stderr: 'pipe' }));
  });

  afterEach(async () => {
    await client.close().catch(() => undefined);
    await sb.cleanup();
  });

  it('lists every tool with accurate hints, the guide resource and both prompts', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['configure', 'extract', 'forget', 'read', 'recall', 'reindex', 'remember', 'restructure', 'review', 'search', 'status']);
    for (const name of ['recall', 'search', 'read', 'status']) expect(byName[name].annotations?.readOnlyHint).toBe(true);
    for (const name of ['remember', 'forget', 'extract', 'configure', 'reindex']) expect(byName[name].annotations?.readOnlyHint).toBe(false);
    expect(byName.forget.annotations?.destructiveHint).toBe(true);
    expect(byName.remember.annotations?.destructiveHint).toBe(false);
    expect(byName.remember.annotations?.idempotentHint).toBe(false);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('engram://guide');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['orient', 'recall']);
    const guide = await client.readResource({ uri: 'engram://guide' });
    expect(JSON.stringify(guide)).toContain('recall');
  });

  it('remembers, recalls fenced, reads, forgets (into the archive, logged, out of recall), and reports status', async () => {
    const saved = (await client.callTool({ name: 'remember', arguments: { text: 'Vitest 4 needs Node 20.19 or newer; CI pins Node 20.19.', type: 'reference', scope: 'general' } })) as TextResult;
    expect(saved.isError).toBeFalsy();
    const rel = /Saved as (.+)$/.exec(saved.content[0].text)![1];
    expect(fs.existsSync(path.join(sb.vault, rel))).toBe(true);

    const r = (await client.callTool({ name: 'recall', arguments: { query: 'why pnpm workspaces monorepo', detail: 'full' } })) as TextResult;
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toContain('<engram-memory');
    expect(r.content[0].text).toContain('Use pnpm workspaces');
    expect(r.content[0].text).toContain('4 minutes to 40 seconds');

    const read = (await client.callTool({ name: 'read', arguments: { ref: 'Use pnpm workspaces' } })) as TextResult;
    expect(read.content[0].text).toContain('installs went from');

    const forgot = (await client.callTool({ name: 'forget', arguments: { ref: '[[Use pnpm workspaces]]' } })) as TextResult;
    expect(forgot.isError, forgot.content[0].text).toBeFalsy();
    expect(forgot.content[0].text).toContain('Engram/Archive/Use pnpm workspaces.md');
    expect(fs.existsSync(path.join(sb.vault, 'Engram/Inbox/Use pnpm workspaces.md'))).toBe(false);
    expect(fs.existsSync(path.join(sb.vault, '.trash/Engram/Inbox/Use pnpm workspaces.md'))).toBe(false);
    // Archived, not trashed: the note is intact in the archive folder (recoverable by moving it back).
    expect(fs.readFileSync(path.join(sb.vault, 'Engram/Archive/Use pnpm workspaces.md'), 'utf8')).toContain('4 minutes to 40 seconds');
    const again = (await client.callTool({ name: 'recall', arguments: { query: 'pnpm workspaces monorepo' } })) as TextResult;
    expect(again.content[0].text).not.toContain('Use pnpm workspaces');
    expect(again.content[0].text).not.toContain('4 minutes to 40 seconds');
    // The vault's Engram log says who moved what.
    const logDir = path.join(sb.vault, 'Engram/Log');
    const log = fs.readdirSync(logDir).map((f) => fs.readFileSync(path.join(logDir, f), 'utf8')).join('\n');
    expect(log).toMatch(/· mcp · .*moved `Engram\/Inbox\/Use pnpm workspaces\.md` → `Engram\/Archive\/Use pnpm workspaces\.md`/);
    const twice = (await client.callTool({ name: 'forget', arguments: { ref: 'Engram/Inbox/Use pnpm workspaces.md' } })) as TextResult;
    expect(twice.isError).toBe(true);

    const status = (await client.callTool({ name: 'status', arguments: {} })) as TextResult;
    // The remembered note and the archived one (kept for `read`, out of recall); the log note once the watcher sees it.
    expect(Number(/Index: (\d+) notes/.exec(status.content[0].text)?.[1])).toBeGreaterThanOrEqual(2);
  });

  it('records recalled notes in the recall statistics under ENGRAM_HOME, for engram maintain', async () => {
    const before = Date.now();
    const r = (await client.callTool({ name: 'recall', arguments: { query: 'why pnpm workspaces monorepo' } })) as TextResult;
    expect(r.content[0].text).toContain('Use pnpm workspaces');
    const vaults = path.join(sb.engramHome, 'vaults');
    const stats = await waitFor(() => {
      for (const key of fs.readdirSync(vaults)) {
        const file = path.join(vaults, key, 'recall-stats.json');
        if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as { notes: Record<string, { count: number; last: number }> };
      }
      return undefined;
    }, 5000, 'recall-stats.json');
    expect(Object.keys(stats.notes)).toEqual(['Engram/Inbox/Use pnpm workspaces.md']);
    expect(stats.notes['Engram/Inbox/Use pnpm workspaces.md'].count).toBe(1);
    // Stamped with the time of this recall (between the call and now), however long the call took.
    expect(stats.notes['Engram/Inbox/Use pnpm workspaces.md'].last).toBeGreaterThanOrEqual(before);
    expect(stats.notes['Engram/Inbox/Use pnpm workspaces.md'].last).toBeLessThanOrEqual(Date.now());
  });

  it('refuses reads outside the vault and in its config folder', async () => {
    for (const ref of ['../../etc/passwd', '/etc/passwd', '.obsidian/notes.md', '.obsidian/plugins/secret/data.json', 'Engram/../../outside']) {
      const r = (await client.callTool({ name: 'read', arguments: { ref } })) as TextResult;
      expect(r.isError, ref).toBe(true);
      expect(r.content[0].text).not.toContain('sk-secret');
      expect(r.content[0].text).not.toContain('secret config note');
    }
  });

  it('refuses extract outside the transcript folders, including through symlinks and traversal', async () => {
    const outside = path.join(sb.root, 'elsewhere.jsonl');
    fs.writeFileSync(outside, '{}\n');
    const projects = path.join(sb.home, '.claude', 'projects', 'p');
    fs.mkdirSync(projects, { recursive: true });
    fs.symlinkSync(outside, path.join(projects, 'link.jsonl'));
    for (const p of [outside, path.join(projects, 'link.jsonl'), path.join(projects, '..', '..', '..', 'elsewhere.jsonl')]) {
      const r = (await client.callTool({ name: 'extract', arguments: { path: p } })) as TextResult;
      expect(r.isError, p).toBe(true);
    }
    const ok = path.join(projects, 'abc.jsonl');
    fs.writeFileSync(ok, '{"type":"user","message":{"content":"hi"}}\n');
    const r = (await client.callTool({ name: 'extract', arguments: { path: ok } })) as TextResult;
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toMatch(/^Queued .*for extraction/);
  });

  it('extract accepts a folder from transcripts.extra_folders (and extracts from it), still refusing symlinks and traversal out of it', async () => {
    const extra = path.join(sb.root, 'exports', 'agent-logs');
    fs.mkdirSync(extra, { recursive: true });
    const ok = path.join(extra, '11111111-aaaa-4aaa-8aaa-000000000001.jsonl');
    fs.copyFileSync(path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl'), ok);
    const outside = path.join(sb.root, 'exports', 'secret.jsonl');
    fs.writeFileSync(outside, '{"type":"user","message":{"content":"not for you"}}\n');
    fs.symlinkSync(outside, path.join(extra, 'link.jsonl'));

    const before = (await client.callTool({ name: 'extract', arguments: { path: ok } })) as TextResult;
    expect(before.isError).toBe(true);
    expect(before.content[0].text).toMatch(/transcripts\.extra_folders/);

    const set = runCli(['configure', 'transcripts.extra_folders', extra], { env: sb.env });
    expect(set.code, set.stderr).toBe(0);
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(sb.engramHome, 'config.json'), 'utf8')), backend: 'rules' }));
    for (const p of [outside, path.join(extra, 'link.jsonl'), path.join(extra, '..', 'secret.jsonl'), path.join(sb.root, 'exports')]) {
      const r = (await client.callTool({ name: 'extract', arguments: { path: p } })) as TextResult;
      expect(r.isError, p).toBe(true);
    }
    const r = (await client.callTool({ name: 'extract', arguments: { path: ok } })) as TextResult;
    expect(r.isError, r.content[0].text).toBeFalsy();
    expect(r.content[0].text).toMatch(/^Queued .*for extraction/);
    // The host's job runner honours the same folders: the session is extracted.
    const folder = path.join(sb.vault, 'Engram/Projects/acme');
    const filed = () => (fs.existsSync(folder) ? fs.readdirSync(folder).filter((f) => f.endsWith('.md') && fs.readFileSync(path.join(folder, f), 'utf8').includes('We use pnpm workspaces, not npm')) : []);
    await waitFor(() => filed().length > 0, 20_000, 'the extracted note');
    expect(filed()).toEqual(['We use pnpm workspaces, not npm.md']);
  });

  it('lists review and restructure proposals (dry run), reindexes, and refuses an unknown proposal id', async () => {
    const review = (await client.callTool({ name: 'review', arguments: {} })) as TextResult;
    expect(review.isError, review.content[0].text).toBeFalsy();
    expect(review.content[0].text).toMatch(/No working-memory notes are due|due, \d+ proposal/);
    const restructure = (await client.callTool({ name: 'restructure', arguments: {} })) as TextResult;
    expect(restructure.isError, restructure.content[0].text).toBeFalsy();
    const bad = (await client.callTool({ name: 'review', arguments: { apply: 'nope-not-an-id' } })) as TextResult;
    expect(bad.isError).toBe(true);
    const re = (await client.callTool({ name: 'reindex', arguments: {} })) as TextResult;
    expect(re.content[0].text).toBe('Re-indexed 1 notes.');
  });

  it('applies a restructure proposal by id and the vault\'s Engram log names mcp as the actor', async () => {
    sb.writeNote('Notes/Deploy from root.md', '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root directory, never from a package folder.\n');
    sb.writeNote('Notes/Deploy from the root.md', '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root directory, never from a package folder!\n');
    const listed = (await client.callTool({ name: 'restructure', arguments: {} })) as TextResult;
    expect(listed.isError, listed.content[0].text).toBeFalsy();
    const merge = /^- (\w+) · merge · /m.exec(listed.content[0].text)?.[1];
    expect(merge, listed.content[0].text).toBeDefined();
    const applied = (await client.callTool({ name: 'restructure', arguments: { apply: merge! } })) as TextResult;
    expect(applied.isError, applied.content[0].text).toBeFalsy();
    const logDir = path.join(sb.vault, 'Engram/Log');
    const log = fs.readdirSync(logDir).map((f) => fs.readFileSync(path.join(logDir, f), 'utf8')).join('\n');
    const line = log.split('\n').find((l) => l.includes(merge!));
    expect(line, log).toMatch(/^- \S+ · mcp · /);
    expect(log).not.toMatch(/· cli · /);
  });

  it('gives clear tool errors for bad arguments and unsafe configure keys', async () => {
    const bad = (await client.callTool({ name: 'recall', arguments: { query: '' } })) as TextResult;
    expect(bad.isError).toBe(true);
    const wrongType = (await client.callTool({ name: 'remember', arguments: { text: 42 } })) as TextResult;
    expect(wrongType.isError).toBe(true);
    const unsafe = (await client.callTool({ name: 'configure', arguments: { key: 'backend', value: true } })) as TextResult;
    expect(unsafe.isError).toBe(true);
    expect(unsafe.content[0].text).toMatch(/cannot be changed/);
    const safe = (await client.callTool({ name: 'configure', arguments: { key: 'recall.prompt_items', value: 3 } })) as TextResult;
    expect(safe.isError).toBeFalsy();
    const missing = (await client.callTool({ name: 'read', arguments: { ref: 'No such note anywhere' } })) as TextResult;
    expect(missing.isError).toBe(true);
  });
});
