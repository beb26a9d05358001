// Obsidian never freezes (issue 14): the 13,415-note vault indexed from scratch on a Chromium renderer's main thread,
// as the plugin host does inside Obsidian, then saved and restarted from its snapshot. Long-task and long-animation-frame
// observers on the page record every task over 50 ms; the goal is none. The engine also times its own runs of work
// between turns (a busy shared machine stretches some in wall time). Heap: the page's JS heap plus array buffers after
// a forced GC (CDP), as index.bench.ts counts it in Node. The Excalidraw drawings (133 notes, 7.9 MB of base64) are the
// costliest notes: each is parsed and indexed as one piece.
import fs from 'node:fs';
import os from 'node:os';
import { chromiumMissing } from '../tests/helpers/chromium.js';
import { indexInChromium } from '../tests/helpers/plugin-index.js';
import { ms, pct, readVaultTexts, s, zettelDir } from './lib/index-corpus.js';


export async function run(): Promise<void> {
  const missing = !fs.existsSync(zettelDir) ? 'the shared corpus (../shared/corpus/vaults) is not here' : chromiumMissing();
  if (missing) {
    console.log(`  skipped: ${missing}`);
    return;
  }
  const f = await indexInChromium(readVaultTexts(zettelDir));
  const by = (step: string) => f.longTasks.filter((t) => t.step === step);
  const longest = (ts: { ms: number }[]) => (ts.length ? ms(Math.max(...ts.map((t) => t.ms))) : 'none');
  console.log(`  ${f.notes.toLocaleString('en')} notes, host yields with ${f.yieldWith}`);
  console.log(`  first index (engine start, no snapshot): ${s(f.indexMs)}; long tasks ${by('index').length}, longest ${longest(by('index'))}`);
  console.log(`  save (snapshot ${(f.snapshotBytes / 1e6).toFixed(1)} MB + note cache): ${ms(f.saveMs)}; long tasks ${by('save').length}, longest ${longest(by('save'))}`);
  console.log(`  restart (snapshot + note cache): ${ms(f.restartMs)}; long tasks ${by('restart').length}, longest ${longest(by('restart'))}`);
  console.log(`  all steps: ${f.longTasks.length} tasks over 50 ms, longest ${longest(f.longTasks)} (goal: none); longest work between two yields, as the engine times it: ${ms(f.longestSliceMs)} (ending at ${f.longestSliceAt})`);
  const sl = f.slices;
  console.log(`  ${sl.length} runs of work between turns: p50 ${ms(pct(sl, 0.5))}, p99 ${ms(pct(sl, 0.99))}, p99.9 ${ms(pct(sl, 0.999))}, ${sl.filter((x) => x > 50).length} over 50 ms`);
  console.log(`  heap (JS + array buffers): ${f.heapVaultMB.toFixed(0)} MB with the vault's texts, ${f.heapIndexedMB.toFixed(0)} MB indexed (+${(f.heapIndexedMB - f.heapVaultMB).toFixed(0)} MB)`);
  for (const t of [...f.longTasks].sort((a, b) => b.ms - a.ms).slice(0, 5)) console.log(`    ${ms(t.ms)} in ${t.step}${t.source ? ` (${t.source})` : ''}`);
  if (f.errors.length) console.log(`  page errors: ${f.errors.join('; ')}`);
  console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores (shared machine)`);
}
