// The activity pane in headless Chromium over the real engine: a timeline by day and session from the activity
// record, filtered by project and client; a session opens to its entries and the notes each names, and from a note
// the user opens, edits, locks, keeps it from injection, or forgets it, and the vault shows the change.
import { describe, expect, it } from 'vitest';
import { chromiumMissing, openView, type ViewPage } from '../helpers/view-harness';

const missing = chromiumMissing();
const CLAUDE = 'c1aude00-0000-4000-8000-000000000002';
const CODEX = 'c0dex000-0000-4000-8000-000000000001';
const TIMEOUT = 'Engram/Projects/acme/Sidecar socket timeout.md';
const UNIX = 'Engram/Projects/acme/Use a Unix socket for the sidecar.md';
const BACKOFF = 'Engram/Inbox/Socket timeouts need backoff.md';

const sessions = (v: ViewPage) => v.page.$$eval('.engram-act-session', (els) => els.map((e) => (e as HTMLElement).dataset.session));
const notesIn = (v: ViewPage, session: string) =>
  v.page.$$eval(`.engram-act-session[data-session="${session}"] .engram-act-note`, (els) => els.map((e) => `${e.querySelector('.engram-act-role')!.textContent} ${(e as HTMLElement).dataset.path}`));
/** Opens a session: its entries are read then (the pane read the record as a summary), `aria-busy` until drawn. */
const openSession = async (v: ViewPage, session: string) => {
  await v.page.click(`.engram-act-session[data-session="${session}"] .engram-act-group-head`);
  await v.page.waitForSelector(`.engram-act-session[data-session="${session}"][aria-busy="false"]`);
};
const noteRow = (v: ViewPage, role: string, path: string) => v.page.locator(`.engram-act-session[data-session="${CLAUDE}"] .engram-act-note.is-${role}[data-path="${path}"]`).first();

