// A pane of the plugin in headless Chromium (the `dom` tests and the panes' bench): a page entry under tests/dom/pages
// is bundled with `obsidian` mapped to obsidian-test-mocks, opened light or dark, and waited on until its pane is up.
// Screenshots go to .tmp/screenshots/<name>.png.
import fs from 'node:fs';
import path from 'node:path';
import { bundleForBrowser, openPage, type ChromiumPage } from './chromium';
import { repoRoot } from './shared';

export { chromiumMissing } from './chromium';

const bundles = new Map<string, Promise<string>>();

export interface ViewPage extends ChromiumPage {
  /** Saves a screenshot of the page as .tmp/screenshots/<name>.png; returns its path. */
  screenshot(name: string): Promise<string>;
}

/** Opens `tests/dom/pages/<page>.page.ts` in Chromium with the given theme and waits until its pane is mounted. */
export async function openView(page: string, opts: { theme?: 'light' | 'dark'; files?: Record<string, string | Uint8Array> } = {}): Promise<ViewPage> {
  const entry = path.join(repoRoot, 'tests', 'dom', 'pages', `${page}.page.ts`);
  if (!bundles.has(entry)) bundles.set(entry, bundleForBrowser(entry, { obsidian: 'obsidian-test-mocks/obsidian' }));
  const p = await openPage(await bundles.get(entry)!, opts.files, { search: `?theme=${opts.theme ?? 'light'}`, viewport: { width: 900, height: 700 } });
  await p.page.waitForFunction(() => window.engramPage?.ready === true, undefined, { timeout: 30_000 });
  const failed = await p.page.evaluate(() => window.engramPage.error);
  if (failed) {
    await p.close();
    throw new Error(`the page failed: ${failed}`);
  }
  return {
    ...p,
    async screenshot(name) {
      const file = path.join(repoRoot, '.tmp', 'screenshots', `${name}.png`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      await p.page.screenshot({ path: file, fullPage: true });
      return file;
    },
  };
}
