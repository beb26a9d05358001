// The daemon's own composition, run in the test process: real files in a temp vault, the real index, a real Unix
// socket with the token handshake, and the protocol's typed methods answered by the same handler table `engram serve`
// uses. The tests/e2e tier runs it as a real process (kill -9, racing starters, hooks).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostConnection } from '../../sidecar/hosting/connection.js';
import { runHost } from '../../sidecar/host/daemon.js';
import { indexMaker } from '../../sidecar/hosting/wiring.js';
import { vaultState } from '../../sidecar/hosting/paths.js';
import type { RecallResult, StatusResult } from '../../src/core/protocol/index.js';
import type { RestructurePlanResult } from '../../src/core/curate/service.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { configOf } from '../helpers/config-reader.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function setUp(): { vault: string; env: NodeJS.ProcessEnv } {
  const root = makeTempDir('engram-inproc-');
  dirs.push(root);
  const vault = path.join(root, 'vault');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: path.join(root, 'home'), ENGRAM_HOME: path.join(root, 'engram'), XDG_RUNTIME_DIR: path.join(root, 'run'), ENGRAM_VAULT: vault };
  delete env.ENGRAM_NESTED;
  for (const d of [vault, env.HOME!, env.ENGRAM_HOME!, env.XDG_RUNTIME_DIR!]) fs.mkdirSync(d, { recursive: true });
  const note = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
    fs.writeFileSync(path.join(vault, rel), text);
  };
  note('Engram/Inbox/Use pnpm workspaces.md', '---\ntype: decision\nscope: general\nengram_id: e1\nengram_source: hook-extraction\n---\nWe moved the monorepo to pnpm workspaces; installs went from 4 minutes to 40 seconds.\n');
  note('Notes/Deploy from root.md', '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root directory, never from a package folder.\n');
  note('Notes/Deploy from the root.md', '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root directory, never from a package folder!\n');
  return { vault, env };
}

async function connect(socket: string, env: NodeJS.ProcessEnv, client = 'test'): Promise<HostConnection> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await HostConnection.open({ socket, env, deadline: Date.now() + 1000, client });
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('the daemon in process: real files, a real socket, the typed protocol', () => {
  it('answers recall, read, remember, restructure.plan, index.update and status, then hands over on host.release', async () => {
    const { vault, env } = setUp();
    const state = vaultState(vault, env);
    const running = runHost({ vault, foreground: false, env, config: configOf(env), makeIndex: indexMaker(state) });
    const conn = await connect(state.socket, env);
    try {
      const status = (await conn.call('status', {}, Date.now() + 20_000)) as StatusResult;
      expect(status).toMatchObject({ vault: state.vault, host: 'daemon', pid: process.pid });
      const recall = (await conn.call('recall', { query: 'pnpm workspaces installs' }, Date.now() + 20_000)) as RecallResult;
      expect(recall.hits[0].path).toBe('Engram/Inbox/Use pnpm workspaces.md');
      expect(recall.text).toMatch(/<engram-memory[\s\S]*40 seconds[\s\S]*<\/engram-memory>/);
      expect(((await conn.call('read', { ref: 'Use pnpm workspaces' }, Date.now() + 5000)) as { text: string }).text).toContain('4 minutes');
      const saved = (await conn.call('remember', { text: 'The CI cache key includes the lockfile hash.', type: 'insight' }, Date.now() + 5000)) as { path: string };
      // A real file in the vault, searchable at once.
      expect(fs.readFileSync(path.join(vault, saved.path), 'utf8')).toContain('lockfile hash');
      expect(((await conn.call('recall', { query: 'CI cache key lockfile' }, Date.now() + 5000)) as RecallResult).hits[0].path).toBe(saved.path);
      const plan = (await conn.call('restructure.plan', { folder: 'Notes' }, Date.now() + 20_000)) as RestructurePlanResult;
      expect(plan.proposals.map((p) => p.kind)).toContain('merge');
      const index = (await conn.call('index.update', {}, Date.now() + 20_000)) as { notes: number; snapshotBytes: number };
      expect(index.notes).toBe(4);
      expect(fs.statSync(state.snapshot).size).toBe(index.snapshotBytes);
      await expect(conn.call('read', { ref: '../../etc/passwd' }, Date.now() + 5000)).rejects.toThrow(/leave the vault/);
      expect(await conn.call('host.release', {}, Date.now() + 5000)).toEqual({ releasing: true });
    } finally {
      conn.close();
    }
    expect(await running).toMatchObject({ kind: 'exited' });
    // The lock is released and the socket gone: the next client starts a host.
    expect(fs.existsSync(state.lock)).toBe(false);
    expect(fs.existsSync(state.socket)).toBe(false);
  });
  it('follows an edit to config.json without a restart: read-only mode turned on refuses an agent at once', async () => {
    const { vault, env } = setUp();
    const state = vaultState(vault, env);
    const running = runHost({ vault, foreground: false, env, config: configOf(env), makeIndex: indexMaker(state) });
    const file = path.join(env.ENGRAM_HOME!, 'config.json');
    // An agent's connection (the MCP server's): read-only mode refuses its writes.
    const conn = await connect(state.socket, env, 'mcp');
    try {
      expect(await conn.call('remember', { text: 'The staging database is reset every Monday night.', type: 'insight' }, Date.now() + 5000)).toMatchObject({ path: expect.any(String) });
      // The user turns read-only mode on (as `engram configure` writes it) while the host runs.
      fs.writeFileSync(file, JSON.stringify({ version: 1, recall: { read_only: true } }));
      await expect(conn.call('remember', { text: 'The release branch is cut on Thursdays.', type: 'insight' }, Date.now() + 5000)).rejects.toThrow(/read-only for agents/);
      expect((await conn.call('recall', { query: 'staging database reset' }, Date.now() + 5000)).hits.length).toBeGreaterThan(0);
      // And off again: the next write goes through, the same host.
      fs.writeFileSync(file, JSON.stringify({ version: 1, recall: { read_only: false } }));
      expect(await conn.call('remember', { text: 'The release branch is cut on Thursdays.', type: 'insight' }, Date.now() + 5000)).toMatchObject({ path: expect.any(String) });
      expect(await conn.call('host.release', {}, Date.now() + 5000)).toEqual({ releasing: true });
    } finally {
      conn.close();
    }
    expect(await running).toMatchObject({ kind: 'exited' });
  });
});