describe.skipIf(missing)(`activity pane${missing ? ` (skipped: ${missing})` : ''}`, () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`shows the week by day and session, and a session's injections, captures and failures with their notes (${theme})`, async () => {
      const v = await openView('activity', { theme });
      try {
        await v.page.waitForSelector('.engram-act-day');
        expect(await v.page.$$eval('.engram-act-day', (els) => els.map((e) => (e as HTMLElement).dataset.day))).toEqual(['2026-03-20', '2026-03-18']);
        expect(await sessions(v)).toEqual([CLAUDE, CODEX]);
        await expect(v.page.locator('.engram-act-day[data-day="2026-03-20"] .engram-act-day-figures').textContent()).resolves.toBe('1 session · ~248 tokens injected · 1 filed · 1 held · 1 MCP call · 1 failed');
        await expect(v.page.locator(`.engram-act-session[data-session="${CLAUDE}"] .engram-act-group-title`).textContent()).resolves.toBe('09:00–09:41  c1aude00  acme · Claude Code');
        // Closed until clicked: then every entry, and each note it names with what happened to it.
        expect(await notesIn(v, CLAUDE)).toEqual([]);
        await openSession(v, CLAUDE);
        expect(await notesIn(v, CLAUDE)).toEqual([`injected ${TIMEOUT}`, 'withheld Notes/Kombucha brewing log.md', `injected ${UNIX}`, `filed ${BACKOFF}`, 'proposed Engram/Inbox/Retry budget.md', `cited ${TIMEOUT}`]);
        const summaries = await v.page.locator(`.engram-act-session[data-session="${CLAUDE}"] .engram-act-summary`).allTextContents();
        expect(summaries).toEqual([
          'SessionStart: injected 1 note, ~153 tokens, 1 withheld',
          'UserPromptSubmit: injected 1 note, ~95 tokens',
          'capture: extracted 1 notes, 1 held for review (6,530 LLM tokens)',
          'failed: capture job c1aude00: timeout (retried on the next sweep)',
        ]);
        // A proposal not yet written is named, without actions on a note that is not there.
        await expect(noteRow(v, 'proposed', 'Engram/Inbox/Retry budget.md').locator('.engram-act-gone').textContent()).resolves.toBe('(no longer in the vault)');
        await expect(noteRow(v, 'injected', TIMEOUT).locator('.engram-act-link').textContent()).resolves.toBe('Sidecar socket timeout');
        // The MCP read of the day, in its own group.
        await v.page.click('.engram-act-other .engram-act-group-head');
        await expect(v.page.locator('.engram-act-other .engram-act-note.is-read').getAttribute('data-path')).resolves.toBe(UNIX);
        await v.screenshot(`activity-${theme}`);
        expect(v.errors).toEqual([]);
      } finally {
        await v.close();
      }
    });
  }

  it('filters by client and project, and the span changes the days', async () => {
    const v = await openView('activity');
    try {
      await v.page.waitForSelector('.engram-act-day');
      await v.page.selectOption('.engram-act-client', 'codex');
      expect(await sessions(v)).toEqual([CODEX]);
      // The MCP requests belong to no client: not shown under one.
      expect(await v.page.locator('.engram-act-other').count()).toBe(0);
      await v.page.selectOption('.engram-act-client', '');
      await v.page.selectOption('.engram-act-project', 'acme');
      expect(await sessions(v)).toEqual([CLAUDE]);
      await v.page.selectOption('.engram-act-project', '');
      await v.page.click('.engram-act-span:has-text("Today")');
      await v.page.waitForFunction(() => document.querySelectorAll('.engram-act-day').length === 1);
      expect(await sessions(v)).toEqual([CLAUDE]);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('from a note: open, edit, lock, never inject, forget, each changing the vault as said', async () => {
    const v = await openView('activity');
    try {
      await v.page.waitForSelector('.engram-act-day');
      await openSession(v, CLAUDE);
      await noteRow(v, 'injected', TIMEOUT).locator('.engram-act-link').click();
      await noteRow(v, 'injected', UNIX).locator('.engram-act-edit').click();
      await v.page.waitForFunction((n) => window.engramOpened.length === n, 2);
      expect(await v.page.evaluate(() => window.engramOpened)).toEqual([TIMEOUT, UNIX]);
      // Lock: `locked: true` in the frontmatter, the button says Unlock, and Forget is gone from a locked note.
      await noteRow(v, 'injected', TIMEOUT).locator('.engram-act-lock').click();
      await noteRow(v, 'injected', TIMEOUT).locator('.engram-act-lock:has-text("Unlock")').waitFor();
      expect(await noteRow(v, 'injected', TIMEOUT).locator('.engram-act-forget').count()).toBe(0);
      let files = await v.page.evaluate(() => window.engramPage.world.files());
      expect(files[TIMEOUT]).toMatch(/^---\n[^]*\nlocked: true\n[^]*---\n/);
      // Never inject: `inject: false`, and a hook no longer sends the note, though recall still finds it.
      await noteRow(v, 'injected', UNIX).locator('.engram-act-noinject').click();
      await noteRow(v, 'injected', UNIX).locator('.engram-act-noinject:has-text("Allow injection")').waitFor();
      files = await v.page.evaluate(() => window.engramPage.world.files());
      expect(files[UNIX]).toMatch(/\ninject: false\n/);
      const sent = await v.page.evaluate(async () => (await window.engramPage.world.host.engine.context({ event: 'UserPromptSubmit', prompt: 'why a unix domain socket for the sidecar?', sessionId: 'x', project: 'acme', maxChars: 4000, maxItems: 5 })).items.map((i) => i.path));
      expect(sent).not.toContain(UNIX);
      const found = await v.page.evaluate(async () => (await window.engramPage.world.api.search('unix domain socket sidecar')).hits.map((h) => h.path));
      expect(found).toContain(UNIX);
      // Forget: the note moves into the archive; its row says it is gone.
      await noteRow(v, 'filed', BACKOFF).locator('.engram-act-forget').click();
      await noteRow(v, 'filed', BACKOFF).locator('.engram-act-gone').waitFor();
      files = await v.page.evaluate(() => window.engramPage.world.files());
      expect(files[BACKOFF]).toBeUndefined();
      expect(Object.keys(files).filter((p) => p.endsWith('/Socket timeouts need backoff.md'))).toHaveLength(1);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('a month shows its newest two weeks first, then the older days on request, newest first', async () => {
    const v = await openView('activity-months');
    try {
      await v.page.click('.engram-act-span:has-text("30 days")');
      await v.page.waitForSelector('.engram-act-more');
      const days = () => v.page.$$eval('.engram-act-day', (els) => els.map((e) => (e as HTMLElement).dataset.day!));
      const first = await days();
      expect(first).toHaveLength(14);
      await expect(v.page.locator('.engram-act-more').textContent()).resolves.toBe('Show 16 older days');
      await v.page.click('.engram-act-more');
      await v.page.waitForFunction(() => document.querySelectorAll('.engram-act-day').length === 30);
      const all = await days();
      expect(all.slice(0, 14)).toEqual(first);
      expect(all).toEqual([...all].sort().reverse());
      expect(await v.page.locator('.engram-act-more').count()).toBe(0);
      // A filter keeps every day shown: the first two weeks at once, the rest after.
      await v.page.selectOption('.engram-act-project', 'acme');
      await v.page.waitForFunction(() => document.querySelectorAll('.engram-act-day').length === 30);
      expect(await days()).toEqual(all);
      expect(v.errors).toEqual([]);
    } finally {
      await v.close();
    }
  });
});
