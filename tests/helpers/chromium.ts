// Headless Chromium for code that runs in Obsidian's renderer: bundle an entry with esbuild, serve it (and any data
// files) from a local HTTP server, load it into a page, and collect what the page reports as errors.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import esbuild from 'esbuild';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { onTeardown } from './leftovers.js';

/** Chromium to test with: $ENGRAM_CHROMIUM, else the Debian package's binary; null when neither is there. */
export function chromiumPath(): string | null {
  const candidates = [process.env.ENGRAM_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && fs.existsSync(p)) ?? null;
}

/** Why a Chromium test or bench cannot run here, or null when it can. */
export function chromiumMissing(): string | null {
  return chromiumPath() ? null : 'Chromium is not installed (apt-get install -y chromium, or set ENGRAM_CHROMIUM)';
}

/**
 * Bundles a browser entry (TypeScript, Markdown imported as text, as the plugin build does) into one script; `alias`
 * maps module names (the panes' tests: `obsidian` to obsidian-test-mocks).
 */
export async function bundleForBrowser(entry: string, alias: Record<string, string> = {}): Promise<string> {
  const out = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    loader: { '.md': 'text', '.css': 'text' },
    alias,
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

export interface ChromiumPage {
  page: Page;
  /** A DevTools session on the page (heap usage, garbage collection). */
  cdp: CDPSession;
  /** Uncaught exceptions and console errors, in order. */
  errors: string[];
  /** Base URL of the local server: data files are at `${url}/<name>`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium and opens a blank page that runs `script`; `files` are served next to it (large data
 * goes here rather than through page.evaluate). Close it in a finally or afterAll.
 */
export async function openPage(script: string, files: Record<string, string | Uint8Array> = {}, opts: { search?: string; viewport?: { width: number; height: number } } = {}): Promise<ChromiumPage> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(chromiumMissing()!);
  const served: Record<string, { type: string; body: string | Uint8Array }> = {
    '/': { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><title>engram</title><script src="/entry.js"></script>' },
    '/entry.js': { type: 'text/javascript', body: script },
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  };
  for (const [name, body] of Object.entries(files)) served[`/${name}`] = { type: name.endsWith('.json') ? 'application/json' : 'application/octet-stream', body };
  const server = http.createServer((req, res) => {
    const f = served[(req.url ?? '').split('?')[0]];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': f.type }).end(f.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let context: BrowserContext | undefined;
  try {
    context = await (await sharedBrowser(executablePath)).newContext(opts.viewport ? { viewport: opts.viewport } : {});
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${url}/${opts.search ?? ''}`);
    const cdp = await page.context().newCDPSession(page);
    const c = context;
    return {
      page,
      cdp,
      errors,
      url,
      close: async () => {
        await c.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        releaseBrowser();
      },
    };
  } catch (e) {
    await context?.close();
    server.close();
    releaseBrowser();
    throw e;
  }
}

/**
 * One Chromium per test process, a fresh context (its own storage) per page: a launch costs about a second, a context
 * a few milliseconds. The browser closes a moment after its last page, so a process (a bench) can exit.
 */
let browser: Promise<Browser> | undefined;
let open = 0;
let closing: ReturnType<typeof setTimeout> | undefined;
let untrack: (() => void) | undefined;

function closeBrowser(): Promise<void> {
  clearTimeout(closing);
  untrack?.();
  const b = browser;
  browser = undefined;
  return b ? b.then((x) => x.close()) : Promise.resolve();
}

function sharedBrowser(executablePath: string): Promise<Browser> {
  clearTimeout(closing);
  open++;
  if (!browser) {
    browser = chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    // Closed after the test file even when a page was never released (a test failed mid-way).
    untrack = onTeardown('the shared Chromium', closeBrowser, () => undefined);
  }
  return browser;
}

function releaseBrowser(): void {
  if (--open > 0) return;
  closing = setTimeout(() => void closeBrowser(), 1000);
}

/** The page's memory in use after a full garbage collection, in MB: the JS heap plus array buffers (typed arrays). */
export async function heapUsedMB(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  // backingStorageSize: array buffers outside the JS heap (where an index keeps its postings); newer than the types.
  const usage = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize?: number };
  return (usage.usedSize + (usage.backingStorageSize ?? 0)) / 1e6;
}
