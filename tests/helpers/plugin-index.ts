// Drives tests/helpers/plugin-index-page.ts in headless Chromium: the engine indexes a vault on a renderer's main
// thread (as inside Obsidian), then saves and restarts from its snapshot; returns the times, heap and long tasks.
import { fileURLToPath } from 'node:url';
import { bundleForBrowser, heapUsedMB, openPage } from './chromium.js';
import type { LongTask } from './plugin-index-page.js';

export interface PluginIndexFigures {
  notes: number;
  indexMs: number;
  saveMs: number;
  restartMs: number;
  snapshotBytes: number;
  /** Heap (JS heap + array buffers) after GC with only the vault's texts loaded, then with the engine built over them. */
  heapVaultMB: number;
  heapIndexedMB: number;
  longTasks: LongTask[];
  yieldWith: string;
  /** The longest work the engine did between two turns of the host (wall time, from the engine's side). */
  longestSliceMs: number;
  /** The functions that yielded at the end of it. */
  longestSliceAt: string;
  /** Every run of work between two turns, ms. */
  slices: number[];
  /** Uncaught exceptions and console errors on the page. */
  errors: string[];
}

const entry = fileURLToPath(new URL('./plugin-index-page.ts', import.meta.url));

/** Indexes `files` (vault path → note text) in a fresh headless Chromium page. */
export async function indexInChromium(files: Record<string, string>): Promise<PluginIndexFigures> {
  const page = await openPage(await bundleForBrowser(entry), { 'notes.json': JSON.stringify(files) });
  try {
    const p = page.page;
    const notes = await p.evaluate((url) => window.engramIndex.loadVault(url), `${page.url}/notes.json`);
    const heapVaultMB = await heapUsedMB(page.cdp);
    const index = await p.evaluate(() => window.engramIndex.index());
    const save = await p.evaluate(() => window.engramIndex.save());
    const heapIndexedMB = await heapUsedMB(page.cdp);
    const restart = await p.evaluate(() => window.engramIndex.restart());
    if (index.notes !== notes || restart.notes !== notes) throw new Error(`the engine holds ${index.notes} notes after indexing and ${restart.notes} after a restart, of ${notes}`);
    const { tasks, yieldWith, longestSlice, longestSliceAt, slices } = await p.evaluate(() => window.engramIndex.longTasks());
    return {
      notes,
      indexMs: index.ms,
      saveMs: save.ms,
      restartMs: restart.ms,
      snapshotBytes: save.snapshotBytes,
      heapVaultMB,
      heapIndexedMB,
      longTasks: tasks,
      yieldWith,
      longestSliceMs: longestSlice,
      longestSliceAt,
      slices,
      errors: page.errors,
    };
  } finally {
    await page.close();
  }
}
