// One road for a query: `engram search` (with a live host and without one), the host's recall (what MCP `recall`
// calls) and the UserPromptSubmit hook answer the same query and filters with the same notes, archive left out.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostConnection } from '../../sidecar/hosting/connection.js';
import { vaultState } from '../../sidecar/hosting/paths.js';
import type { RecallResult } from '../../src/core/protocol/messages.js';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';

type SearchOut = { hits: { path: string; why: string[] }[]; mode: string; answeredBy: 'host' | 'here' };
type HookOut = { hookSpecificOutput: { additionalContext: string } };

const QUERY = 'why does the monorepo use pnpm workspaces';

describe('one road for a query', () => {
  let sb: Sandbox;
  let cwd: string;
  beforeEach(() => {
    sb = makeSandbox();
    cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    sb.writeNote('Engram/Projects/acme/Use pnpm workspaces.md', '---\ntype: decision\nproject: acme\nsummary: The acme monorepo uses pnpm workspaces because npm installs took four minutes\n---\nWe moved the monorepo to pnpm workspaces.\n');
    sb.writeNote('Engram/Projects/acme/Pnpm lockfile.md', '---\ntype: insight\nproject: acme\n---\nThe monorepo pnpm workspaces lockfile must be committed.\n');
    sb.writeNote('Engram/Projects/other/Pnpm there.md', '---\ntype: decision\nproject: other\n---\nThe other monorepo uses pnpm workspaces too.\n');
    sb.writeNote('Engram/Inbox/Pnpm general.md', '---\ntype: insight\nscope: general\nproject: tools\n---\nWhy a monorepo wants pnpm workspaces: strict node_modules.\n');
    sb.writeNote('Notes/Pnpm reading.md', '# Reading\nAn article on why the monorepo world moved to pnpm workspaces.\n');
    sb.writeNote('Engram/Archive/Old pnpm decision.md', '---\ntype: decision\nproject: acme\n---\nWhy the monorepo once rejected pnpm workspaces.\n');
    for (let i = 0; i < 8; i++) sb.writeNote(`Notes/Filler ${i}.md`, `# Filler ${i}\nGardening, bread, bicycles and taxes ${i}.\n`);
  });
  afterEach(async () => sb.cleanup());

  const search = (by: 'host' | 'here'): string[] => {
    const r = runCli(['search', QUERY, '--project', 'acme', '-n', '8', '--json'], { env: sb.env, cwd });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as SearchOut;
    expect(out.answeredBy).toBe(by);
    return out.hits.map((h) => h.path);
  };

  it('search with and without a host, recall and the hook agree; the archive and other projects stay out', async () => {
    const here = search('here');
    expect(here).toEqual(expect.arrayContaining(['Engram/Projects/acme/Use pnpm workspaces.md', 'Engram/Projects/acme/Pnpm lockfile.md', 'Engram/Inbox/Pnpm general.md', 'Notes/Pnpm reading.md']));
    expect(here).not.toContain('Engram/Archive/Old pnpm decision.md');
    expect(here).not.toContain('Engram/Projects/other/Pnpm there.md');

    sb.serve();
    const snapshot = await waitFor(() => {
      const dir = path.join(sb.engramHome, 'vaults');
      const file = fs.existsSync(dir) ? fs.readdirSync(dir).map((k) => path.join(dir, k, 'snapshot')).find((f) => fs.existsSync(f)) : undefined;
      const r = runCli(['status', '--json'], { env: sb.env });
      return file && r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready && file;
    }, 15_000, 'a ready host with its snapshot');
    // The host owns the index now: a search must neither build a second one nor write the host's snapshot.
    fs.rmSync(snapshot);
    expect(search('host')).toEqual(here);
    expect(fs.existsSync(snapshot)).toBe(false);

    const conn = await HostConnection.open({ socket: vaultState(sb.vault, sb.env).socket, env: sb.env, deadline: Date.now() + 10_000, client: 'test' });
    try {
      const recall = (await conn.call('recall', { query: QUERY, project: 'acme', limit: 8 }, Date.now() + 10_000)) as RecallResult;
      expect(recall.hits.map((h) => h.path)).toEqual(here);
    } finally {
      conn.close();
    }

    const out = runCli(['hook', 'UserPromptSubmit'], { env: sb.env, input: JSON.stringify({ session_id: 'one-road', cwd, prompt: QUERY }) }).stdout;
    const ctx = (JSON.parse(out) as HookOut).hookSpecificOutput.additionalContext;
    const injected = [...ctx.matchAll(/^- \[\[([^|\]]+)\|/gm)].map((m) => `${m[1]}.md`);
    expect(injected.length).toBeGreaterThan(0);
    // The hook shows the notes that clear its relevance bar, in the order search ranks them.
    expect(injected).toEqual(here.filter((p) => injected.includes(p)));
    expect(injected).not.toContain('Engram/Archive/Old pnpm decision.md');
  });

  it('asked for the archive folder, search shows archived notes (as recall does)', () => {
    const r = runCli(['search', 'pnpm', '--folder', 'Engram/Archive', '--json'], { env: sb.env, cwd });
    expect((JSON.parse(r.stdout) as SearchOut).hits.map((h) => h.path)).toEqual(['Engram/Archive/Old pnpm decision.md']);
  });
});
