// @vitest-environment happy-dom
// The plugin as a host, from its source, over obsidian-test-mocks with a vault backed by a real folder: nothing happens
// before the layout is ready; then it binds the vault's socket and answers a real client; vault events feed the index;
// writes go through Obsidian's API; unload saves and releases everything; a daemon hands over to it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import EngramPlugin from '../../src/plugin/main';
import { migrateSettings, SETTINGS_VERSION } from '../../src/plugin/settings';
import { HostConnection } from '../../sidecar/hosting/connection';
import { vaultState } from '../../sidecar/hosting/paths';
import { readLock } from '../../sidecar/hosting/election';
import { runHost } from '../../sidecar/host/daemon';
import type { RecallResult, StatusResult } from '../../src/core/protocol/index';
import { pluginApp } from '../helpers/plugin-app';
import { makeTempDir, removeDir } from '../helpers/temp';
import { configOf } from '../helpers/config-reader';

const NOTES = {
  'Engram/Inbox/Use pnpm workspaces.md': '---\ntype: decision\nscope: general\nengram_id: e1\n---\nWe moved the monorepo to pnpm workspaces; installs went from 4 minutes to 40 seconds.\n',
  'Notes/Deploy.md': '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root.\n',
};

let root: string;
const saved = { ...process.env };

beforeEach(() => {
  root = makeTempDir('engram-plugin-');
  // The plugin reads its environment from the process (it is Obsidian's): point it into the sandbox.
  process.env.ENGRAM_HOME = path.join(root, 'engram');
  process.env.XDG_RUNTIME_DIR = path.join(root, 'run');
  process.env.HOME = path.join(root, 'home');
  for (const d of [process.env.ENGRAM_HOME, process.env.XDG_RUNTIME_DIR, process.env.HOME]) fs.mkdirSync(d, { recursive: true });
});

