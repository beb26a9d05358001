// Runs in the page (headless Chromium): Obsidian's API from obsidian-test-mocks, the plugin's styles over a stub of
// Obsidian's theme variables, and the real engine and curation over the in-memory vault (tests/helpers/in-process-host.ts),
// reached through the panes' API. A pane is mounted into a workspace leaf as Obsidian would open it.
import { setup } from 'obsidian-test-mocks/setup';
import type { App as ObsidianApp, ItemView, WorkspaceLeaf } from 'obsidian';
import { App } from 'obsidian-test-mocks/obsidian';
import { startInProcessHost, type InProcessHost } from '../../helpers/in-process-host';
import type { LlmBackend } from '../../../src/core/extract/backends/types';
import type { Clock, Yield } from '../../../src/core/ports';
import { operationsApi, type EngramApi } from '../../../src/plugin/views/api';
import pluginCss from '../../../styles.css';
import themeCss from '../obsidian-theme.css';

export interface PageWorld {
  app: ObsidianApp;
  host: InProcessHost;
  api: EngramApi;
  /** Every file of the in-memory vault, by path (what the test compares after a click). */
  files(): Promise<Record<string, string>>;
}

declare global {
  interface Window {
    /** What the Node side of a test reads from the page. */
    engramPage: { world: PageWorld; view?: ItemView; ready: boolean; error?: string };
  }
}

/** The theme is the page's `?theme=` (light by default). */
function applyTheme(): void {
  const theme = new URLSearchParams(location.search).get('theme') === 'dark' ? 'dark' : 'light';
  document.body.addClass(`theme-${theme}`);
  for (const css of [themeCss, pluginCss]) document.head.createEl('style', { text: css });
}

/**
 * `backend`: review's model (default none: `rules`, which proposes extend only). `yieldNow`: how the engine gives the
 * page a turn (default a microtask; the plugin host yields to the UI, which a bench of long tasks needs). `clock`: a
 * running clock (the engine slices its work by it) instead of `now`'s fixed one.
 */
export async function world(files: Record<string, string>, opts: { now?: number; clock?: Clock; backend?: LlmBackend; yieldNow?: Yield } = {}): Promise<PageWorld> {
  setup();
  applyTheme();
  const clock = opts.clock ?? (opts.now === undefined ? undefined : { now: () => opts.now! });
  const host = await startInProcessHost(files, { ...(clock ? { clock } : {}), ...(opts.backend ? { backend: opts.backend } : {}), ...(opts.yieldNow ? { yieldNow: opts.yieldNow } : {}) });
  const app = App.createConfigured__();
  const w: PageWorld = {
    app: app.asOriginalType__(),
    host,
    api: operationsApi(host.engine, host.operations),
    async files() {
      const out: Record<string, string> = {};
      for (const f of await host.vault.list()) out[f.path] = (await host.vault.read(f.path)).text;
      return out;
    },
  };
  window.engramPage = { world: w, ready: false };
  return w;
}

/** Opens a pane in a new leaf, as `workspace.getLeaf().setViewState` would, and shows it full-page. */
export async function mount(w: PageWorld, make: (leaf: WorkspaceLeaf) => ItemView): Promise<ItemView> {
  const leaf = w.app.workspace.getLeaf(true);
  const view = make(leaf);
  document.body.appendChild(view.containerEl);
  view.containerEl.addClass('engram-test-pane');
  // Obsidian calls onOpen when a leaf opens the view.
  await (view as unknown as { onOpen(): Promise<void> }).onOpen();
  window.engramPage.view = view;
  window.engramPage.ready = true;
  return view;
}

/** Runs a page's setup and reports a failure to the test instead of leaving it waiting. */
export function run(main: () => Promise<void>): void {
  // The script loads in <head>: the body exists once the document is parsed.
  const parsed = document.readyState === 'loading' ? new Promise((r) => document.addEventListener('DOMContentLoaded', r, { once: true })) : Promise.resolve();
  parsed.then(main).catch((e: unknown) => {
    window.engramPage = { ...(window.engramPage ?? {}), ready: true, error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) } as Window['engramPage'];
    console.error(e);
  });
}

/** A long task or animation frame the page saw; `script`: the longest script in it (a frame may hold many short tasks). */
export interface LongFrame {
  kind: string;
  start: number;
  ms: number;
  script: number;
}

/** Starts recording every long task and long animation frame (with where a frame spent its time); the benches read it. */
export function watchLongFrames(): LongFrame[] {
  const seen: LongFrame[] = [];
  for (const type of ['longtask', 'long-animation-frame']) {
    try {
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) {
          // Where a long animation frame spent its time (the bench prints the top scripts).
          const scripts = (e as PerformanceEntry & { scripts?: Array<{ invoker?: string; sourceFunctionName?: string; duration: number }> }).scripts ?? [];
          const top = [...scripts].sort((a, b) => b.duration - a.duration)[0];
          const f = e as PerformanceEntry & { renderStart?: number; styleAndLayoutStart?: number };
          const render = f.renderStart ? ` (scripts ${(f.renderStart - e.startTime).toFixed(0)} ms, render ${(e.startTime + e.duration - f.renderStart).toFixed(0)} ms, style and layout ${(e.startTime + e.duration - (f.styleAndLayoutStart ?? f.renderStart)).toFixed(0)} ms)` : '';
          seen.push({ kind: `${top ? `${type}: ${top.invoker ?? ''} ${top.sourceFunctionName ?? ''} ${top.duration.toFixed(0)} ms` : type}${render}`, start: e.startTime, ms: e.duration, script: top?.duration ?? e.duration });
        }
      }).observe({ type, buffered: true });
    } catch {
      // An entry type this Chromium does not know: the other one still reports.
    }
  }
  return seen;
}
