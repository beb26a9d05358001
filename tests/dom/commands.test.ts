// The merge and split commands in headless Chromium: the picker and the preview open in the document, real clicks
// choose notes and apply, and the in-memory vault shows the result; screenshots of both modals, light and dark.
import { describe, expect, it } from 'vitest';
import { chromiumMissing, openView, type ViewPage } from '../helpers/view-harness';

const missing = chromiumMissing();

async function openNote(v: ViewPage, path: string): Promise<void> {
  await v.page.evaluate((p) => (window as unknown as { engramOpen(path: string): Promise<void> }).engramOpen(p), path);
}

const files = (v: ViewPage) => v.page.evaluate(() => window.engramPage.world.files());

describe.skipIf(missing)(`the merge and split commands in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`splits the open note after its preview (${theme})`, async () => {
      const v = await openView('commands', { theme });
      try {
        await openNote(v, 'Notes/Guide.md');
        await v.page.evaluate(() => window.engramCommand('split-note'));
        await v.page.waitForSelector('.engram-preview-modal h4:has-text("Notes/Guide - Usage.md (new note)")');
        await v.screenshot(`commands-split-${theme}`);
        expect(Object.keys(await files(v))).not.toContain('Notes/Guide - Usage.md');
        await v.page.click('.engram-preview-modal button:has-text("Apply")');
        await v.page.waitForSelector('.engram-preview-modal', { state: 'detached' });
        await expect.poll(async () => (await files(v))['Notes/Guide - Usage.md']).toMatch(/What to know about usage/);
        expect((await files(v))['Notes/Guide.md']).toMatch(/## Parts\n\n- \[\[Guide - Setup\]\]\n- \[\[Guide - Usage\]\]/);
        expect(v.errors).toEqual([]);
      } finally {
        await v.close();
      }
    });

    it(`merges notes picked with real clicks after its preview (${theme})`, async () => {
      const v = await openView('commands', { theme });
      try {
        await openNote(v, 'Notes/Deploy.md');
        await v.page.evaluate(() => window.engramCommand('merge-notes'));
        const preview = v.page.locator('.engram-picker-modal button:has-text("Preview merge")');
        await expect.poll(() => preview.isDisabled()).toBe(true);
        await v.page.fill('.engram-picker-filter', 'release');
        await v.page.click('.engram-picker-row:has-text("Notes/Release.md")');
        await v.screenshot(`commands-picker-${theme}`);
        await preview.click();
        // Each note it would write: rendered, with its exact text under "Markdown source".
        await v.page.waitForSelector('.engram-preview-modal .engram-note-source summary');
        expect(await v.page.textContent('.engram-preview-modal pre.engram-preview-text')).toContain('Release');
        await v.screenshot(`commands-merge-${theme}`);
        expect(await v.page.textContent('.engram-preview-trash')).toBe('Moved to the trash: Notes/Release.md');
        await v.page.click('.engram-preview-modal button:has-text("Apply")');
        await expect.poll(async () => (await files(v))['Notes/Release.md']).toBeUndefined();
        expect((await files(v))['Notes/Index.md']).toBe('See [[Deploy]] and [[Deploy|Release]].\n');
        expect(v.errors).toEqual([]);
      } finally {
        await v.close();
      }
    });
  }
});
