// Obsidian never freezes (issue 14): long index work gives the host's event loop a turn whenever a slice of time has
// run, however the time is spread over notes; and a snapshot written across those turns stays one consistent state.
import { describe, expect, it } from 'vitest';
import { Engine, IndexedVault } from '../../../src/core/engine.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import type { Clock, VaultFile, VaultPath } from '../../../src/core/ports.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { SLICE_MS } from '../../../src/core/time-slice.js';
import { fixedClock, noYield, note } from '../../helpers/index-fixtures.js';

/** A clock that only moves when work is done: reading a note costs `costOf(path)` ms. */
class WorkClock implements Clock {
  t = 1_700_000_000_000;
  now(): number {
    return this.t;
  }
}

class CostlyVault extends MemoryVault {
  constructor(
    files: Record<string, string>,
    private readonly work: WorkClock,
    private readonly costOf: (path: string) => number,
  ) {
    super({ files });
  }
  override async read(path: VaultPath): Promise<VaultFile> {
    this.work.t += this.costOf(path);
    return super.read(path);
  }
}

/** Records the longest stretch of work between two turns given to the host. */
function turns(clock: WorkClock): { yieldNow: () => Promise<void>; longest: () => number; count: () => number } {
  let last = clock.now();
  let longest = 0;
  let count = 0;
  return {
    yieldNow: () => {
      longest = Math.max(longest, clock.now() - last);
      count++;
      return Promise.resolve().then(() => {
        last = clock.now();
      });
    },
    longest: () => Math.max(longest, clock.now() - last),
    count: () => count,
  };
}

const files = (n: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`Notes/n${i}.md`, note({ tags: [`t${i % 7}`] }, `Note ${i} about widget${i % 13} and socket${i % 5}.`)]));

describe('index work in slices of time', () => {
  it('a first start gives the host a turn after at most one slice of work plus one note, with big notes among small ones', async () => {
    const clock = new WorkClock();
    // Most notes cost 0.1 ms; every 50th in listing order is a drawing that costs 8 ms (200 notes used to run between
    // two turns: 44 ms here).
    const notes = files(600);
    const order = new Map(Object.keys(notes).sort().map((p, i) => [p, i]));
    const vault = new CostlyVault(notes, clock, (p) => (order.get(p)! % 50 === 0 ? 8 : 0.1));
    const host = turns(clock);
    const ports = { vault, clock, yieldNow: host.yieldNow };
    const engine = new Engine({ ports, index: new IndexedVault(new VaultIndex({ vault, clock, yieldNow: host.yieldNow, autoEmbed: false }), { snapshot: { read: () => Promise.resolve(null), write: () => Promise.resolve() } }) });
    await engine.start();
    expect(engine.noteCount()).toBe(600);
    expect(host.longest()).toBeLessThanOrEqual(SLICE_MS + 8);
  });

  it('a snapshot overtaken by an edit is written again: it loads with the new note and answers as a fresh build does', async () => {
    const clock = new WorkClock();
    const vault = new MemoryVault({ files: files(40) });
    let armed = false;
    let edited = false;
    const late = note({ tags: ['zebra'] }, 'A late note about zebras, indexed while the snapshot was being written.');
    const index = new VaultIndex({
      vault,
      // Every step of the encoder is a slice here, so the host gets a turn between any two.
      clock: { now: () => (clock.t += SLICE_MS) },
      yieldNow: async () => {
        if (!armed || edited) return;
        edited = true;
        const info = await vault.create('Notes/late.md', late);
        index.updateText('Notes/late.md', late, info.mtime, info.size);
      },
      autoEmbed: false,
    });
    await index.sync();
    armed = true;
    const bytes = await index.snapshotAsync();
    expect(edited).toBe(true);
    const loaded = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await loaded.loadSnapshotAsync(bytes);
    const fresh = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await fresh.build();
    expect(loaded.stats().notes).toBe(41);
    for (const q of ['zebras', 'widget3 socket1', 'note']) {
      const a = (await loaded.search(q, { limit: 100 })).hits.map((h) => `${h.path} ${h.score}`);
      expect(a).toEqual((await fresh.search(q, { limit: 100 })).hits.map((h) => `${h.path} ${h.score}`));
    }
    expect((await loaded.search('zebras')).hits.map((h) => h.path)).toEqual(['Notes/late.md']);
  });
});
