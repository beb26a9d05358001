// The palette's merge, split and frontmatter commands on the 13,415-note Zettelkasten, through the panes' API over the
// real engine and curation (the in-process host over the in-memory vault): how long the user waits between choosing a
// command and seeing its preview (each proposal reads the whole vault for exact texts and links), and for a lock.
import fs from 'node:fs';
import { register } from 'node:module';
import { performance } from 'node:perf_hooks';
import { ms, pct, readVaultTexts, s, zettelDir } from './lib/index-corpus.js';

// The engine imports its prompt templates (.md) as text.
register('./md-text-loader.mjs', import.meta.url);


async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

const summary = (xs: number[]): string => `median ${ms(pct(xs, 0.5))}, max ${ms(Math.max(...xs))} (${xs.length} runs)`;

export async function run(): Promise<void> {
  if (!fs.existsSync(zettelDir)) {
    console.log(`  skipped: ${zettelDir} not found (../shared/corpus absent)`);
    return;
  }
  const { outline } = await import('../src/core/curate/split.js');
  const { parseNote } = await import('../src/core/note/frontmatter.js');
  const { operationsApi } = await import('../src/plugin/views/api.js');
  const { startInProcessHost } = await import('../tests/helpers/in-process-host.js');
  const files = readVaultTexts(zettelDir);
  let t = performance.now();
  const host = await startInProcessHost(files);
  const api = operationsApi(host.engine, host.operations);
  console.log(`  ${Object.keys(files).length} notes; engine started in ${s(performance.now() - t)}`);

  const valid = Object.keys(files).filter((p) => !parseNote(files[p]).problem).sort();
  // The splits: the note nearest 12,000 characters with two or more top-level sections, and the largest such note
  // (Excalidraw drawings left out: they are JSON in a Markdown file).
  const splittable = valid.filter((p) => !p.endsWith('.excalidraw.md') && outline(files[p]).sections.length >= 2);
  const near = [...splittable].sort((a, b) => Math.abs(files[a].length - 12_000) - Math.abs(files[b].length - 12_000))[0];
  const largest = [...splittable].sort((a, b) => files[b].length - files[a].length)[0];
  let split = await api.proposeSplit(near);
  for (const note of [near, largest]) {
    const runs = await timed(5, () => api.proposeSplit(note));
    const p = await api.proposeSplit(note);
    if (note === near) split = p;
    console.log(`  split preview of a ${files[note].length}-character note (${p.writes.length - 1} parts): ${summary(runs)}`);
  }

  const pair = [valid[100], valid[200]];
  const merges = await timed(5, () => api.proposeMerge(pair));
  const merge = await api.proposeMerge(pair);
  const relinks = merge.linkRewrites.reduce((n, r) => n + r.edits.length, 0);
  console.log(`  merge preview of 2 notes (${relinks} links to rewrite): ${summary(merges)}`);

  const target = valid[300];
  const locks = await timed(10, async () => {
    await api.setFrontmatter(target, { locked: true });
    await api.setFrontmatter(target, { locked: null });
  });
  console.log(`  lock and unlock one note (two frontmatter edits, index updated): ${summary(locks)}`);

  t = performance.now();
  const [applied] = await api.apply([split.id]);
  console.log(`  apply the split: ${ms(performance.now() - t)} (${applied.ok ? 'applied' : `refused: ${applied.error}`})`);
}
