// Browser entry (bundled by tests/helpers/chromium.ts): the engine indexes an in-memory vault on the page's main
// thread as the Obsidian plugin host does (snapshot store, note cache, the host's yield), while performance observers
// record every task over 50 ms. The Node side drives it step by step (window.engramIndex) to read the heap between.
// Both `longtask` and `long-animation-frame` are observed: Chromium 150 reports no `longtask` for a task resumed by
// scheduler.yield (measured), while a long animation frame names it (and the script it ran).
import { Engine, IndexedVault, type SnapshotStore } from '../../src/core/engine.js';
import { MemoryStateStore } from '../../src/core/extract/state-store.js';
import { VaultIndex } from '../../src/core/index/vault-index.js';
import { systemClock, type Ports, type Yield } from '../../src/core/ports.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';

export interface LongTask {
  /** The step it started in. */
  step: string;
  start: number;
  ms: number;
  /** The script entry point a long animation frame names (e.g. `Window.setTimeout` or a resolved promise). */
  source?: string;
}

/** A long animation frame's script attribution (not in TypeScript's DOM types yet). */
interface LoafScript {
  invoker?: string;
  sourceFunctionName?: string;
  duration: number;
}

export interface StepFigures {
  ms: number;
  notes: number;
}

export interface PageApi {
  /** Fetches the notes (a JSON object, path → text) into an in-memory vault; returns how many. */
  loadVault(url: string): Promise<number>;
  /** First start of the engine (no snapshot, no note cache): every note read and indexed. */
  index(): Promise<StepFigures>;
  /** Saves the index snapshot and the note cache (what the plugin does on unload). */
  save(): Promise<StepFigures & { snapshotBytes: number }>;
  /** A second engine starts from the saved snapshot and note cache. */
  restart(): Promise<StepFigures>;
  /** Every task over 50 ms since the first step, how the host yields, and the longest work between two turns. */
  longTasks(): Promise<{ tasks: LongTask[]; yieldWith: string; longestSlice: number; longestSliceAt: string; slices: number[] }>;
}

declare global {
  interface Window {
    engramIndex: PageApi;
  }
}

interface SchedulerWithYield {
  yield(): Promise<void>;
}

// The way a plugin gives Obsidian's UI a turn: scheduler.yield where Chromium has it, else a macrotask.
const scheduler = (globalThis as { scheduler?: Partial<SchedulerWithYield> }).scheduler;
const yieldWith = typeof scheduler?.yield === 'function' ? 'scheduler.yield' : 'setTimeout 0';
const hostYield: Yield = typeof scheduler?.yield === 'function' ? () => scheduler.yield!() : () => new Promise((resolve) => setTimeout(resolve, 0));

// The engine's own view: the longest run of work between two turns of a step (wall time, as a long task counts it).
let resumed = NaN;
let longestSlice = 0;
/** Where the longest slice ended: the functions that called the yield. */
let longestSliceAt = '';
const slices: number[] = [];
const yieldNow: Yield = async () => {
  const ran = performance.now() - resumed;
  if (ran >= 0) slices.push(ran);
  if (ran > longestSlice) {
    longestSlice = ran;
    longestSliceAt = (new Error().stack ?? '').split('\n').slice(2, 5).map((l) => l.trim().replace(/^at /, '').replace(/ \(.*\)$/, '')).join(' < ');
  }
  await hostYield();
  resumed = performance.now();
};

const steps: { name: string; start: number }[] = [];
const seen: PerformanceEntry[] = [];
let observer: PerformanceObserver | null = null;
let frames: PerformanceObserver | null = null;
let vault: MemoryVault | null = null;
let snapshotBytes: Uint8Array | null = null;
const state = new MemoryStateStore();

function engine(): Engine {
  if (!vault) throw new Error('loadVault first');
  const ports: Ports = { vault, clock: systemClock, yieldNow };
  const snapshot: SnapshotStore = {
    read: () => Promise.resolve(snapshotBytes),
    write: (b) => {
      snapshotBytes = b;
      return Promise.resolve();
    },
  };
  const index = new VaultIndex({ vault, clock: systemClock, yieldNow, autoEmbed: false });
  return new Engine({ ports, index: new IndexedVault(index, { snapshot }), persist: { store: state, dir: 'vaults/page' } });
}

async function step<T>(name: string, run: () => Promise<T>): Promise<T & { ms: number }> {
  // A fresh task, so the step's first long task is its own.
  await hostYield();
  const start = performance.now();
  steps.push({ name, start });
  resumed = start;
  const out = await run();
  const end = performance.now();
  slices.push(end - resumed);
  if (end - resumed > longestSlice) {
    longestSlice = end - resumed;
    longestSliceAt = `the end of ${name}`;
  }
  resumed = NaN;
  return { ...out, ms: end - start };
}

let last: Engine | null = null;

window.engramIndex = {
  async loadVault(url) {
    const files = (await (await fetch(url)).json()) as Record<string, string>;
    vault = new MemoryVault({ files });
    observer = new PerformanceObserver((list) => seen.push(...list.getEntries()));
    observer.observe({ type: 'longtask', buffered: true });
    frames = new PerformanceObserver((list) => seen.push(...list.getEntries()));
    frames.observe({ type: 'long-animation-frame', buffered: true });
    return Object.keys(files).length;
  },
  index: () =>
    step('index', async () => {
      last = engine();
      await last.start();
      return { notes: last.noteCount() };
    }),
  save: () =>
    step('save', async () => {
      if (!last) throw new Error('index first');
      await last.save();
      return { notes: last.noteCount(), snapshotBytes: snapshotBytes?.length ?? 0 };
    }),
  restart: () =>
    step('restart', async () => {
      last = engine();
      await last.start();
      return { notes: last.noteCount() };
    }),
  async longTasks() {
    // A long task is reported after it ends: one more turn, then take what the observer holds.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (observer) seen.push(...observer.takeRecords());
    if (frames) seen.push(...frames.takeRecords());
    const first = steps[0]?.start ?? Infinity;
    const stepAt = (t: number): string => [...steps].reverse().find((s) => s.start <= t)!.name;
    const loafs = seen.filter((e) => e.entryType === 'long-animation-frame' && e.startTime >= first);
    // A task both observers saw is counted once, as the frame (which names its script).
    const within = (e: PerformanceEntry) => loafs.some((f) => e.startTime >= f.startTime - 1 && e.startTime + e.duration <= f.startTime + f.duration + 1);
    const tasks: LongTask[] = [
      ...loafs.map((f) => {
        const scripts = ((f as PerformanceEntry & { scripts?: LoafScript[] }).scripts ?? []).slice().sort((a, b) => b.duration - a.duration);
        const top = scripts[0];
        return { step: stepAt(f.startTime), start: f.startTime, ms: f.duration, source: top ? [top.invoker, top.sourceFunctionName].filter(Boolean).join(' ') : undefined };
      }),
      ...seen.filter((e) => e.entryType === 'longtask' && e.startTime >= first && !within(e)).map((t) => ({ step: stepAt(t.startTime), start: t.startTime, ms: t.duration })),
    ].sort((a, b) => a.start - b.start);
    return { tasks, yieldWith, longestSlice, longestSliceAt, slices };
  },
};
