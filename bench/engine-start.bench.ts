// How long a host's engine takes to be ready on the largest corpus vault (13,415 notes): a first start (no snapshot,
// no note cache: every note read), then restarts from the index snapshot and the engine's note cache, which read only
// the notes that changed. Before the note cache a restart read every note again (about 6 s here).
import fs from 'node:fs';
import { register } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

// The engine's extraction side imports its prompt files (.md) as text: the loader must be in place before the engine
// is imported, so the engine comes in by dynamic import below (a static import would be loaded first and fail with
// "Unknown file extension .md").
register('./md-text-loader.mjs', import.meta.url);

const root = [path.join('..', 'shared'), path.join('..', '..', 'shared')]
  .map((d) => path.resolve(import.meta.dirname, '..', d, 'corpus', 'vaults', 'digitalyoshixi-zettelkasten'))
  .find((d) => fs.existsSync(d));

export async function run(): Promise<void> {
  if (!root) {
    console.log('  skipped: the shared corpus (../shared/corpus/vaults) is not here');
    return;
  }
  const { Engine, IndexedVault } = await import('../src/core/engine.js');
  const { VaultIndex } = await import('../src/core/index/vault-index.js');
  const { NodeStateStore } = await import('../sidecar/hosting/node-state-store.js');
  const { NodeVault } = await import('../sidecar/hosting/node-vault.js');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-start-'));
  const snapFile = path.join(home, 'snapshot');
  const vault = new NodeVault(root);
  const ports = { vault, clock: { now: () => Date.now() }, yieldNow: () => new Promise<void>((r) => setImmediate(r)) };
  const persist = { store: new NodeStateStore(home), dir: 'vaults/bench' };
  const snapshot = {
    read: async () => (fs.existsSync(snapFile) ? new Uint8Array(fs.readFileSync(snapFile)) : null),
    write: async (b: Uint8Array) => fs.writeFileSync(snapFile, b),
  };
  try {
    for (const label of ['first start (no snapshot, no note cache)', 'restart (snapshot + note cache)', 'restart again']) {
      const t0 = performance.now();
      const engine = new Engine({ ports, index: new IndexedVault(new VaultIndex({ vault }), { snapshot }), persist });
      await engine.start();
      const ready = performance.now() - t0;
      const t1 = performance.now();
      await engine.save();
      const saved = performance.now() - t1;
      const cache = fs.statSync(path.join(home, 'vaults', 'bench', 'notes.json')).size;
      console.log(`  ${label}: ready in ${(ready / 1000).toFixed(2)} s (${engine.noteCount()} notes); save ${(saved / 1000).toFixed(2)} s, note cache ${(cache / 1e6).toFixed(1)} MB`);
    }
    console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores (shared machine: read the ratios)`);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
