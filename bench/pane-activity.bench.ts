// The Activity and Dashboard panes (issue 24) over the 13,415-note vault with 90 days of a busy user's activity, in
// headless Chromium with the real engine on the page's main thread as in Obsidian: each pane's first render (opened
// to its first frame; goal under 300 ms), its 90-day span clicked and drawn, and every main-thread task or frame over
// 50 ms meanwhile (goal: none), and, in the Activity pane, a session of the 90 days opened (its entries are read when it
// opens). The page lays out a few lines of text first, as Obsidian's window is laid out before a pane opens (page's
// warmUp). Skips where the shared corpus or Chromium is missing.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { openCorpusPage } from './lib/corpus-page.js';
import type { PaneFigures } from '../tests/dom/pages/activity-bench.page.js';
import { ms, s } from './lib/index-corpus.js';

const entry = fileURLToPath(new URL('../tests/dom/pages/activity-bench.page.ts', import.meta.url));

function report(name: string, f: PaneFigures): void {
  // A task is one turn of the event loop; a frame may hold many short tasks (time slices) before the next paint.
  const tasks = f.longTasks.filter((t) => t.kind === 'longtask');
  const frames = f.longTasks.filter((t) => t.kind !== 'longtask');
  const longest = (xs: typeof tasks) => (xs.length ? `, longest ${ms(Math.max(...xs.map((t) => t.ms)))}` : '');
  console.log(`  ${name}: first render ${ms(f.firstRenderMs)} (goal under 300 ms); 90-day span clicked and drawn ${ms(f.ninetyDaysMs)}${f.openSessionMs === undefined ? '' : `; a session opened ${ms(f.openSessionMs)}`}${f.olderDaysMs === undefined ? '' : `; older days shown (${f.days} days) ${ms(f.olderDaysMs)}`}`);
  console.log(`    main-thread tasks over 50 ms: ${tasks.length}${longest(tasks)} (goal: none); frames over 50 ms: ${frames.length}${longest(frames)}${frames.length ? `, longest single script in them ${ms(Math.max(...frames.map((t) => t.script)))}` : ''}`);
  for (const t of [...f.longTasks].sort((a, b) => b.ms - a.ms).slice(0, 4)) console.log(`      ${ms(t.ms)} ${t.kind}`);
}

export async function run(): Promise<void> {
  const page = await openCorpusPage(entry);
  if (!page) return;
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
