// Whether injections were used: an injected note read over MCP afterwards (within a day), or named by the assistant
// in a later capture of the same session; redactions counted once per session; the stats page drawn from the figures.
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../src/core/activity/record.js';
import { activityStats } from '../../src/core/activity/stats.js';
import { statsHtml } from '../../src/core/activity/stats-html.js';
import { citedNotes, injectionUse, redactionsBySession } from '../../src/core/activity/usage.js';

const note = (path: string, title: string) => ({ path, title, why: ['shares: kafka'] });
const inject = (t: string, session: string, notes: ReturnType<typeof note>[], event = 'UserPromptSubmit'): ActivityEntry => ({ t, kind: 'inject', event, session, notes, chars: 400 * notes.length, tokens: 100 * notes.length, withheld: [] });

describe('injection use', () => {
  it('names a note cited by its title, file name or path, and not by a short common title', () => {
    const injected = [note('Engram/acme/Kafka retention is 7 days.md', 'Kafka retention is 7 days'), note('Engram/acme/pnpm-workspaces.md', 'Use pnpm workspaces'), note('Notes/Ideas.md', 'Ideas'), note('Engram/acme/Unused.md', 'Socket pool sizing')];
    const said = ['As your note "kafka retention is 7 days" says, keep it.', 'See Engram/acme/pnpm-workspaces.md for the layout. Some ideas follow.'];
    expect(citedNotes(injected, said)).toEqual(['Engram/acme/Kafka retention is 7 days.md', 'Engram/acme/pnpm-workspaces.md']);
    expect(citedNotes(injected, [])).toEqual([]);
  });

  it('counts a note read after its injection (within a day) or cited in its session, once each', () => {
    const a = note('a.md', 'Alpha decision');
    const b = note('b.md', 'Beta decision');
    const c = note('c.md', 'Gamma decision');
    const entries: ActivityEntry[] = [
      // Read before it was injected: does not count for that injection.
      { t: '2026-11-01T08:00:00Z', kind: 'mcp', method: 'read', answerChars: 10, ms: 1, notes: ['c.md'] },
      inject('2026-11-01T09:00:00Z', 's1', [a, b, c]),
      { t: '2026-11-01T09:05:00Z', kind: 'mcp', method: 'read', answerChars: 10, ms: 1, notes: ['a.md'] },
      // A failed read is not a read.
      { t: '2026-11-01T09:06:00Z', kind: 'mcp', method: 'read', answerChars: 10, ms: 1, notes: ['b.md'], error: 'refused' },
      { t: '2026-11-01T10:00:00Z', kind: 'extract', session: 's1', outcome: 'extracted 0 notes', notes: 0, windows: [], beats: [], cited: ['a.md', 'b.md'] },
      // Cited in another session: not this injection's use. Read two days later: too late.
      inject('2026-11-01T11:00:00Z', 's2', [c]),
      { t: '2026-11-01T12:00:00Z', kind: 'extract', session: 's3', outcome: 'x', notes: 0, windows: [], beats: [], cited: ['c.md'] },
      { t: '2026-11-03T12:00:00Z', kind: 'mcp', method: 'read', answerChars: 10, ms: 1, notes: ['c.md'] },
    ];
    expect(injectionUse(entries)).toEqual({ injected: 4, read: 1, cited: 2, used: 2 });
  });

  it('takes the largest redaction count of a session (each capture re-reads the transcript), never the sum', () => {
    const ex = (t: string, session: string, r: Record<string, number>): ActivityEntry => ({ t, kind: 'extract', session, outcome: 'x', notes: 0, windows: [], beats: [], redactions: r });
    const m = redactionsBySession([ex('2026-11-01T09:00:00Z', 's1', { 'aws-key': 1 }), ex('2026-11-02T09:00:00Z', 's1', { 'aws-key': 1, email: 2 }), ex('2026-11-02T10:00:00Z', 's2', { email: 1 })]);
    expect([...m]).toEqual([['s1', { day: '2026-11-02', count: 3 }], ['s2', { day: '2026-11-02', count: 1 }]]);
  });

  it("a day's budget is its context requests at their caps, at most the session's budget (afresh after a SessionStart)", () => {
    const req = (t: string, session: string | undefined, event: 'SessionStart' | 'UserPromptSubmit'): ActivityEntry => ({ t, kind: 'inject', event, ...(session ? { session } : {}), notes: [], chars: 0, tokens: 0, withheld: [] });
    const entries = [
      req('2026-11-02T09:00:00Z', 's1', 'SessionStart'),
      // 4,000 + 1,500 would pass the session's 5,000: the second prompt gets what is left, the third nothing.
      req('2026-11-02T09:01:00Z', 's1', 'UserPromptSubmit'),
      req('2026-11-02T09:02:00Z', 's1', 'UserPromptSubmit'),
      req('2026-11-02T09:03:00Z', 's2', 'UserPromptSubmit'),
      // /clear: a new budget for s1.
      req('2026-11-02T10:00:00Z', 's1', 'SessionStart'),
      req('2026-11-03T09:00:00Z', undefined, 'UserPromptSubmit'),
    ];
    const caps = { sessionStartChars: 4000, promptChars: 1500, sessionChars: 5000 };
    const s = activityStats({ entries, sessions: [], matched: entries.length, unreadable: 0 }, [], { now: Date.parse('2026-11-03T12:00:00Z'), days: 3, sessionChars: 5000, caps, reviewBacklog: 0 });
    expect(s.days.map((d) => [d.day, d.budgetTokens])).toEqual([['2026-11-01', 0], ['2026-11-02', (4000 + 1000 + 1500 + 4000) / 4], ['2026-11-03', 1500 / 4]]);
    expect(s.caps).toEqual(caps);
    // Without caps (an older host), no budget a day.
    expect(activityStats({ entries, sessions: [], matched: 6, unreadable: 0 }, [], { now: Date.parse('2026-11-03T12:00:00Z'), days: 3, sessionChars: 5000, reviewBacklog: 0 }).days.every((d) => d.budgetTokens === 0)).toBe(true);
  });

  it("the HTML page draws each day's budget as the Dashboard pane does, and none without the caps", () => {
    const entries: ActivityEntry[] = [
      inject('2026-11-02T09:00:00Z', 's1', [note('a.md', 'Alpha decision')], 'SessionStart'),
      inject('2026-11-02T09:01:00Z', 's1', [note('b.md', 'Beta decision')]),
      inject('2026-11-03T09:00:00Z', 's2', [note('a.md', 'Alpha decision'), note('b.md', 'Beta decision')]),
    ];
    const opts = { now: Date.parse('2026-11-03T12:00:00Z'), days: 3, sessionChars: 5000, reviewBacklog: 0 };
    const caps = { sessionStartChars: 4000, promptChars: 1500, sessionChars: 5000 };
    const s = activityStats({ entries, sessions: [], matched: entries.length, unreadable: 0 }, [], { ...opts, caps });
    expect(s.days.map((d) => d.budgetTokens)).toEqual([0, (4000 + 1000) / 4, 1500 / 4]);
    const html = statsHtml(s, '2026-11-03T12:00:00Z');
    // One step a day over a 720-wide chart 150 high whose top is the largest budget (1,250 tokens): day two at the top.
    const line = /<polyline class="budget" points="([^"]+)" data-values="([^"]+)"\/>/.exec(html);
    expect(line?.[2]).toBe('0,1250,375');
    expect(line?.[1]).toBe('0.0,150.0 240.0,150.0 240.0,0.0 480.0,0.0 480.0,105.0 720.0,105.0');
    expect(html).toContain('Dashed: the day&#39;s budget, the most its context requests could have been given (4,000 characters at a session&#39;s start, 1,500 a prompt, at most 5,000 a session');
    expect(html).toContain('.budget { fill: none; stroke: var(--limit)');
    // An older host gave no caps: no line, no legend.
    const old = statsHtml(activityStats({ entries, sessions: [], matched: entries.length, unreadable: 0 }, [], opts), '2026-11-03T12:00:00Z');
    expect(old).not.toContain('<polyline');
    expect(old).not.toContain('Dashed: the day&#39;s budget');
  });

  it('the stats carry the use and redactions, and the HTML page is self-contained with both themes', () => {
    const entries: ActivityEntry[] = [
      inject('2026-11-02T09:00:00Z', 's1', [note('a.md', 'Alpha decision'), note('b.md', 'Beta decision')]),
      { t: '2026-11-02T10:00:00Z', kind: 'extract', session: 's1', outcome: 'x', notes: 0, windows: [], beats: [], cited: ['a.md'], redactions: { 'aws-key': 2 } },
      { t: '2026-11-02T10:01:00Z', kind: 'failure', session: 's1', what: 'capture job', error: 'timeout', next: 'retry' },
    ];
    const s = activityStats({ entries, sessions: [], matched: entries.length, unreadable: 0 }, [], { now: Date.parse('2026-11-03T12:00:00Z'), days: 7, sessionChars: 24_000, reviewBacklog: 0 });
    expect(s.use).toEqual({ injected: 2, read: 0, cited: 1, used: 1 });
    expect(s.totals.redactions).toBe(2);
    expect(s.days.find((d) => d.day === '2026-11-02')).toMatchObject({ redactions: 2, failures: 1, injectedTokens: 200 });
    const html = statsHtml(s, '2026-11-03T12:00:00Z');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('prefers-color-scheme: dark');
    expect(html).not.toMatch(/<script|src="http|href="http/);
    expect(html).toContain('<b>50%</b><span>injected notes read or cited</span>');
    // Injected tokens and failures per day drawn; no session figures and nothing filed: said, not drawn.
    expect((html.match(/<svg /g) ?? []).length).toBe(2);
    expect((html.match(/Nothing yet\./g) ?? []).length).toBe(2);
    expect(html).toContain('<b>2</b><span>secrets redacted</span>');
  });
});