afterEach(() => {
  for (const k of ['ENGRAM_HOME', 'XDG_RUNTIME_DIR', 'HOME']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  removeDir(root);
});

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function statusBar(plugin: EngramPlugin): HTMLElement {
  return (plugin as unknown as { statusEl: HTMLElement }).statusEl;
}

async function client(vault: string): Promise<HostConnection> {
  const state = vaultState(vault, process.env);
  return HostConnection.open({ socket: state.socket, env: process.env, deadline: Date.now() + 5000, client: 'test' });
}

describe('the plugin hosts the vault while Obsidian is open', () => {
  it('waits for the layout, hosts, follows vault events, writes through Obsidian, and releases on unload', async () => {
    const { app, folder, manifest, layoutReady } = pluginApp(root, NOTES);
    const plugin = new EngramPlugin(app, manifest);
    await plugin.onload();
    const state = vaultState(folder.root, process.env);
    // onload only reads settings and draws the status bar: no index, no socket before the workspace is ready.
    expect(statusBar(plugin).textContent).toBe('Engram: starting');
    expect(fs.existsSync(state.lock)).toBe(false);

    layoutReady();
    await until('the plugin to host', () => plugin.engramHost?.engine?.ready);
    expect(readLock(state.lock)).toMatchObject({ host: 'plugin', pid: process.pid });
    expect(plugin.settings.engramHome).toBe(process.env.ENGRAM_HOME);
    await until('the status bar', () => statusBar(plugin).getAttribute('aria-label')?.includes('2 notes indexed'));

    const conn = await client(folder.root);
    try {
      expect(conn.hello).toMatchObject({ host: 'plugin', vault: state.vault });
      const status = (await conn.call('status', {}, Date.now() + 5000)) as StatusResult;
      expect(status.host).toBe('plugin');
      expect(status.idleExitMs).toBeUndefined();
      const recall = (await conn.call('recall', { query: 'pnpm workspaces installs' }, Date.now() + 5000)) as RecallResult;
      expect(recall.hits[0].path).toBe('Engram/Inbox/Use pnpm workspaces.md');

      // An edit made in Obsidian (or by sync) reaches the index through the vault's events.
      await folder.userWrite('Notes/Flaky test.md', 'The checkout test is flaky because of a shared temp folder.\n');
      await until('the new note in recall', async () => ((await conn.call('recall', { query: 'flaky checkout test temp folder' }, Date.now() + 5000)) as RecallResult).hits.some((h) => h.path === 'Notes/Flaky test.md'));

      // A note an agent files goes through Vault.create, so open editors and sync see it.
      const create = vi.spyOn(folder.vault, 'create');
      const made = (await conn.call('remember', { text: 'The CI cache key includes the lockfile hash.', type: 'insight' }, Date.now() + 5000)) as { path: string };
      expect(create).toHaveBeenCalledWith(made.path, expect.stringContaining('lockfile hash'));
      expect(fs.readFileSync(path.join(folder.root, made.path), 'utf8')).toContain('lockfile hash');
    } finally {
      conn.close();
    }

    plugin.onunload();
    await plugin.unloaded;
    // Saved and released: the snapshot is on disk, the lock and the socket are gone, so the next hook starts a daemon.
    expect(fs.existsSync(state.snapshot)).toBe(true);
    expect(fs.existsSync(state.lock)).toBe(false);
    expect(fs.existsSync(state.socket)).toBe(false);
    expect(statusBar(plugin).textContent).toBe('Engram: off');
    await expect(client(folder.root)).rejects.toThrow();
  });

  it('a click on the status bar opens the review pane, revealed (even in a collapsed sidebar or a background tab)', async () => {
    const { app, manifest } = pluginApp(root, NOTES);
    const plugin = new EngramPlugin(app, manifest);
    await plugin.onload();
    const reveal = vi.spyOn(app.workspace, 'revealLeaf');
    expect(app.workspace.getLeavesOfType('engram-review')).toHaveLength(0);
    statusBar(plugin).click();
    await until('the review pane', () => app.workspace.getLeavesOfType('engram-review')[0]);
    const leaf = app.workspace.getLeavesOfType('engram-review')[0];
    await until('the pane revealed', () => reveal.mock.calls.some(([l]) => l === leaf));
    // A second click reveals the same pane, never a second one.
    statusBar(plugin).click();
    await until('revealed again', () => reveal.mock.calls.filter(([l]) => l === leaf).length === 2);
    expect(app.workspace.getLeavesOfType('engram-review')).toHaveLength(1);
    plugin.onunload();
    await plugin.unloaded;
  });

  it('takes over from a daemon that hosts the vault, which saves and exits', async () => {
    const { app, folder, manifest, layoutReady } = pluginApp(root, NOTES);
    const state = vaultState(folder.root, process.env);
    const daemon = runHost({ vault: folder.root, foreground: false, env: { ...process.env }, config: configOf(process.env) });
    await until('the daemon', () => readLock(state.lock)?.host === 'daemon');
    await until('the daemon to answer', () => client(folder.root).then((c) => (c.close(), true), () => false));

    const plugin = new EngramPlugin(app, manifest);
    await plugin.onload();
    layoutReady();
    expect(await daemon).toEqual({ kind: 'exited', reason: 'handover requested' });
    await until('the plugin to host', () => readLock(state.lock)?.host === 'plugin');
    const conn = await until('the plugin to answer', () => client(folder.root).catch(() => undefined));
    expect(conn.hello.host).toBe('plugin');
    conn.close();
    plugin.onunload();
    await plugin.unloaded;
    expect(fs.existsSync(state.lock)).toBe(false);
  });
});

describe('plugin settings', () => {
  it('fills defaults, keeps known values, drops unknown keys', () => {
    expect(migrateSettings(null)).toEqual({ version: SETTINGS_VERSION, engramHome: '', nodePath: '', cliPath: '' });
    expect(migrateSettings({ engramHome: ' /home/me/.engram ', surprise: 1 })).toEqual({ version: SETTINGS_VERSION, engramHome: '/home/me/.engram', nodePath: '', cliPath: '' });
    expect(migrateSettings({ node: '/usr/bin/node', cli: '/opt/engram/dist/engram.mjs' })).toMatchObject({ nodePath: '/usr/bin/node', cliPath: '/opt/engram/dist/engram.mjs' });
  });
});
