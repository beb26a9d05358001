// recall with synthesize: the configured backend (a fake `claude`) answers from the recalled notes, fenced.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';
import { installFakeClaude } from '../helpers/fake-claude.js';

describe('MCP recall synthesis', () => {
  let sb: Sandbox;
  let client: Client;
  beforeEach(async () => {
    sb = makeSandbox();
    sb.writeNote('Engram/Inbox/Use pnpm workspaces.md', '---\ntype: decision\nscope: general\n---\nWe moved the monorepo to pnpm workspaces: installs went from 4 minutes to 40 seconds.\n');
    const fake = installFakeClaude(path.join(sb.root, 'fake'), [{ reply: 'The monorepo uses pnpm workspaces because installs were ten times faster [[Use pnpm workspaces]].' }]);
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'claude' }));
    client = new Client({ name: 'vitest', version: '0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp'], env: { ...sb.env, ...fake.env } as Record<string, string>, cwd: sb.root, stderr: 'pipe' }));
  });
  afterEach(async () => {
    await client.close().catch(() => undefined);
    await sb.cleanup();
  });

  it('adds a fenced answer from the configured backend only when asked', async () => {
    const plain = (await client.callTool({ name: 'recall', arguments: { query: 'why pnpm workspaces' } })) as { content: { text: string }[] };
    expect(plain.content[0].text).not.toContain('Synthesis');
    const r = (await client.callTool({ name: 'recall', arguments: { query: 'why pnpm workspaces', synthesize: true } })) as { content: { text: string }[]; isError?: boolean };
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toMatch(/Synthesis by claude[\s\S]*ten times faster[\s\S]*<\/engram-memory>$/);
  });
});
