// The search pane in headless Chromium over the real engine: ranked results as you type with why they matched,
// filters and a date phrase narrow them, a click or Enter opens the note, a late answer never replaces a newer one.
import { describe, expect, it } from 'vitest';
import { chromiumMissing, openView, type ViewPage } from '../helpers/view-harness';

const missing = chromiumMissing();

async function typeQuery(v: ViewPage, query: string): Promise<string[]> {
  await v.page.fill('.engram-search-input', query);
  return resultsFor(v, query);
}

/** The result paths once the pane shows the answer to `query`. */
async function resultsFor(v: ViewPage, query: string): Promise<string[]> {
  await v.page.waitForSelector(`.engram-search-results[data-query="${query}"]`);
  return v.page.$$eval('.engram-search-result', (els) => els.map((e) => (e as HTMLElement).dataset.path!));
}

describe.skipIf(missing)(`search pane${missing ? ` (skipped: ${missing})` : ''}`, () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`typing shows ranked results that say why they matched (${theme})`, async () => {
      const v = await openView('search', { theme });
      try {
        await v.page.waitForSelector('.engram-search-status:has-text("Type to search")');
        // Typed a key at a time, as a user types: only the answer to the whole query stays.
        await v.page.type('.engram-search-input', 'sidecar socket timeout', { delay: 5 });
        const paths = await resultsFor(v, 'sidecar socket timeout');
        expect(paths[0]).toBe('Engram/Projects/acme/Sidecar socket timeout.md');
        expect(paths).not.toContain('Notes/Garden.md');
        const first = v.page.locator('.engram-search-result').first();
        await expect(first.locator('.engram-search-result-title').textContent()).resolves.toBe('Sidecar socket timeout');
        const why = await first.locator('.engram-search-why-item').allTextContents();
        expect(why.some((w) => /^title: .*sidecar/.test(w))).toBe(true);
        await expect(first.locator('.engram-search-result-snippet').textContent()).resolves.toMatch(/socket/i);
        await v.screenshot(`search-${theme}`);
        expect(v.errors).toEqual([]);
      } finally {
        await v.close();
      }
    });
  }

  it('marks outside text and text addressed to an AI, and leaves the user\'s own notes unmarked', async () => {
    const v = await openView('search');
    try {
      const paths = await typeQuery(v, 'kombucha fermentation');
      expect(paths.sort()).toEqual(['Clippings/Kombucha second fermentation.md', 'Notes/Kombucha brewing log.md']);
      const badges = async (path: string) => v.page.locator(`.engram-search-result[data-path="${path}"] .engram-badge`).allTextContents();
      expect(await badges('Clippings/Kombucha second fermentation.md')).toEqual(['Outside text']);
      expect(await badges('Notes/Kombucha brewing log.md')).toEqual(['Addressed to an AI']);
      const why = await v.page.locator('.engram-search-result[data-path="Clippings/Kombucha second fermentation.md"] .engram-search-why-item').allTextContents();
      expect(why[0]).toMatch(/^outside text, not the user's words \(folder Clippings\)/);
      await v.screenshot('search-marks');
      await typeQuery(v, 'sidecar socket timeout');
      expect(await v.page.locator('.engram-badge').count()).toBe(0);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('the type, project and working-memory filters narrow the results', async () => {
    const v = await openView('search');
    try {
      const all = await typeQuery(v, 'socket');
      expect(all.length).toBeGreaterThanOrEqual(5);
      await v.page.selectOption('.engram-search-type', 'insight');
      await v.page.waitForFunction(() => [...document.querySelectorAll<HTMLElement>('.engram-search-result')].length === 2);
      expect(await resultsFor(v, 'socket')).toEqual(expect.arrayContaining(['Engram/Projects/zeta/Socket pool sizing.md', 'Engram/Working memory/Socket retry idea.md']));
      await v.page.fill('.engram-search-project', 'acme');
      await v.page.waitForFunction(() => document.querySelectorAll('.engram-search-result').length === 1);
      expect(await resultsFor(v, 'socket')).toEqual(['Engram/Working memory/Socket retry idea.md']);
      await v.page.fill('.engram-search-project', '');
      await v.page.selectOption('.engram-search-type', '');
      await v.page.check('.engram-search-working input');
      await v.page.waitForFunction(() => document.querySelectorAll('.engram-search-result').length === 1);
      expect(await resultsFor(v, 'socket')).toEqual(['Engram/Working memory/Socket retry idea.md']);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('a date phrase filters by date and says so', async () => {
    const v = await openView('search');
    try {
      const everyDate = await typeQuery(v, 'socket');
      expect(everyDate).toContain('Engram/Projects/acme/Use a Unix socket for the sidecar.md');
      const paths = await typeQuery(v, 'socket last week');
      // "Last week" is from Monday 9 March to now (Friday 20th): the March notes stay, February's decision goes.
      expect(paths.sort()).toEqual([
        'Engram/Inbox/Socket timeouts need backoff.md',
        'Engram/Projects/acme/Sidecar socket timeout.md',
        'Engram/Projects/zeta/Socket pool sizing.md',
        'Engram/Working memory/Socket retry idea.md',
        'Notes/Daily 2026-03-19.md',
      ]);
      await v.page.waitForSelector('.engram-search-notice:has-text("last week")');
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('a click, or Enter on a focused result, opens the note', async () => {
    const v = await openView('search');
    try {
      await typeQuery(v, 'unix socket');
      await v.page.click('.engram-search-result[data-path="Engram/Projects/acme/Use a Unix socket for the sidecar.md"]');
      await v.page.waitForFunction(() => window.engramPage.world.app.workspace.getActiveFile()?.path === 'Engram/Projects/acme/Use a Unix socket for the sidecar.md');
      await typeQuery(v, 'pool sizing');
      await v.page.focus('.engram-search-input');
      await v.page.keyboard.press('ArrowDown');
      await v.page.keyboard.press('Enter');
      await v.page.waitForFunction(() => window.engramPage.world.app.workspace.getActiveFile()?.path === 'Engram/Projects/zeta/Socket pool sizing.md');
      expect(await v.page.evaluate(() => window.engramOpened)).toEqual(['Engram/Projects/acme/Use a Unix socket for the sidecar.md', 'Engram/Projects/zeta/Socket pool sizing.md']);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('an answer that arrives after a newer query is typed never replaces it', async () => {
    const v = await openView('search');
    try {
      await v.page.evaluate(() => (window.engramSlowQuery = 'socket'));
      await v.page.fill('.engram-search-input', 'socket');
      await v.page.waitForFunction(() => window.engramRelease !== undefined);
      const newer = await typeQuery(v, 'unix socket');
      await v.page.evaluate(() => window.engramRelease!());
      await v.page.waitForFunction(() => window.engramAnswered.includes('socket'));
      expect(await v.page.evaluate(() => window.engramAnswered)).toEqual(['unix socket', 'socket']);
      expect(await resultsFor(v, 'unix socket')).toEqual(newer);
      expect(newer[0]).toBe('Engram/Projects/acme/Use a Unix socket for the sidecar.md');
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('shows the team\'s notes among the vault\'s, labelled with the author, and copies one into the vault', async () => {
    const v = await openView('search-team');
    try {
      await typeQuery(v, 'sidecar socket timeout');
      const order = await v.page.$$eval('.engram-search-result', (els) => els.map((e) => (e as HTMLElement).dataset.path ?? `team:${(e as HTMLElement).dataset.teamId}`));
      // Reciprocal rank: the vault's best first, the team's best second.
      expect(order.slice(0, 2)).toEqual(['Engram/Projects/acme/Sidecar socket timeout.md', 'team:3f0c2a8e-0000-4000-8000-000000000001']);
      const shared = v.page.locator('.engram-search-team');
      await expect(shared.locator('.engram-badge').textContent()).resolves.toBe('Team');
      await expect(shared.locator('.engram-search-result-meta').textContent()).resolves.toBe('team core, acme, by ann');
      await expect(v.page.locator('.engram-search-status').textContent()).resolves.toMatch(/and 1 team note/);
      await v.screenshot('search-team');
      await shared.locator('.engram-search-team-copy').click();
      await v.page.waitForSelector('.engram-search-team-copy:has-text("Copied to")');
      const files = await v.page.evaluate(() => window.engramPage.world.files());
      const copied = files['Engram/Inbox/Socket timeouts on CI runners.md'];
      expect(copied).toMatch(/engram_trust: outside/);
      expect(copied).toMatch(/author: ann/);
      expect(copied).toContain('needs a keepalive');
      expect(await v.page.evaluate(() => window.engramOpened)).toEqual(['Engram/Inbox/Socket timeouts on CI runners.md']);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });
});
