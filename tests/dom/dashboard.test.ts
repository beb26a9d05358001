// The dashboard pane in headless Chromium over the real engine and 30 days of activity: the tiles add up to the
// record, the charts draw a bar per day and per session with the session budget, the span buttons change the range.
import { describe, expect, it } from 'vitest';
import { chromiumMissing, openView } from '../helpers/view-harness';

const missing = chromiumMissing();

describe.skipIf(missing)(`dashboard pane${missing ? ` (skipped: ${missing})` : ''}`, () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`shows captures, injected tokens per day and per session against the budget, and notes by type (${theme})`, async () => {
      const v = await openView('dashboard', { theme });
      try {
        await v.page.waitForSelector('.engram-dash-injected svg');
        // The tiles are the record's totals, as the engine computes them for `engram stats`.
        const stats = await v.page.evaluate(() => window.engramPage.world.api.stats(30));
        const tile = (cls: string) => v.page.locator(`.engram-dash-tile.${cls} .engram-dash-tile-value`).textContent();
        await expect(tile('is-sessions')).resolves.toBe(String(stats.totals.sessions));
        await expect(tile('is-injected')).resolves.toBe(`~${stats.totals.injectedTokens.toLocaleString('en-US')}`);
        await expect(tile('is-filed')).resolves.toBe(String(stats.totals.filed));
        // The share of injected notes read or cited afterwards, and the secrets redacted: the record's, as computed.
        expect(stats.use.used).toBeGreaterThan(0);
        expect(stats.use.used).toBeLessThan(stats.use.injected);
        await expect(tile('is-used')).resolves.toBe(`${Math.round((stats.use.used / stats.use.injected) * 100)}%`);
        expect(stats.totals.redactions).toBeGreaterThan(0);
        await expect(tile('is-redactions')).resolves.toBe(String(stats.totals.redactions));
        await expect(v.page.locator('.engram-dash-use').textContent()).resolves.toContain(`Of ${stats.use.injected} notes injected, ${stats.use.read} were read afterwards over MCP and ${stats.use.cited} named`);
        const trouble = await v.page.$$eval('.engram-dash-failures .engram-dash-bar', (els) => els.map((e) => Number(e.getAttribute('data-value'))));
        expect(trouble).toEqual(stats.days.map((d) => d.failures + d.redactions));
        expect(stats.totals.sessions).toBeGreaterThan(30);
        // A bar a day, each the day's injected tokens; a bar a session with the budget line.
        const days = await v.page.$$eval('.engram-dash-injected .engram-dash-bar', (els) => els.map((e) => Number(e.getAttribute('data-value'))));
        expect(days).toEqual(stats.days.map((d) => d.injectedTokens));
        expect(days).toHaveLength(30);
        // The day's budget as a dashed step line: each day's context requests at their caps (4,000 characters at a
        // session's start, 1,500 a prompt, 24,000 a session), in tokens; no day was given more than it.
        const budget = (await v.page.locator('.engram-dash-injected .engram-dash-budget').getAttribute('data-values'))!.split(',').map(Number);
        expect(budget).toEqual(stats.days.map((d) => d.budgetTokens));
        expect(stats.days.every((d) => d.injectedTokens <= d.budgetTokens)).toBe(true);
        expect(stats.days.filter((d) => d.budgetTokens > 0).length).toBe(stats.days.filter((d) => d.injections + d.events > 0).length);
        await expect(v.page.locator('.engram-dash-injected .engram-dash-legend').textContent()).resolves.toContain('4,000 characters at a session\'s start, 1,500 a prompt, at most 24,000 a session');
        await expect(v.page.locator('.engram-dash-sessions .engram-dash-limit-label').textContent()).resolves.toBe('budget ~6,000 tokens');
        expect(await v.page.locator('.engram-dash-sessions .engram-dash-bar').count()).toBe(Math.min(50, stats.totals.sessions));
        await expect(v.page.locator('.engram-dash-types .engram-dash-row').first().locator('.engram-dash-row-name').textContent()).resolves.toBeTruthy();
        await v.screenshot(`dashboard-${theme}`);
        // Seven days: fewer bars, smaller totals.
        await v.page.click('.engram-dash-span:has-text("7 days")');
        await v.page.waitForFunction(() => document.querySelectorAll('.engram-dash-injected .engram-dash-bar').length === 7);
        const week = await v.page.evaluate(() => window.engramPage.world.api.stats(7));
        await expect(tile('is-injected')).resolves.toBe(`~${week.totals.injectedTokens.toLocaleString('en-US')}`);
        expect(week.totals.injectedTokens).toBeLessThan(stats.totals.injectedTokens);
        expect(v.errors).toEqual([]);
      } finally {
        await v.close();
      }
    });
  }
});
