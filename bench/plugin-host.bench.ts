// The plugin as host on the largest corpus vault (13,415 notes), in Node: the built main.js over the mocks' app with
// the vault in a real folder (as tests/e2e/plugin-handover.test.ts runs it). Figures: onload; the first index (total,
// the longest the event loop was blocked, heap); a restart from the snapshot; handover daemon → plugin and back.
// Obsidian's renderer is Chromium: `npm run bench -- plugin-index` measures the engine's tasks there.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { GlobalRegistrator } from '@happy-dom/global-registrator';
import { vaultState } from '../sidecar/hosting/paths.js';
import { readLock } from '../sidecar/hosting/election.js';

const corpus = [path.join('..', 'shared'), path.join('..', '..', 'shared')]
  .map((d) => path.resolve(import.meta.dirname, '..', d, 'corpus', 'vaults', 'digitalyoshixi-zettelkasten'))
  .find((d) => fs.existsSync(d));
const cli = path.resolve(import.meta.dirname, '..', 'dist', 'engram.mjs');

async function until(what: string, probe: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

export async function run(): Promise<void> {
  if (!corpus) {
    console.log('  skipped: the shared corpus (../shared/corpus/vaults) is not here');
    return;
  }
  if (!fs.existsSync(path.resolve(import.meta.dirname, '..', 'main.js')) || !fs.existsSync(cli)) {
    console.log('  skipped: build first (npm run build)');
    return;
  }
  GlobalRegistrator.register();
  const { loadBundle } = await import('../tests/helpers/plugin-bundle.js');
  const { pluginApp } = await import('../tests/helpers/plugin-app.js');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-plugin-'));
  const env = { ...process.env, HOME: path.join(root, 'home'), ENGRAM_HOME: path.join(root, 'engram'), XDG_RUNTIME_DIR: path.join(root, 'run') };
  for (const d of [env.HOME, env.ENGRAM_HOME, env.XDG_RUNTIME_DIR]) fs.mkdirSync(d, { recursive: true });
  Object.assign(process.env, { HOME: env.HOME, ENGRAM_HOME: env.ENGRAM_HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR });
  fs.cpSync(corpus, path.join(root, 'vault'), { recursive: true });
  const children: ChildProcess[] = [];
  try {
    const bundle = loadBundle();
    const { app, folder, manifest, layoutReady } = pluginApp(root, {});
    const state = vaultState(folder.root, env);
    const open = async () => {
      const plugin = new bundle.Plugin(app, manifest);
      const t0 = performance.now();
      await plugin.onload();
      return { plugin, onloadMs: performance.now() - t0 };
    };

    // First index, from scratch.
    const first = await open();
    const lag = monitorEventLoopDelay({ resolution: 5 });
    global.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    lag.enable();
    let t0 = performance.now();
    layoutReady();
    await until('the first index', () => Boolean(first.plugin.engramHost?.engine?.ready));
    const firstMs = performance.now() - t0;
    lag.disable();
    global.gc?.();
    const heap = process.memoryUsage().heapUsed - heap0;
    console.log(`  onload: ${first.onloadMs.toFixed(1)} ms`);
    console.log(`  first index of ${first.plugin.engramHost?.engine?.noteCount()} notes: ${(firstMs / 1000).toFixed(1)} s; event loop blocked at most ${(lag.max / 1e6).toFixed(0)} ms (p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms); heap +${mb(heap)}`);
    // The snapshot is saved right after the first index; wait for it, then unload.
    await until('the snapshot', () => fs.existsSync(state.snapshot));
    first.plugin.onunload();
    await first.plugin.unloaded;

    // Restart: the snapshot and the note cache (the layout is ready already: hosting starts from onload).
    lag.reset();
    lag.enable();
    t0 = performance.now();
    const second = await open();
    await until('the restart', () => Boolean(second.plugin.engramHost?.engine?.ready));
    const restartMs = performance.now() - t0;
    lag.disable();
    console.log(`  restart from the snapshot (${mb(fs.statSync(state.snapshot).size)}): ready in ${restartMs.toFixed(0)} ms; event loop blocked at most ${(lag.max / 1e6).toFixed(0)} ms`);
    second.plugin.onunload();
    await second.plugin.unloaded;

    // Handover: a daemon hosts; the plugin opens and takes over.
    const daemon = spawn(process.execPath, [cli, 'serve', '--foreground', '--vault', folder.root], { env, stdio: 'ignore' });
    children.push(daemon);
    await until('the daemon', () => readLock(state.lock)?.pid === daemon.pid && fs.existsSync(state.socket));
    t0 = performance.now();
    const third = await open();
    await until('the plugin to host', () => readLock(state.lock)?.host === 'plugin' && fs.existsSync(state.socket));
    const toPlugin = performance.now() - t0;
    await until('the plugin index', () => Boolean(third.plugin.engramHost?.engine?.ready));
    // And back: the plugin unloads; the next hook starts a daemon.
    t0 = performance.now();
    third.plugin.onunload();
    await third.plugin.unloaded;
    const hook = spawn(process.execPath, [cli, 'hook', 'UserPromptSubmit'], { env: { ...env, ENGRAM_VAULT: folder.root }, stdio: ['pipe', 'ignore', 'ignore'] });
    hook.stdin.end(JSON.stringify({ session_id: 'bench', cwd: root, hook_event_name: 'UserPromptSubmit', prompt: 'hello' }));
    await until('a daemon again', () => readLock(state.lock)?.host === 'daemon' && fs.existsSync(state.socket));
    const toDaemon = performance.now() - t0;
    console.log(`  handover daemon → plugin: ${toPlugin.toFixed(0)} ms (socket bound); plugin → daemon (unload, then the next hook starts one): ${toDaemon.toFixed(0)} ms`);
    const stop = spawn(process.execPath, [cli, 'serve', '--stop', '--vault', folder.root], { env, stdio: 'ignore' });
    await new Promise((r) => stop.on('exit', r));
  } finally {
    for (const c of children) c.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
    await GlobalRegistrator.unregister();
  }
}
