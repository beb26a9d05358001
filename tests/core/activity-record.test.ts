// The activity record's reading: every kept generation in order, damaged lines skipped and counted, the filters, and
// each session's figures.
import { describe, expect, it } from 'vitest';
import { ActivityRecord, readActivity } from '../../src/core/activity/record.js';
import { MemoryStateStore, type StateStore } from '../../src/core/extract/state-store.js';

const FILE = 'logs/activity-abc.jsonl';

function at(iso: string) {
  let t = Date.parse(iso);
  return { now: () => (t += 1000) };
}

describe('activity record', () => {
  it('reads the rotated generations oldest first, skips damaged lines and counts them', async () => {
    const store = new MemoryStateStore();
    const line = (t: string, session: string) => JSON.stringify({ t, kind: 'event', event: 'Stop', session });
    await store.write(`${FILE}.2`, `${line('2026-11-01T00:00:00Z', 'a')}\n`);
    await store.write(`${FILE}.1`, `${line('2026-11-02T00:00:00Z', 'a')}\n{"t": "torn\n`);
    await store.write(FILE, `${line('2026-11-03T00:00:00Z', 'b')}\n${JSON.stringify({ t: '2026-11-03T01:00:00Z', kind: 'bogus' })}\n`);
    const r = await readActivity(store, FILE);
    expect(r.entries.map((e) => e.t.slice(0, 10))).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    expect(r.unreadable).toBe(2);
    expect(r.sessions.map((s) => [s.session, s.events])).toEqual([['b', 1], ['a', 2]]);
  });

  it('filters by session, time and kind; the limit keeps the newest and still counts every match', async () => {
    const store = new MemoryStateStore();
    const rec = new ActivityRecord(store, FILE, at('2026-11-01T00:00:00Z'));
    for (let i = 0; i < 5; i++) rec.add({ kind: 'inject', event: 'UserPromptSubmit', session: 's1', notes: [{ path: `n${i}.md`, title: `n${i}`, why: ['shares: x'] }], chars: 400, tokens: 100, withheld: [] });
    rec.add({ kind: 'mcp', method: 'recall', answerChars: 900, ms: 3 });
    rec.add({ kind: 'extract', session: 's2', outcome: 'extracted 2 notes', notes: 2, windows: [{ window: 'turns 0–9', backend: 'claude', model: 'm', inputTokens: 1000, outputTokens: 200, ms: 5, outcome: 'ok', beats: 2 }], beats: [{ path: 'a.md', title: 'a', action: 'created' }, { path: 'b.md', title: 'b', action: 'proposed' }] });
    const s1 = await rec.read({ session: 's1', limit: 2 });
    expect(s1.matched).toBe(5);
    expect(s1.entries.map((e) => (e.kind === 'inject' ? e.notes[0].path : ''))).toEqual(['n3.md', 'n4.md']);
    expect(s1.sessions).toMatchObject([{ session: 's1', injections: 5, injectedNotes: 5, injectedChars: 2000, injectedTokens: 500 }]);
    expect((await rec.read({ kinds: ['mcp'] })).entries).toMatchObject([{ kind: 'mcp', method: 'recall', answerChars: 900 }]);
    const s2 = await rec.read({ session: 's2' });
    expect(s2.sessions[0]).toMatchObject({ extractions: 1, inputTokens: 1000, outputTokens: 200, filed: 1, proposed: 1 });
    expect((await rec.read({ since: Date.parse('2026-11-01T00:00:06Z') })).entries.map((e) => e.kind)).toEqual(['mcp', 'extract']);
  });

  it('a failing store loses the entry, never throws at its writer, and says so once', async () => {
    const said: string[] = [];
    const broken: StateStore = { ...new MemoryStateStore(), read: () => Promise.resolve(undefined), append: () => Promise.reject(new Error('disk full')), write: () => Promise.resolve(), remove: () => Promise.resolve(), list: () => Promise.resolve([]) };
    const rec = new ActivityRecord(broken, FILE, at('2026-11-01T00:00:00Z'), (_l, m) => said.push(m));
    rec.add({ kind: 'event', event: 'Stop', session: 'x' });
    rec.add({ kind: 'event', event: 'Stop', session: 'x' });
    await rec.written();
    expect(said).toEqual(['activity record not written: disk full']);
    expect((await rec.read()).entries).toEqual([]);
  });
});
