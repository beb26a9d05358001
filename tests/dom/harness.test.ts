// The panes' harness: a page bundled with the mocks and the real engine opens in headless Chromium, a click reaches the
// engine, and the page has no console errors. Skips, saying why, where Chromium is missing.
import { describe, expect, it } from 'vitest';
import { chromiumMissing, openView } from '../helpers/view-harness';

const missing = chromiumMissing();

describe.skipIf(missing)(`the panes' Chromium harness${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('mounts a pane over the real engine; a click searches the in-memory vault', async () => {
    const v = await openView('harness-check');
    try {
      await v.page.click('text=Search pnpm');
      await v.page.waitForSelector('.engram-harness-out:has-text("Use pnpm workspaces.md")');
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });
});
