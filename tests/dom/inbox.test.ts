// capture.mode inbox in the review pane (headless Chromium, the real engine): what a session yielded waits at the top
// as "New from a session" with the exact text it would write; Approve writes that text, Reject discards it, and
// nothing else reaches the vault.
import { describe, expect, it } from 'vitest';
import { chromiumMissing, openView } from '../helpers/view-harness';

const missing = chromiumMissing();

describe.skipIf(missing)(`inbox in the review pane${missing ? ` (skipped: ${missing})` : ''}`, () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`shows held notes first; approve writes one, reject discards another (${theme})`, async () => {
      const v = await openView('inbox', { theme });
      try {
        await v.page.waitForSelector('.engram-review-capture');
        const before = await v.page.evaluate(() => window.engramPage.world.files());
        // Nothing the session said is in the vault yet.
        expect(Object.values(before).filter((t) => /XDG_RUNTIME_DIR|batch embeddings|nightly job/.test(t))).toEqual([]);
        await expect(v.page.locator('.engram-review-project-name').first().textContent()).resolves.toBe('Captured, waiting for approval');
        const items = v.page.locator('.engram-review-capture');
        expect(await items.count()).toBe(3);
        await v.screenshot(`inbox-${theme}`);
        const socket = items.filter({ hasText: 'sidecar socket' });
        const path = (await socket.locator('.engram-review-preview-label').textContent())!.replace(/^Will write /, '');
        const text = await socket.locator('.engram-review-preview-text').textContent();
        await socket.locator('.engram-review-approve').click();
        await v.page.waitForSelector('.engram-review-status:has-text("Applied 1 proposal")');
        const after = await v.page.evaluate(() => window.engramPage.world.files());
        expect(after[path]).toBe(text);
        await items.filter({ hasText: 'batch embeddings' }).locator('.engram-review-reject').click();
        await v.page.waitForSelector('.engram-review-status:has-text("Discarded")');
        const plan = await v.page.evaluate(() => window.engramPage.world.api.reviewPlan({}));
        expect(plan.proposals.filter((p) => p.kind === 'capture').map((p) => p.title)).toEqual([expect.stringMatching(/For now the nightly job/) as string]);
        const last = await v.page.evaluate(() => window.engramPage.world.files());
        expect(Object.keys(last).length).toBe(Object.keys(before).length + 2);
        expect(v.errors).toEqual([]);
      } finally {
        await v.close();
      }
    });
  }
});
