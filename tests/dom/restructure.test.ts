// The restructure pane in headless Chromium over the real engine: it shows a diff (unified and side by side), applies a
// merge and a split (the vault shows the new notes, the originals in the trash, links rewritten in the linking notes),
// guards a very large note's diff, skips, a locked note leaves the next plan, it waits while the vault is not hosted
// here, and a proposal whose note changed is refreshed, never applied.
import { describe, expect, it } from 'vitest';
import { chromiumMissing, openView, type ViewPage } from '../helpers/view-harness';

const missing = chromiumMissing();

/** Every file of the in-memory vault, trash included (`.trash/…`). */
function snapshot(v: ViewPage): Promise<Record<string, string>> {
  return v.page.evaluate(() => window.engramPage.world.host.vault.snapshot());
}

const card = (kind: string, title: string) => `.engram-restructure-card[data-kind="${kind}"]:has-text("${title}")`;

async function openCard(v: ViewPage, sel: string): Promise<void> {
  if ((await v.page.getAttribute(`${sel} .engram-restructure-card-head`, 'aria-expanded')) !== 'true') await v.page.click(`${sel} .engram-restructure-card-head`);
  await v.page.waitForSelector(`${sel}.is-open .engram-diff`);
}

describe.skipIf(missing)(`the restructure pane${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('shows the diff of a merge and its link rewrites, then applies it', async () => {
    const v = await openView('restructure');
    v.page.setDefaultTimeout(10_000);
    try {
      const merge = card('merge', 'into [[Prefer pnpm workspaces]]');
      await openCard(v, merge);
      // The kept note gains only what it lacks (here the other's name, as an alias: its text is already there); the
      // linking note's link is listed with its new form.
      await v.page.waitForSelector(`${merge} .engram-diff-add:has-text("Use pnpm workspaces")`);
      await v.page.waitForSelector(`${merge} .engram-restructure-link:has-text("[[Use pnpm workspaces]] → [[Prefer pnpm workspaces|Use pnpm workspaces]]")`);
      await v.page.click('.engram-restructure-modes button:has-text("Side by side")');
      await v.page.waitForSelector(`${merge} .engram-diff-row .engram-diff-add`);
      await v.page.click('.engram-restructure-modes button:has-text("Unified")');
      await v.screenshot('restructure-light');

      await v.page.click(`${merge} button:has-text("Apply")`);
      await v.page.waitForSelector('.engram-restructure-message:has-text("Applied: merge")');
      const files = await snapshot(v);
      expect(files['Engram/Use pnpm workspaces.md']).toBeUndefined();
      // One note: its own text once, the other's name kept as an alias, no section repeating what it says.
      expect(files['Engram/Prefer pnpm workspaces.md']).toContain('aliases:\n  - Use pnpm workspaces');
      expect(files['Engram/Prefer pnpm workspaces.md']).not.toContain('## Use pnpm workspaces');
      expect(files['Engram/Prefer pnpm workspaces.md'].match(/Every package lists/g)).toHaveLength(1);
      expect(files['.trash/Engram/Use pnpm workspaces.md']).toContain('The lockfile is pnpm-lock.yaml.');
      expect(files['.trash/Engram/Prefer pnpm workspaces.md']).toContain('the lockfile is pnpm-lock.yaml.');
      expect(files['Notes/Todo.md']).toBe('- [ ] read [[Prefer pnpm workspaces|Use pnpm workspaces]] again\n');
      // The applied proposal is gone from the refreshed plan.
      expect(await v.page.locator(merge).count()).toBe(0);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('applies a split: one note per section, the hub in place, links to a section follow it', async () => {
    const v = await openView('restructure');
    v.page.setDefaultTimeout(10_000);
    try {
      const split = card('split', 'split [[Release guide]]');
      await openCard(v, split);
      await v.page.waitForSelector(`${split} .engram-restructure-file[data-path="Engram/Release guide - Build.md"] .engram-diff-add`);
      await v.page.waitForSelector(`${split} .engram-restructure-link:has-text("[[Release guide#Build|the build]] → [[Release guide - Build|the build]]")`);
      // The hub's diff: its sections removed, their links added, and the unchanged lines far from a change collapsed.
      const hub = `${split} .engram-restructure-file[data-path="Engram/Release guide.md"]`;
      await v.page.waitForSelector(`${hub} .engram-diff-del`);
      await v.page.waitForSelector(`${hub} .engram-diff-add:has-text("[[Release guide - Build]]")`);
      expect(await v.page.locator(`${hub} .engram-diff-skip`).first().textContent()).toMatch(/^\d+ unchanged lines?$/);
      await v.page.locator(hub).scrollIntoViewIfNeeded();
      await v.screenshot('restructure-split-light');
      await v.page.click(`${split} button:has-text("Apply")`);
      await v.page.waitForSelector('.engram-restructure-message:has-text("Applied: split")');
      const files = await snapshot(v);
      for (const part of ['Prepare', 'Build', 'Publish']) expect(files[`Engram/Release guide - ${part}.md`]).toContain(`Point 1 on ${part.toLowerCase()}`);
      expect(files['Engram/Release guide.md']).toContain('[[Release guide - Build]]');
      expect(files['.trash/Engram/Release guide.md']).toContain('## Build');
      expect(files['Notes/Index.md']).toContain('[[Release guide - Build|the build]]');
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('shows a summary for a very large note until asked for the full diff', async () => {
    const v = await openView('restructure');
    v.page.setDefaultTimeout(10_000);
    try {
      const split = card('split', 'split [[Handbook]]');
      await v.page.click(`${split} .engram-restructure-card-head`);
      const hub = `${split} .engram-restructure-file[data-path="Engram/Handbook.md"]`;
      await v.page.waitForSelector(`${hub} .engram-diff-large:has-text("A large note: 56,333 characters now")`);
      expect(await v.page.locator(`${hub} .engram-diff-line`).count()).toBe(0);
      await v.page.click(`${hub} button:has-text("Show full diff")`);
      await v.page.waitForSelector(`${hub} .engram-diff-del:has-text("Point 1 on hiring")`, { state: 'attached' });
      expect(await v.page.locator(`${hub} .engram-diff-large`).count()).toBe(0);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('skips a proposal, by keyboard, until asked to show the skipped ones, changing nothing', async () => {
    const v = await openView('restructure');
    v.page.setDefaultTimeout(10_000);
    try {
      // By keyboard: the card's heading opens it and keeps the focus; Tab reaches its buttons.
      const retry = card('merge', 'Retry');
      await v.page.focus(`${retry} .engram-restructure-card-head`);
      await v.page.keyboard.press('Enter');
      await v.page.waitForSelector(`${retry}.is-open .engram-diff`);
      expect(await v.page.evaluate(() => document.activeElement?.classList.contains('engram-restructure-card-head'))).toBe(true);
      const before = await snapshot(v);
      await v.page.focus(`${retry} button:has-text("Skip")`);
      await v.page.keyboard.press('Enter');
      await v.page.waitForSelector('.engram-restructure-skipped:has-text("1 skipped")');
      expect(await v.page.locator(retry).count()).toBe(0);
      await v.page.click('button:has-text("Show skipped")');
      await v.page.waitForSelector(retry);
      expect(await snapshot(v)).toEqual(before);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('locks a note: it leaves the next plan, and only its frontmatter changes', async () => {
    const v = await openView('restructure');
    v.page.setDefaultTimeout(10_000);
    try {
      const retry = card('merge', 'Retry');
      await openCard(v, retry);
      const before = (await snapshot(v))['Engram/Retry with backoff.md'];
      await v.page.click(`${retry} .engram-restructure-source:has-text("Engram/Retry with backoff.md") button:has-text("Lock")`);
      await v.page.waitForSelector('.engram-restructure-message:has-text("Locked Engram/Retry with backoff.md")');
      expect(await v.page.locator(retry).count()).toBe(0);
      expect((await snapshot(v))['Engram/Retry with backoff.md']).toBe(before.replace('tags: [retries]\n', 'tags: [retries]\nlocked: true\n'));
      // The other proposals are still there.
      expect(await v.page.locator(card('merge', 'pnpm')).count()).toBe(1);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('waits while the vault is not hosted here, and plans when hosting starts', async () => {
    const v = await openView('restructure');
    v.page.setDefaultTimeout(10_000);
    try {
      await v.page.waitForSelector('.engram-restructure-card');
      await v.page.evaluate(() => window.engramHosting(false));
      await v.page.waitForSelector('.engram-restructure-empty:has-text("Waiting for Engram to host this vault")');
      expect(await v.page.locator('.engram-restructure-card').count()).toBe(0);
      expect(await v.page.isDisabled('button:has-text("Refresh")')).toBe(true);
      await v.page.evaluate(() => window.engramHosting(true));
      await v.page.waitForSelector(card('merge', 'into [[Prefer pnpm workspaces]]'));
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('a proposal whose note changed since the plan is refreshed, not applied', async () => {
    const v = await openView('restructure', { theme: 'dark' });
    v.page.setDefaultTimeout(10_000);
    try {
      const merge = card('merge', 'into [[Prefer pnpm workspaces]]');
      await openCard(v, merge);
      const oldId = await v.page.getAttribute(merge, 'data-id');
      const edited = '---\ntype: decision\ntags: [tooling]\n---\nWe use pnpm workspaces for the monorepo, not npm or yarn. The lockfile is pnpm-lock.yaml. Every package lists its own dependencies, and the root only holds the tools that all of them share. Edited.\n';
      await v.page.evaluate((text) => window.engramPage.world.host.vault.externalWrite('Engram/Use pnpm workspaces.md', text), edited);
      const before = await snapshot(v);
      await v.page.click(`${merge} button:has-text("Apply")`);
      await v.page.waitForSelector('.engram-restructure-message:has-text("Engram/Use pnpm workspaces.md changed since the plan, so nothing was applied")');
      expect(await snapshot(v)).toEqual(before);
      // The refreshed plan proposes the merge again, made from the note as it is now (a new id).
      await v.page.waitForSelector(merge);
      const newId = await v.page.getAttribute(merge, 'data-id');
      expect(newId).not.toBe(oldId);
      await v.page.waitForSelector(`${merge} .engram-diff-add:has-text("Edited.")`);
      await v.screenshot('restructure-dark');
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('a proposal the engine refuses (a note now exists where it would write) changes nothing and is refreshed', async () => {
    const v = await openView('restructure');
    v.page.setDefaultTimeout(10_000);
    try {
      const split = card('split', 'split [[Release guide]]');
      await openCard(v, split);
      await v.page.evaluate(() => window.engramPage.world.host.vault.externalWrite('Engram/Release guide - Build.md', 'Mine.\n'));
      const before = await snapshot(v);
      await v.page.click(`${split} button:has-text("Apply")`);
      await v.page.waitForSelector('.engram-restructure-message:has-text("Not applied: a note now exists at Engram/Release guide - Build.md; nothing was changed. The proposals were refreshed.")');
      expect(await snapshot(v)).toEqual(before);
      // The fresh plan writes the part beside the user's note.
      await openCard(v, split);
      await v.page.waitForSelector(`${split} .engram-restructure-file[data-path="Engram/Release guide - Build 1.md"]`);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });
});
