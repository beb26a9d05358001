// The Activity pane's timeline: days newest first, sessions by their last entry, the record's own session figures,
// session-less entries in a day's own group, and the project and client filters.
import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../src/core/extract/state-store.js';
import { readActivity, type ActivityEntry } from '../../src/core/activity/record.js';
import { entryNotes, timeline } from '../../src/core/activity/timeline.js';

const inject = (t: string, session: string, project: string, agent?: string): ActivityEntry => ({ t, kind: 'inject', event: 'UserPromptSubmit', session, project, ...(agent ? { agent } : {}), notes: [{ path: `${project}.md`, title: project, why: ['x'] }], chars: 400, tokens: 100, withheld: [{ path: 'private.md', why: 'private folder Journal' }] });

describe('activity timeline', () => {
  it('groups by day and session, newest first, and filters by project and client', async () => {
    const entries: ActivityEntry[] = [
      inject('2026-11-01T09:00:00Z', 'a', 'acme', 'claude-code'),
      { t: '2026-11-01T09:30:00Z', kind: 'mcp', method: 'read', answerChars: 10, ms: 1, notes: ['acme.md'] },
      inject('2026-11-01T10:00:00Z', 'b', 'zeta', 'codex'),
      // Session a goes on past midnight: it belongs to the day it was last active.
      inject('2026-11-02T00:30:00Z', 'a', 'acme'),
      { t: '2026-11-02T01:00:00Z', kind: 'memory', source: 'MEMORY.md', path: 'Engram/Claude memory/acme/MEMORY.md', action: 'created', project: 'acme' },
    ];
    const store = new MemoryStateStore();
    await store.write('f', `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const r = await readActivity(store, 'f');
    const all = timeline(r);
    expect(all.days.map((d) => [d.day, d.sessions.map((s) => s.session), d.other.map((e) => e.kind)])).toEqual([
      ['2026-11-02', ['a'], ['memory']],
      ['2026-11-01', ['b'], ['mcp']],
    ]);
    expect(all.days[0].sessions[0]).toMatchObject({ agent: 'claude-code', project: 'acme', injectedNotes: 2, withheld: 2, first: '2026-11-01T09:00:00Z' });
    expect(all.days[0].sessions[0].entries).toHaveLength(2);
    expect(all.projects).toEqual(['acme', 'zeta']);
    expect(all.agents).toEqual(['claude-code', 'codex']);
    // Codex: its session only; MCP requests belong to no client.
    expect(timeline(r, { agent: 'codex' }).days.map((d) => [d.day, d.sessions.map((s) => s.session), d.other.length])).toEqual([['2026-11-01', ['b'], 0]]);
    // acme: its session, and the memory import of acme.
    expect(timeline(r, { project: 'acme' }).days.map((d) => [d.day, d.sessions.map((s) => s.session), d.other.map((e) => e.kind)])).toEqual([['2026-11-02', ['a'], ['memory']]]);
    // Read as a summary (the pane's first read): the same days, sessions and figures, without the sessions' entries.
    const sum = await readActivity(store, 'f', { summary: true });
    expect(sum.entries.map((e) => e.kind)).toEqual(['mcp', 'memory']);
    expect(sum.matched).toBe(5);
    const brief = timeline(sum);
    expect(brief.days.map((d) => ({ ...d, sessions: d.sessions.map(({ entries: _e, ...s }) => s) }))).toEqual(all.days.map((d) => ({ ...d, sessions: d.sessions.map(({ entries: _e, ...s }) => s) })));
    expect(brief.days[0].sessions[0].entries).toBeUndefined();
    expect([brief.projects, brief.agents]).toEqual([all.projects, all.agents]);
    // The record's own client filter: Codex's session with its entries, nothing of no session (MCP names no client).
    const codex = await readActivity(store, 'f', { agent: 'codex' });
    expect([codex.sessions.map((s) => s.session), codex.entries.map((e) => e.session ?? e.kind), codex.matched]).toEqual([['b'], ['b'], 1]);
    expect(entryNotes(entries[0])).toEqual([{ path: 'acme.md', role: 'injected', detail: 'x' }, { path: 'private.md', role: 'withheld', detail: 'private folder Journal' }]);
  });
});
