// What the status bar says for each host state: who hosts, index progress, notes due for review.
import { describe, expect, it } from 'vitest';
import { describeHost } from '../../src/plugin/status-bar';

describe('status bar', () => {
  it('shows progress while the index is built, then the notes due', () => {
    expect(describeHost({ kind: 'starting' }).text).toBe('Engram: starting');
    expect(describeHost({ kind: 'here', indexing: { phase: 'index', done: 5_000, total: 13_415 }, notes: 0, due: 0 })).toMatchObject({ text: 'Engram: indexing 37%', title: expect.stringContaining('5000 of 13415 notes') });
    expect(describeHost({ kind: 'here', notes: 13_415, due: 0 }).text).toBe('Engram');
    // One is one: "1 note", never "1 notes".
    expect(describeHost({ kind: 'here', notes: 1, due: 1 }).title).toBe('Engram hosts this vault here: 1 note indexed, 1 working-memory note due for review. Hooks and MCP talk to Obsidian.');
    expect(describeHost({ kind: 'here', notes: 13_415, due: 4 })).toMatchObject({ text: 'Engram · 4 to review', title: expect.stringContaining('4 working-memory notes due for review') });
  });

  it('says who else hosts, or why nothing does', () => {
    expect(describeHost({ kind: 'elsewhere', by: 'daemon', pid: 42 })).toMatchObject({ text: 'Engram: daemon', title: expect.stringContaining('pid 42') });
    expect(describeHost({ kind: 'none', why: 'released (engram serve --stop); trying again in a minute' })).toMatchObject({ text: 'Engram: off', title: expect.stringContaining('engram serve --stop') });
  });
});
