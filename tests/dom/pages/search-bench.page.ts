// The search pane over a large vault, for bench/pane-search.bench.ts: the notes come from the page's server
// (notes.json), the real engine indexes them, and `engramSearchBench.type` types queries a key at a time, timing each
// keystroke from the input event to the pane showing that prefix's results, while performance observers record every
// task (and animation frame) over 50 ms;
// `related` times the related pane's question for a sample of notes. The pane runs with no debounce, so each time is the search and its drawing.
import { SearchView } from '../../../src/plugin/views/search-view';
import { hostedContext } from './memory-notes';
import { mount, run, world } from './page-kit';

export interface KeystrokeFigures {
  /** Per keystroke, ms. */
  keystrokes: number[];
  /** Results shown after each query's last key. */
  results: number[];
  longTasks: { kind: string; ms: number; source?: string }[];
}

declare global {
  interface Window {
    engramSearchBench: {
      notes: number;
      indexMs: number;
      type(queries: string[]): Promise<KeystrokeFigures>;
      /** The related pane's question (Engine.related) for every `step`-th note: ms each, and how many it found. */
      related(step: number): Promise<{ ms: number[]; found: number[] }>;
    };
  }
}

/** A long animation frame's script attribution (not in TypeScript's DOM types yet). */
interface LoafScript {
  invoker?: string;
  sourceFunctionName?: string;
  duration: number;
}

function shows(el: HTMLElement, query: string): Promise<void> {
  if (el.dataset.query === query) return Promise.resolve();
  return new Promise((resolve) => {
    const mo = new MutationObserver(() => {
      if (el.dataset.query !== query) return;
      mo.disconnect();
      resolve();
    });
    mo.observe(el, { attributes: true, attributeFilter: ['data-query'] });
  });
}

/** A user's pause between keys: the frame is drawn, then the next task. */
const nextFrame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

run(async () => {
  const files = (await (await fetch('/notes.json')).json()) as Record<string, string>;
  const t0 = performance.now();
  const w = await world(files);
  const indexMs = performance.now() - t0;
  window.engramSearchBench = {
    notes: w.host.engine.index.size(),
    indexMs,
    async related(step) {
      const paths = Object.keys(files).filter((_, i) => i % step === 0);
      const out = { ms: [] as number[], found: [] as number[] };
      for (const p of paths) {
        const start = performance.now();
        const r = await w.api.related(p, 10);
        out.ms.push(performance.now() - start);
        out.found.push(r.similar.length + r.citing.length);
        await nextFrame();
      }
      return out;
    },
    async type(queries) {
      const view = window.engramPage.view!;
      const input = view.contentEl.querySelector<HTMLInputElement>('.engram-search-input')!;
      const results = view.contentEl.querySelector<HTMLElement>('.engram-search-results')!;
      const longTasks: KeystrokeFigures['longTasks'] = [];
      const observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (e.duration <= 50) continue;
          const scripts = (e as PerformanceEntry & { scripts?: LoafScript[] }).scripts ?? [];
          const top = [...scripts].sort((a, b) => b.duration - a.duration)[0];
          const loaf = e as PerformanceEntry & { renderStart?: number; styleAndLayoutStart?: number; blockingDuration?: number };
          const script = scripts.reduce((a, x) => a + x.duration, 0);
          const render = loaf.renderStart ? e.startTime + e.duration - loaf.renderStart : 0;
          const where = e.entryType === 'long-animation-frame' ? `scripts ${script.toFixed(0)} ms, rendering ${render.toFixed(0)} ms, blocking ${(loaf.blockingDuration ?? 0).toFixed(0)} ms` : '';
          longTasks.push({ kind: e.entryType, ms: e.duration, source: [top ? `${top.invoker ?? ''} ${top.sourceFunctionName ?? ''}`.trim() : '', where].filter(Boolean).join('; ') || undefined });
        }
      });
      for (const type of ['longtask', 'long-animation-frame']) {
        try {
          observer.observe({ type, buffered: false });
        } catch {
          // an entry type this Chromium does not know
        }
      }
      const keystrokes: number[] = [];
      const shown: number[] = [];
      for (const q of queries) {
        for (let i = 1; i <= q.length; i++) {
          const typed = q.slice(0, i);
          if (!typed.trim() || typed.endsWith(' ')) continue;
          const start = performance.now();
          input.value = typed;
          input.dispatchEvent(new Event('input'));
          await shows(results, typed.trim());
          keystrokes.push(performance.now() - start);
          await nextFrame();
        }
        shown.push(results.querySelectorAll('.engram-search-result').length);
        input.value = '';
        input.dispatchEvent(new Event('input'));
        await shows(results, '');
        await nextFrame();
      }
      await nextFrame();
      observer.takeRecords();
      observer.disconnect();
      return { keystrokes, results: shown, longTasks };
    },
  };
  await mount(w, (leaf) => new SearchView(leaf, hostedContext(w), { debounceMs: 0 }));
});
