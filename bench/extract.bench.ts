// Extraction: throughput with a scripted backend (notes/s, real NodeVault on disk) and the per-run overhead
// outside the LLM call for a 3 MB real transcript (read + parse + window + prompt + validate + write + ledger).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { register } from 'node:module';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../sidecar/hosting/config-file.js';

register('./md-text-loader.mjs', import.meta.url);

const transcript = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus', 'transcripts', 'marot-spotter', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl');

export async function run(): Promise<void> {
  const { extractSession } = await import('../src/core/extract/extract.js');
  const { MemoryStateStore } = await import('../src/core/extract/state-store.js');
  const { NodeVault } = await import('../sidecar/hosting/node-vault.js');
  const { extractTranscript } = await import('../sidecar/hosting/extract-runner.js');
  const { hostFacts } = await import('../sidecar/hosting/facts.js');
  const { vaultKey } = await import('../src/core/state.js');
  const { ScriptedBackend, beatsFor } = await import('../tests/helpers/extract.js');
  const { systemClock } = await import('../src/core/ports.js');

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-extract-'));
  try {
    // 1. Throughput: 40 windows × 5 beats, each beat a distinct fact, written to a real vault folder.
    // Distinct facts: each sentence draws 12 words from a 400-word vocabulary (templated text would trip dedup).
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    const vocab = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}${'xyzqv'[i % 5]}term`);
    const texts: ['user' | 'assistant', string][] = [];
    for (let i = 0; i < 200; i++) {
      const words = Array.from({ length: 12 }, () => vocab[Math.floor(rand() * vocab.length)]).join(' ');
      texts.push(['user', `We decided that ${words} from now on.`]);
      texts.push(['assistant', `Noted, configured item ${i}. `.repeat(40)]);
    }
    const session = { meta: { sessionId: 'bench', agent: 'claude-code' as const, project: 'bench' }, turns: texts.map(([role, text], index) => ({ index, role, text, uuid: `b${index}`, offset: index, tools: [], errors: [], sidechain: false })) };
    const vaultDir = path.join(tmp, 'vault');
    fs.mkdirSync(vaultDir);
    const { MemoryVault } = await import('../src/core/ports/memory-vault.js');
    for (const [label, vault] of [['NodeVault on disk, fsync per note', new NodeVault(vaultDir)], ['MemoryVault', new MemoryVault()]] as const) {
      const backend = new ScriptedBackend((req) => beatsFor(req), 'claude', false, 0);
      const t0 = performance.now();
      const r = await extractSession({ ports: { vault, clock: systemClock }, state: new MemoryStateStore(), vaultDir: 'vaults/b', backend, session, window: { budgetTokens: 3_000 } });
      const secs = (performance.now() - t0) / 1000;
      const notes = r.beats.created + r.beats.extended;
      console.log(`  throughput (scripted backend, ${label}): ${notes} notes from ${r.windows.total} windows in ${(secs * 1000).toFixed(0)} ms = ${(notes / secs).toFixed(0)} notes/s (${r.beats.duplicates} dup-skipped, ${r.proposals.length} proposals)`);
    }

    // 2. Per-run overhead outside the LLM call, 3 MB real transcript.
    if (!fs.existsSync(transcript)) {
      console.log(`  overhead: skipped (${transcript} not found: ../shared/corpus absent)`);
      return;
    }
    const size = fs.statSync(transcript).size;
    const { readTranscriptFile } = await import('../sidecar/hosting/extract-runner.js');
    const parseMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const p0 = performance.now();
      await readTranscriptFile(transcript);
      parseMs.push(performance.now() - p0);
    }
    console.log(`  of which reading + parsing the ${(size / 1e6).toFixed(1)} MB file alone: ${parseMs.map((x) => x.toFixed(0)).join(' / ')} ms`);
    for (let rep = 0; rep < 5; rep++) {
      const v = path.join(tmp, `v${rep}`);
      fs.mkdirSync(v);
      const facts = hostFacts({ ...process.env, ENGRAM_HOME: path.join(tmp, `h${rep}`), ENGRAM_FAULT: '' });
      const ctx = { facts, config: loadConfig(facts).config, vaultRoot: v, vaultKey: vaultKey(v, process.platform), backend: new ScriptedBackend((req) => beatsFor(req), 'claude', false, 0), transcriptPath: transcript };
      const a = performance.now();
      const first = await extractTranscript(ctx);
      const firstMs = performance.now() - a;
      const b = performance.now();
      const second = await extractTranscript(ctx);
      const secondMs = performance.now() - b;
      console.log(
        `  overhead, ${(size / 1e6).toFixed(1)} MB transcript, run ${rep + 1}: first run ${firstMs.toFixed(0)} ms wall (LLM ${first.llmMs} ms scripted; ${first.windows.total} windows, ${first.beats.created} notes written), ` +
          `second run (nothing new) ${secondMs.toFixed(0)} ms (${second.windows.total} windows)`,
      );
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
