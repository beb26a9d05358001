// @vitest-environment happy-dom
// The built main.js, as Obsidian loads it: a CommonJS module that may require only 'obsidian' while it loads (a plugin
// that requires Node built-ins or onnxruntime at load time breaks Obsidian, and mobile review). onload is quick; the
// Node side loads after the layout is ready; onunload leaves no timer, socket, lock or listener behind.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vaultState } from '../../sidecar/hosting/paths';
import { readLock } from '../../sidecar/hosting/election';
import { pluginApp } from '../helpers/plugin-app';
import { makeTempDir, removeDir } from '../helpers/temp';
import { builtins, loadBundle } from '../helpers/plugin-bundle';
import { repoRoot as repo } from '../helpers/shared';
import { makeTinyModel } from '../helpers/tiny-model';
import { alive } from '../helpers/host';

let root: string;
const saved = { ...process.env };
beforeEach(() => {
  root = makeTempDir('engram-bundle-');
  process.env.ENGRAM_HOME = path.join(root, 'engram');
  process.env.XDG_RUNTIME_DIR = path.join(root, 'run');
  for (const d of [process.env.ENGRAM_HOME, process.env.XDG_RUNTIME_DIR]) fs.mkdirSync(d, { recursive: true });
});
afterEach(() => {
  for (const k of ['ENGRAM_HOME', 'XDG_RUNTIME_DIR']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  removeDir(root);
});

async function until<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the built plugin (main.js)', () => {
  it('loads with only obsidian, onload returns before any hosting, hosts after layout ready, and unload leaves nothing', async () => {
    const bundle = loadBundle();
    expect([...new Set(bundle.atLoad)]).toEqual(['obsidian']);
    const { app, folder, manifest, layoutReady } = pluginApp(root, { 'Notes/Deploy.md': 'The deploy script must run from the repository root.\n' });
    // A model and the built CLI: the plugin starts its embedding child, which unload must stop.
    const model = makeTinyModel(path.join(root, 'model'));
    fs.writeFileSync(path.join(process.env.ENGRAM_HOME!, 'config.json'), JSON.stringify({ version: 1, embedding: { model_id: 'engram-tiny', model_path: model.dir } }));
    const plugin = new bundle.Plugin(app, manifest);
    (plugin as unknown as { data__: unknown }).data__ = { nodePath: process.execPath, cliPath: path.join(repo, 'dist', 'engram.mjs') };
    // How long onload takes is a figure (`npm run bench -- plugin-host`); here: it does no hosting work.
    await plugin.onload();
    // Nothing Node-side before the layout is ready.
    expect(bundle.later).toEqual([]);
    const listeners = () => [folder.vault, folder.metadataCache].map((e) => Object.values((e as unknown as { _: Record<string, unknown[]> })._).flat().length);
    const before = listeners();

    layoutReady();
    await until('hosting', () => plugin.engramHost?.engine?.ready);
    const state = vaultState(folder.root, process.env);
    expect(readLock(state.lock)?.host).toBe('plugin');
    // Node built-ins only (never onnxruntime or transformers.js: embeddings run in a child).
    expect(bundle.later.every((m) => builtins.has(m))).toBe(true);
    expect(listeners()[0]).toBeGreaterThan(before[0]);
    const child = await until('the embedding child', () => plugin.engramHost?.embeddings?.pid);
    expect(alive(child)).toBe(true);

    plugin.onunload();
    await plugin.unloaded;
    expect(bundle.timers.pending()).toEqual([]);
    expect(fs.existsSync(state.lock)).toBe(false);
    expect(fs.existsSync(state.socket)).toBe(false);
    expect(listeners()).toEqual(before);
    expect(alive(child)).toBe(false);
  });

  it('keeps saved settings over the defaults', async () => {
    const { Plugin } = loadBundle();
    const { app, manifest } = pluginApp(root, {});
    const plugin = new Plugin(app, manifest);
    (plugin as unknown as { data__: unknown }).data__ = { engramHome: '/home/me/.engram' };
    await plugin.onload();
    expect(plugin.settings).toMatchObject({ engramHome: '/home/me/.engram', nodePath: '', cliPath: '' });
    plugin.onunload();
    await plugin.unloaded;
  });

  it('has a manifest the community directory accepts', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repo, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.id).toBe('engram');
    expect(manifest.isDesktopOnly).toBe(true);
    const description = String(manifest.description);
    expect(description.length).toBeLessThanOrEqual(250);
    expect(description.endsWith('.')).toBe(true);
    const versions = JSON.parse(fs.readFileSync(path.join(repo, 'versions.json'), 'utf8')) as Record<string, string>;
    expect(versions[String(manifest.version)]).toBe(manifest.minAppVersion);
  });
});
