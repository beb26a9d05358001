// The related pane in headless Chromium over the real engine: for the active note, the closest notes (with why) and
// the notes citing it; it follows the user when the active note changes, and opening an item opens that note.
import { describe, expect, it } from 'vitest';
import { chromiumMissing, openView, type ViewPage } from '../helpers/view-harness';

const missing = chromiumMissing();
const PROBLEM = 'Engram/Projects/acme/Sidecar socket timeout.md';

/** The pane's lists once it shows `path`. */
async function shown(v: ViewPage, path: string): Promise<{ similar: string[]; citing: string[] }> {
  await v.page.waitForSelector(`.engram-related[data-shown="${path}"]`);
  const list = (section: string) => v.page.$$eval(`${section} .engram-related-item`, (els) => els.map((e) => (e as HTMLElement).dataset.path!));
  return { similar: await list('.engram-related-similar'), citing: await list('.engram-related-citing') };
}

describe.skipIf(missing)(`related pane${missing ? ` (skipped: ${missing})` : ''}`, () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`shows the closest notes and the notes citing the active one (${theme})`, async () => {
      const v = await openView('related', { theme });
      try {
        const r = await shown(v, PROBLEM);
        await expect(v.page.locator('.engram-related-note').textContent()).resolves.toBe('Sidecar socket timeout');
        expect(r.similar).not.toContain(PROBLEM);
        expect(r.similar).not.toContain('Notes/Garden.md');
        // Closest by shared words: the daily note says "sidecar socket timeout" and "indexer" too, the retry idea
        // "sidecar socket timeout"; the decision on the same socket shares "sidecar socket" and is listed after them.
        expect(r.similar.slice(0, 2)).toEqual(['Notes/Daily 2026-03-19.md', 'Engram/Working memory/Socket retry idea.md']);
        expect(r.similar).toContain('Engram/Projects/acme/Use a Unix socket for the sidecar.md');
        // Without a model the pane says it ranks by words, and each item says which.
        await v.page.waitForSelector('.engram-related-similar h4:has-text("Closest by shared words")');
        const why = await v.page.locator('.engram-related-similar .engram-related-item').first().locator('.engram-related-why-item').allTextContents();
        expect(why.some((w) => /^(title|summary|body): /.test(w))).toBe(true);
        // Cited by the Engram correction (through `related:`) first, then the daily note (a wikilink in its body).
        expect(r.citing).toEqual(['Engram/Inbox/Socket timeouts need backoff.md', 'Notes/Daily 2026-03-19.md']);
        await v.screenshot(`related-${theme}`);
        expect(v.errors).toEqual([]);
      } finally {
        await v.close();
      }
    });
  }

  it('follows the active note, and opening an item makes it the active note', async () => {
    const v = await openView('related');
    try {
      await shown(v, PROBLEM);
      await v.page.evaluate(() => window.engramPage.world.app.workspace.openLinkText('Notes/Garden.md', ''));
      const garden = await shown(v, 'Notes/Garden.md');
      expect(garden.citing).toEqual([]);
      await v.page.waitForSelector('.engram-related-citing .engram-related-empty:has-text("No note links to this one")');
      await v.page.evaluate((p) => window.engramPage.world.app.workspace.openLinkText(p, ''), PROBLEM);
      await shown(v, PROBLEM);
      await v.page.click('.engram-related-citing .engram-related-item[data-path="Notes/Daily 2026-03-19.md"]');
      const daily = await shown(v, 'Notes/Daily 2026-03-19.md');
      expect(await v.page.evaluate(() => window.engramPage.world.app.workspace.getActiveFile()?.path)).toBe('Notes/Daily 2026-03-19.md');
      expect(daily.similar).toContain(PROBLEM);
      expect(await v.page.evaluate(() => window.engramOpened)).toEqual(['Notes/Garden.md', PROBLEM, 'Notes/Daily 2026-03-19.md']);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });
});
