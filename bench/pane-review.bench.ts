// The review pane with 500 due working-memory notes (issue 15), in headless Chromium over the real engine and curation
// with a scripted model: the first render (the plan, then the first screenful; goal under 200 ms), the first paint, all
// items drawn, a refresh, and
// the longest main-thread task while it opens (goal: none over 50 ms). A long animation frame can hold many short tasks
// (the engine yields every 10 ms; Chromium may put off rendering while such work runs), so the longest single script
// in them is printed too. Skips where Chromium is missing.
import os from 'node:os';
import { chromiumMissing, openView } from '../tests/helpers/view-harness.js';

const ms = (x: number) => `${x.toFixed(0)} ms`;

export async function run(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) {
    console.log(`  skipped: ${missing}`);
    return;
  }
  const v = await openView('review-bench');
  try {
    await v.page.waitForFunction(() => window.reviewBench !== undefined, undefined, { timeout: 120_000 });
    const r = (await v.page.evaluate(() => window.reviewBench))!;
    const longest = r.longTasks.length ? Math.max(...r.longTasks.map((t) => t.ms)) : 0;
    console.log(`  ${r.notes} due notes, ${r.items} proposals drawn`);
    console.log(`  first render: ${ms(r.firstRenderMs)} (plan ${ms(r.planMs)}, drawing ${ms(r.firstRenderMs - r.planMs)}; goal under 200 ms); first paint ${ms(r.firstPaintMs)}; all ${r.items} drawn ${ms(r.allDrawnMs)}; refresh (plan and draw again) ${ms(r.refreshMs)}`);
    const script = r.longTasks.length ? Math.max(...r.longTasks.map((t) => t.script)) : 0;
    console.log(`  long tasks and frames while opening: ${r.longTasks.length}, longest ${r.longTasks.length ? ms(longest) : 'none'}, longest single script in them ${ms(script)} (goal: none over 50 ms)`);
    for (const t of [...r.longTasks].sort((a, b) => b.ms - a.ms).slice(0, 5)) console.log(`    ${ms(t.ms)} ${t.kind}`);
    if (v.errors.length) console.log(`  page errors: ${v.errors.join('; ')}`);
    console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores (shared machine)`);
  } finally {
    await v.close();
  }
}
