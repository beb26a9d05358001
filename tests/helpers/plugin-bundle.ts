// The built main.js as Obsidian loads it (tests/plugin/main-bundle.test.ts, tests/e2e/plugin-handover.test.ts): a
// CommonJS module that may require only 'obsidian' while it loads (the mocks' module here), Node built-ins afterwards;
// every timer it starts is tracked through the globals it sees, so a test can tell what unload left running.
import fs from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import * as obsidianMocks from 'obsidian-test-mocks/obsidian';
import { repoRoot } from './shared';

const requireHere = createRequire(import.meta.url);
export const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** Timers the bundle starts, through the globals it sees: what is still pending after unload is a leak. */
export class TimerLedger {
  private readonly live = new Map<unknown, string>();
  readonly globals = {
    setTimeout: (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const t = setTimeout(() => {
        this.live.delete(t);
        fn(...args);
      }, ms);
      this.live.set(t, `setTimeout ${ms ?? 0} ms`);
      return t;
    },
    clearTimeout: (t: ReturnType<typeof setTimeout> | undefined) => {
      this.live.delete(t);
      clearTimeout(t);
    },
    setInterval: (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const t = setInterval(fn, ms, ...args);
      this.live.set(t, `setInterval ${ms ?? 0} ms`);
      return t;
    },
    clearInterval: (t: ReturnType<typeof setInterval> | undefined) => {
      this.live.delete(t);
      clearInterval(t);
    },
  };
  pending(): string[] {
    return [...this.live.values()];
  }
}

export interface Loaded {
  Plugin: new (...args: unknown[]) => {
    onload(): Promise<void>;
    onunload(): void;
    unloaded: Promise<void>;
    settings: Record<string, unknown>;
    engramHost?: { engine?: { ready: boolean; noteCount(): number }; embeddings?: { state: string; pid?: number } };
  };
  /** What main.js required while it loaded, and afterwards. */
  atLoad: string[];
  later: string[];
  timers: TimerLedger;
}

export function loadBundle(): Loaded {
  const code = fs.readFileSync(path.join(repoRoot, 'main.js'), 'utf8');
  const atLoad: string[] = [];
  const later: string[] = [];
  let loading = true;
  const sandboxRequire = (name: string): unknown => {
    (loading ? atLoad : later).push(name);
    // The same module instance the test's app is built from (its TFile is the one `instanceof` checks).
    if (name === 'obsidian') return obsidianMocks;
    if (!loading && builtins.has(name)) return requireHere(name);
    throw new Error(`main.js required "${name}"${loading ? ' at load time' : ''}`);
  };
  const timers = new TimerLedger();
  const module = { exports: {} as Record<string, unknown> };
  const params = ['module', 'exports', 'require', ...Object.keys(timers.globals)];
  const run = vm.compileFunction(code, params, { filename: 'main.js' });
  run(module, module.exports, sandboxRequire, ...Object.values(timers.globals));
  loading = false;
  return { Plugin: module.exports.default as Loaded['Plugin'], atLoad, later, timers };
}

