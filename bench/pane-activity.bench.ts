// The Activity and Dashboard panes (issue 24) over the 13,415-note vault with 90 days of a busy user's activity, in
// headless Chromium with the real engine on the page's main thread as in Obsidian: each pane's first render (opened
// to its first frame; goal under 300 ms), its 90-day span clicked and drawn, and every main-thread task or frame over
// 50 ms meanwhile (goal: none). Skips where the shared corpus or Chromium is missing.
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bundleForBrowser, chromiumMissing, openPage } from '../tests/helpers/chromium.js';
import type { PaneFigures } from '../tests/dom/pages/activity-bench.page.js';
import { ms, readVaultTexts, s, zettelDir } from './lib/index-corpus.js';

const entry = fileURLToPath(new URL('../tests/dom/pages/activity-bench.page.ts', import.meta.url));

function report(name: string, f: PaneFigures): void {
  const longest = f.longTasks.length ? Math.max(...f.longTasks.map((t) => t.ms)) : 0;
  const script = f.longTasks.length ? Math.max(...f.longTasks.map((t) => t.script)) : 0;
  console.log(`  ${name}: first render ${ms(f.firstRenderMs)} (goal under 300 ms); 90-day span clicked and drawn ${ms(f.ninetyDaysMs)}`);
  console.log(`    tasks or frames over 50 ms: ${f.longTasks.length}${f.longTasks.length ? `, longest ${ms(longest)}, longest single script in them ${ms(script)}` : ''} (goal: none)`);
  for (const t of [...f.longTasks].sort((a, b) => b.ms - a.ms).slice(0, 4)) console.log(`      ${ms(t.ms)} ${t.kind}`);
}

export async function run(): Promise<void> {
  const missing = !fs.existsSync(zettelDir) ? 'the shared corpus (../shared/corpus/vaults) is not here' : chromiumMissing();
  if (missing) {
    console.log(`  skipped: ${missing}`);
    return;
  }
  const files = readVaultTexts(zettelDir);
  const page = await openPage(await bundleForBrowser(entry, { obsidian: 'obsidian-test-mocks/obsidian' }), { 'notes.json': JSON.stringify(files) }, { viewport: { width: 900, height: 700 } });
  try {
    const p = page.page;
    await p.waitForFunction(() => window.engramPage?.ready === true, undefined, { timeout: 900_000, polling: 500 });
    const failed = await p.evaluate(() => window.engramPage.error);
    if (failed) throw new Error(`the page failed: ${failed}`);
    const r = (await p.evaluate(() => window.activityBench))!;
    console.log(`  ${r.notes.toLocaleString('en')} notes indexed in the page in ${s(r.indexMs)} (setup, not timed below)`);
    console.log(`  activity record: 90 days, ${r.entries.toLocaleString('en')} entries, ${(r.recordBytes / 1e6).toFixed(1)} MB`);
    report('Activity pane (7 days by default)', r.activity);
    report('Dashboard pane (30 days by default)', r.dashboard);
    if (page.errors.length) console.log(`  page errors: ${page.errors.join('; ')}`);
    console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores (shared machine)`);
  } finally {
    await page.close();
  }
}
