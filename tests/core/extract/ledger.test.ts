// Capture's coverage and runs in the extractor's ledger: an older sessions.json is taken in by the first change and
// deleted; damaged it is skipped, newer it is refused; only the last 50 runs are kept; a change waits for the ledger
// lock another writer holds instead of overwriting that writer's change.
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/core/capture/session-jobs.js';
import { JobStore, LEDGER_VERSION, type Ledger } from '../../../src/core/extract/journal.js';
import { MemoryStateStore } from '../../../src/core/extract/state-store.js';

const DIR = 'vaults/k';
const run = (i: number): RunRecord => ({ sessionId: `s${i}`, at: `2026-11-25T00:00:${String(i % 60).padStart(2, '0')}Z`, outcome: `run ${i}`, notes: 0, bytes: i });
const coverage = (bytes: number) => ({ bytes, records: 10, transcriptPath: '/agents/s1.jsonl', at: '2026-11-01T00:00:00Z', notes: 1 });
const onDisk = async (state: MemoryStateStore) => JSON.parse((await state.read(`${DIR}/ledger.json`))!) as Ledger;

describe('the ledger keeps capture\'s coverage', () => {
  it('with no ledger yet, takes in sessions.json on the first change and deletes it', async () => {
    const state = new MemoryStateStore();
    await state.write(`${DIR}/sessions.json`, JSON.stringify({ format: 1, sessions: { s1: coverage(5000) }, runs: [run(1)] }));
    const jobs = new JobStore(state, DIR);
    expect(await jobs.captured('s1')).toMatchObject({ bytes: 5000 });
    // Reading changes nothing on disk.
    expect(await state.read(`${DIR}/sessions.json`)).toBeDefined();
    // A change that itself changes nothing (no pending windows to clear) still moves the old coverage in.
    await jobs.clearPending('claude-code:s1');
    expect(await state.read(`${DIR}/sessions.json`)).toBeUndefined();
    const ledger = await onDisk(state);
    expect(ledger).toMatchObject({ version: LEDGER_VERSION, capture: { s1: { bytes: 5000 } }, runs: [run(1)] });
    // The lock is released.
    expect(await state.read(`${DIR}/ledger.lock`)).toBeUndefined();
  });

  it('skips a damaged sessions.json (deleted by the next change) and refuses a newer one', async () => {
    const damaged = new MemoryStateStore();
    await damaged.write(`${DIR}/sessions.json`, '{"format":1,"sessions":{"s1":');
    const jobs = new JobStore(damaged, DIR);
    expect(await jobs.captured('s1')).toBeUndefined();
    await jobs.recordCapture('s1', coverage(10), run(1));
    expect(await damaged.read(`${DIR}/sessions.json`)).toBeUndefined();
    expect((await onDisk(damaged)).capture.s1.bytes).toBe(10);

    const newer = new MemoryStateStore();
    await newer.write(`${DIR}/sessions.json`, JSON.stringify({ format: 2, sessions: {}, runs: [] }));
    await expect(new JobStore(newer, DIR).captured('s1')).rejects.toThrow(/sessions\.json has format version 2, newer than this engram understands \(1\)/);
  });

  it('keeps the last 50 runs, newest last', async () => {
    const jobs = new JobStore(new MemoryStateStore(), DIR);
    for (let i = 1; i <= 55; i++) await jobs.recordCapture(`s${i}`, undefined, run(i));
    const runs = await jobs.recentRuns();
    expect(runs).toHaveLength(50);
    expect([runs[0].outcome, runs[49].outcome]).toEqual(['run 6', 'run 55']);
  });

  it('a change waits while another writer holds the ledger, then keeps that writer\'s change', async () => {
    let refused!: () => void;
    const waiting = new Promise<void>((r) => (refused = r));
    // Tells when a writer found the ledger lock taken.
    class Watched extends MemoryStateStore {
      override async tryLock(name: string) {
        const release = await super.tryLock(name);
        if (!release) refused();
        return release;
      }
    }
    const state = new Watched();
    const jobs = new JobStore(state, DIR);
    // Another writer (another process, in real life) is between its read and its write.
    const release = (await state.tryLock(`${DIR}/ledger.lock`))!;
    let recorded = false;
    const recording = jobs.recordCapture('s1', coverage(7000), run(1)).then(() => (recorded = true));
    await waiting;
    expect(recorded).toBe(false);
    await state.write(`${DIR}/ledger.json`, JSON.stringify({ version: LEDGER_VERSION, sessions: { 'claude-code:s1': { ranges: [] } }, capture: {}, runs: [] }));
    await release();
    await recording;
    const ledger = await onDisk(state);
    expect(Object.keys(ledger.sessions)).toEqual(['claude-code:s1']);
    expect(ledger.capture.s1.bytes).toBe(7000);
  });
});
