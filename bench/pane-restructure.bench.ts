// The restructure pane in headless Chromium (issue 15: "restructure diff of a 12,000-character note under 100 ms; no
// main-thread task over 50 ms"). Two figures: the pane opening the split proposal of a 12,605-character note (the
// hub's diff against the note plus its three new parts) and switching it to side by side, timed from the click to the
// next frame; and the diff alone of a real note of about 12,000 characters from the shared corpus against an edited
// copy (a line changed in seven, one added in forty, one removed in fifty), unified and side by side, layout forced.
// Observers on the page record every task and animation frame over 50 ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromiumMissing, openView } from '../tests/helpers/view-harness.js';
import { ms, pct, zettelDir } from './lib/index-corpus.js';

/** The corpus note whose length is closest to 12,000 characters (at least that long). */
function noteNear12k(): { path: string; text: string } {
  let best: { path: string; text: string } | null = null;
  for (const rel of fs.readdirSync(zettelDir, { recursive: true, encoding: 'utf8' }).sort()) {
    if (!rel.endsWith('.md')) continue;
    const text = fs.readFileSync(path.join(zettelDir, rel), 'utf8');
    if (text.length >= 12_000 && (!best || text.length < best.text.length)) best = { path: rel, text };
  }
  if (!best) throw new Error('no note of 12,000 characters in the corpus');
  return best;
}

function edited(text: string): string {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (i % 50 === 49) return;
    out.push(i % 7 === 3 ? `${line} (edited)` : line);
    if (i % 40 === 20) out.push('A line the proposal adds.');
  });
  return out.join('\n');
}

export async function run(): Promise<void> {
  const missing = chromiumMissing() ?? (!fs.existsSync(zettelDir) ? 'the shared corpus (../shared/corpus/vaults) is not here' : null);
  if (missing) {
    console.log(`  skipped: ${missing}`);
    return;
  }
  const note = noteNear12k();
  const v = await openView('restructure-bench');
  try {
    const steps: Array<{ name: string; start: number }> = [];
    const step = async (name: string) => steps.push({ name, start: await v.page.evaluate(() => window.engramRestructureBench.now()) });
    await step('pane');
    const split = '.engram-restructure-card[data-kind="split"] .engram-restructure-card-head';
    const open = await v.page.evaluate((s) => window.engramRestructureBench.click(s, 'Release guide'), split);
    const chars = await v.page.evaluate(() => [...document.querySelectorAll('.engram-restructure-card.is-open .engram-diff-text')].reduce((n, e) => n + (e.textContent?.length ?? 0), 0));
    const side = await v.page.evaluate(() => window.engramRestructureBench.click('.engram-restructure-modes button:nth-child(2)'));
    console.log(`  pane, open the split of a 12,605-character note (${chars.toLocaleString('en')} characters of diff lines): ${ms(open.buildMs)} to build, ${ms(open.frameMs)} to the next frame`);
    console.log(`  pane, switch it to side by side: ${ms(side.buildMs)} to build, ${ms(side.frameMs)} to the next frame`);
    const after = edited(note.text);
    for (const mode of ['unified', 'side-by-side'] as const) {
      await step(`diff alone, ${mode}`);
      const runs = await v.page.evaluate(({ a, b, m }) => window.engramRestructureBench.diff(a, b, m, 30), { a: note.text, b: after, m: mode });
      const build = runs.map((r) => r.buildMs);
      const frame = runs.map((r) => r.frameMs);
      console.log(`  diff alone, ${mode}, ${note.text.length.toLocaleString('en')}-character note (${note.path}), ${runs.length} runs: build p50 ${ms(pct(build, 0.5))}, max ${ms(Math.max(...build))}; to the next frame p50 ${ms(pct(frame, 0.5))}, max ${ms(Math.max(...frame))} (goal: under 100 ms)`);
    }
    const long = await v.page.evaluate(() => window.engramRestructureBench.longTasks());
    // Each long task or frame belongs to the step it started in; before the first: page load and the engine's start.
    const stepOf = (start: number) => [...steps].reverse().find((x) => start >= x.start)?.name ?? 'page load and plan';
    const longest = (xs: Array<{ ms: number }>) => (xs.length ? ms(Math.max(...xs.map((t) => t.ms))) : 'none');
    for (const name of ['page load and plan', ...steps.map((x) => x.name)]) {
      const mine = long.filter((t) => stepOf(t.start) === name);
      console.log(`  over 50 ms in ${name}: ${mine.length} (longest ${longest(mine)}; goal: none)`);
    }
    for (const t of [...long].sort((a, b) => b.ms - a.ms).slice(0, 5)) console.log(`    ${ms(t.ms)} ${t.type} in ${stepOf(t.start)}${t.source ? ` (${t.source})` : ''}`);
    if (v.errors.length) console.log(`  page errors: ${v.errors.join('; ')}`);
  } finally {
    await v.close();
  }
  console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores (shared machine)`);
}
