// How long a host's engine takes to be ready on the largest corpus vault (13,415 notes), each start in a fresh Node
// process (nothing warm from the run before): the index build alone (VaultIndex.open with no snapshot, the floor a
// first start cannot beat), a first start (no snapshot, no note cache), then restarts from the index snapshot and the
// engine's note cache, which read only the notes that changed. The engine reads each note once: on a first start it
// takes the text the index read on its way up (before, it read every note a second time: about 2× the build).
import { execFileSync } from 'node:child_process';
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

/** One start in this process: prints `{ ms, cpuMs, notes, reads, saveMs }` as JSON on its last line. */
async function oneStart(what: 'build' | 'engine', home: string): Promise<void> {
  const { Engine, IndexedVault } = await import('../src/core/engine.js');
  const { VaultIndex } = await import('../src/core/index/vault-index.js');
  const { NodeStateStore } = await import('../sidecar/hosting/node-state-store.js');
  const { NodeVault } = await import('../sidecar/hosting/node-vault.js');
  const snapFile = path.join(home, 'snapshot');
  // Counts the file reads: a first start should read each note once.
  const vault = new NodeVault(root!);
  let reads = 0;
  const read = vault.read.bind(vault);
  vault.read = (p: string) => (reads++, read(p));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const cpu = () => {
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  };
  if (what === 'build') {
    const index = new VaultIndex({ vault });
    await index.open(null);
    console.log(JSON.stringify({ ms: performance.now() - t0, cpuMs: cpu(), notes: index.stats().notes, reads, saveMs: 0 }));
    return;
  }
  const ports = { vault, clock: { now: () => Date.now() }, yieldNow: () => new Promise<void>((r) => setImmediate(r)) };
  const snapshot = {
    read: async () => (fs.existsSync(snapFile) ? new Uint8Array(fs.readFileSync(snapFile)) : null),
    write: async (b: Uint8Array) => fs.writeFileSync(snapFile, b),
  };
  const engine = new Engine({ ports, index: new IndexedVault(new VaultIndex({ vault }), { snapshot }), persist: { store: new NodeStateStore(home), dir: 'vaults/bench' } });
  await engine.start();
  const ms = performance.now() - t0;
  const cpuMs = cpu();
  const t1 = performance.now();
  await engine.save();
  console.log(JSON.stringify({ ms, cpuMs, notes: engine.noteCount(), reads, saveMs: performance.now() - t1 }));
}

interface StartFigures {
  /** Wall time to ready, and the process's CPU time (user + system) meanwhile: the steadier on a shared machine. */
  ms: number;
  cpuMs: number;
  notes: number;
  reads: number;
  saveMs: number;
}

function inFreshProcess(what: 'build' | 'engine', home: string): StartFigures {
  const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, 'child', what, home], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop()!) as StartFigures;
}

export async function run(): Promise<void> {
  if (!root) {
    console.log('  skipped: the shared corpus (../shared/corpus/vaults) is not here');
    return;
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-start-'));
  try {
    // The build and the first start in turns, three times, the best of each kept: on a shared machine one run is noise.
    let build: StartFigures = { ms: Infinity, cpuMs: Infinity, notes: 0, reads: 0, saveMs: 0 };
    let first = build;
    for (let i = 0; i < 3; i++) {
      fs.rmSync(path.join(home, 'snapshot'), { force: true });
      fs.rmSync(path.join(home, 'vaults'), { recursive: true, force: true });
      const b = inFreshProcess('build', home);
      const f = inFreshProcess('engine', home);
      if (b.cpuMs < build.cpuMs) build = b;
      if (f.cpuMs < first.cpuMs) first = f;
    }
    const cacheSize = () => (fs.statSync(path.join(home, 'vaults', 'bench', 'notes.json')).size / 1e6).toFixed(1);
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(`  index build alone: ${s(build.ms)}, CPU ${s(build.cpuMs)} (${build.notes} notes, ${build.reads} file reads; best of 3 by CPU)`);
    console.log(`  first start (no snapshot, no note cache): ready in ${s(first.ms)}, CPU ${s(first.cpuMs)} (${first.notes} notes, ${first.reads} file reads; best of 3 by CPU): ${(first.cpuMs / build.cpuMs).toFixed(2)}× the index build's CPU, ${(first.ms / build.ms).toFixed(2)}× its wall time; save ${s(first.saveMs)}, note cache ${cacheSize()} MB`);
    for (const label of ['restart (snapshot + note cache)', 'restart again']) {
      const r = inFreshProcess('engine', home);
      console.log(`  ${label}: ready in ${s(r.ms)}, CPU ${s(r.cpuMs)} (${r.notes} notes, ${r.reads} file reads); save ${s(r.saveMs)}, note cache ${cacheSize()} MB`);
    }
    console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores (shared machine: read the ratios)`);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') await oneStart(process.argv[3] as 'build' | 'engine', process.argv[4]);
