// The restructure pane's bench page (bench/pane-restructure.bench.ts): the pane over the real engine, plus timings of
// its diff drawn alone, while observers record every task and animation frame over 50 ms.
import type { PaneContext } from '../../../src/plugin/views/api';
import { renderDiff, type DiffMode } from '../../../src/plugin/views/diff-render';
import { RestructureView } from '../../../src/plugin/views/restructure-view';
import { mount, run, world } from './page-kit';
import { NOW, restructureVault } from './restructure-vault';

export interface PaneTiming {
  /** Script time from the click until the pane's DOM is built. */
  buildMs: number;
  /** From the click until the next frame has run (style, layout and paint included). */
  frameMs: number;
}

export interface LongEntry {
  type: string;
  /** Start, on the page's performance clock. */
  start: number;
  ms: number;
  source?: string;
}

declare global {
  interface Window {
    engramRestructureBench: {
      /** Clicks the first button matched by `selector` (whose text includes `containing`) and times the pane's redraw. */
      click(selector: string, containing?: string): Promise<PaneTiming>;
      /** Draws the diff of `before` against `after` `runs` times in `mode`; each run timed as the pane's click is. */
      diff(before: string, after: string, mode: DiffMode, runs: number): Promise<PaneTiming[]>;
      /** The page's performance clock now (to tell which step a long task belongs to). */
      now(): number;
      /** Tasks and animation frames over 50 ms since the page loaded. */
      longTasks(): LongEntry[];
    };
  }
}

const seen: PerformanceEntry[] = [];
for (const type of ['longtask', 'long-animation-frame']) new PerformanceObserver((l) => seen.push(...l.getEntries())).observe({ type, buffered: true });

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

window.engramRestructureBench = {
  async click(selector, containing = '') {
    const button = [...document.querySelectorAll<HTMLElement>(selector)].find((b) => b.textContent?.includes(containing));
    if (!button) throw new Error(`nothing matches ${selector}`);
    const t0 = performance.now();
    button.click();
    const buildMs = performance.now() - t0;
    await nextFrame();
    return { buildMs, frameMs: performance.now() - t0 };
  },
  async diff(before, after, mode, runs) {
    const out: PaneTiming[] = [];
    // At the top of the page, in view, as the pane shows a diff.
    const host = createDiv({ cls: 'engram-restructure' });
    document.body.prepend(host);
    for (let i = 0; i < runs; i++) {
      host.empty();
      const t0 = performance.now();
      renderDiff(host, before, after, { mode, full: false, onShowFull: () => undefined });
      const buildMs = performance.now() - t0;
      await nextFrame();
      out.push({ buildMs, frameMs: performance.now() - t0 });
    }
    host.remove();
    return out;
  },
  now: () => performance.now(),
  longTasks: () =>
    seen.map((e) => {
      const scripts = (e as PerformanceEntry & { scripts?: Array<{ sourceFunctionName?: string; invoker?: string }> }).scripts ?? [];
      const source = scripts.map((s) => s.invoker ?? s.sourceFunctionName).filter(Boolean).join(', ');
      return { type: e.entryType, start: e.startTime, ms: e.duration, ...(source ? { source } : {}) };
    }),
};

run(async () => {
  const w = await world(restructureVault(), { now: NOW });
  const ctx: PaneContext = { api: () => w.api, onChange: () => () => undefined };
  await mount(w, (leaf) => new RestructureView(leaf, ctx));
});
