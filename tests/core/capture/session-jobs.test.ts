// Capture's policy over fake ports: which spooled events extract, which are satisfied without a call, and what is
// committed in which order.
import { describe, expect, it } from 'vitest';
import { jobForEvent, makeSessionJobRunner, mergeJobs, type ExtractOutcome, type RunRecord, type SessionCoverage } from '../../../src/core/capture/session-jobs.js';

function world(opts: { size: number; records?: number; own?: boolean; outcome?: ExtractOutcome | Error }) {
  const coverage = new Map<string, SessionCoverage>();
  const runs: RunRecord[] = [];
  const released: string[] = [];
  const deferred: Array<{ files: string[]; retryAt?: string }> = [];
  const calls: number[] = [];
  const run = makeSessionJobRunner({
    coverage: { get: async (k) => coverage.get(k), record: async (k, c, r) => void (c && coverage.set(k, c), runs.push(r)) },
    transcripts: {
      allowed: (p) => (p.startsWith('/agents/') ? p : undefined),
      size: () => opts.size,
      countRecords: (_p, from, to) => Math.round(((to - from) / Math.max(1, opts.size)) * (opts.records ?? 10)),
      isEngramOwn: () => Promise.resolve(Boolean(opts.own)),
    },
    spool: { release: (f) => released.push(...f), defer: (files, retryAt) => deferred.push({ files, retryAt }) },
    extractor: async (req) => {
      calls.push(req.fromBytes);
      if (opts.outcome instanceof Error) throw opts.outcome;
      return opts.outcome ?? { notes: 2 };
    },
    thresholds: () => ({ turns: 6, bytes: 16_384 }),
    log: () => {},
    now: () => Date.parse('2026-11-25T12:00:00Z'),
  });
  return { run, coverage, runs, released, deferred, calls };
}

const stop = (file: string, bytes?: number) => jobForEvent({ event: 'Stop', sessionId: 's1', transcriptPath: '/agents/s1.jsonl', transcriptBytes: bytes }, file);
const end = (file: string) => jobForEvent({ event: 'SessionEnd', sessionId: 's1', transcriptPath: '/agents/s1.jsonl' }, file);

describe('capture: session jobs', () => {
  it('a SessionEnd extracts and commits coverage before releasing its events; a second one is already covered', async () => {
    const w = world({ size: 50_000 });
    await w.run(end('e1'));
    expect(w.calls).toEqual([0]);
    expect(w.coverage.get('s1')).toMatchObject({ bytes: 50_000, records: 10, notes: 2 });
    expect(w.released).toEqual(['e1']);
    await w.run(end('e2'));
    expect(w.calls).toEqual([0]);
    expect(w.runs.at(-1)?.outcome).toBe('already covered');
    expect(w.released).toEqual(['e1', 'e2']);
  });

  it('a Stop extracts only a session that grew enough; merged events keep the largest size and force', async () => {
    const w = world({ size: 10_000, records: 3 });
    await w.run(stop('a'));
    expect(w.calls).toEqual([]);
    expect(w.runs[0].outcome).toMatch(/skipped: grew 3 records \/ 10000 bytes/);
    const merged = mergeJobs(stop('b', 4000).data, end('c').data);
    expect(merged).toMatchObject({ force: true, minBytes: 4000, files: ['b', 'c'] });
    await w.run({ key: 's1', data: merged });
    expect(w.calls).toEqual([0]);
  });

  it('refused paths and Engram\'s own sessions are never extracted; a rules pass keeps its own coverage key', async () => {
    const w = world({ size: 50_000, own: true });
    await w.run(jobForEvent({ event: 'SessionEnd', sessionId: 's1', transcriptPath: '/etc/passwd' }, 'x'));
    await w.run(end('y'));
    expect(w.calls).toEqual([]);
    expect(w.runs.map((r) => r.outcome)).toEqual(['transcript refused (outside the agent folders or missing): /etc/passwd', "skipped: Engram's own nested session"]);
    expect(jobForEvent({ event: 'SessionEnd', sessionId: 's1', backend: 'rules' }, 'z').key).toBe('rules:s1');
  });

  it('a deferred extraction keeps its events for later (with the backoff time); a failure leaves them claimed', async () => {
    const w = world({ size: 50_000, outcome: { notes: 0, deferred: true, outcome: 'deferred: budget', retryAt: '2026-11-25T13:00:00Z' } });
    await w.run(end('d'));
    expect(w.deferred).toEqual([{ files: ['d'], retryAt: '2026-11-25T13:00:00Z' }]);
    expect(w.released).toEqual([]);
    expect(w.coverage.get('s1')).toBeUndefined();
    const f = world({ size: 50_000, outcome: new Error('disk full') });
    await expect(f.run(end('e'))).rejects.toThrow(/disk full/);
    expect(f.released).toEqual([]);
    expect(f.coverage.get('s1')).toBeUndefined();
  });
});

describe('capture: spooled events through the queue and its retry policy', () => {
  it('one extraction per session however many events (the later jobs find it covered); a failing one goes back, then is set aside after three', async () => {
    const { Capture } = await import('../../../src/core/capture/capture.js');
    const spooled: Array<{ file: string; event: { event: string; sessionId: string; transcriptPath: string } }> = [];
    const released: string[] = [];
    const back: string[] = [];
    const aside: string[] = [];
    const extracted: string[] = [];
    const restorable: typeof spooled = [];
    let failing = false;
    const covered = new Map<string, SessionCoverage>();
    const capture = new Capture({
      coverage: { get: async (k) => covered.get(k), record: async (k, c) => void (c && covered.set(k, c)) },
      transcripts: { allowed: (p) => p, size: () => 50_000, countRecords: () => 10, isEngramOwn: () => Promise.resolve(false) },
      spool: {
        claim: () => spooled.splice(0),
        release: (f) => released.push(...f),
        defer: () => {},
        unclaim: (f) => back.push(...f),
        setAside: (f) => (aside.push(...f), 'set aside'),
        // A set-aside event comes back on the next sweep once restored (its cause gone).
        restore: () => {
          const back = restorable.splice(0);
          spooled.push(...back);
          return back.length ? [`restored ${back.length}`] : [];
        },
        depth: () => spooled.length,
      },
      extractor: async (req) => {
        if (failing) throw new Error('vault is read-only');
        extracted.push(req.sessionId);
        return { notes: 1 };
      },
      thresholds: () => ({ turns: 6, bytes: 16_384 }),
      log: () => {},
    });
    for (const [i, ev] of ['Stop', 'PreCompact', 'SessionEnd'].entries()) spooled.push({ file: `e${i}`, event: { event: ev, sessionId: 's1', transcriptPath: '/t/s1.jsonl' } });
    capture.drain();
    await capture.queue.idle();
    expect(extracted).toEqual(['s1']);
    expect(released.sort()).toEqual(['e0', 'e1', 'e2']);
    failing = true;
    for (let i = 0; i < 3; i++) {
      spooled.push({ file: `f${i}`, event: { event: 'SessionEnd', sessionId: 's2', transcriptPath: '/t/s2.jsonl' } });
      capture.drain();
      await capture.queue.idle();
    }
    expect(back).toEqual(['f0', 'f1']);
    expect(aside).toEqual(['f2']);
    expect(capture.stats()).toMatchObject({ failed: 3, pending: 0 });
    // The sweep brings back what the host restores, then drains: the cause gone, the session is extracted.
    failing = false;
    restorable.push({ file: 'f2', event: { event: 'SessionEnd', sessionId: 's2', transcriptPath: '/t/s2.jsonl' } });
    capture.sweep();
    await capture.queue.idle();
    expect(extracted).toEqual(['s1', 's2']);
    expect(released).toContain('f2');
    // Nothing waiting: a sweep queues nothing.
    capture.sweep();
    expect(capture.stats().pending).toBe(0);
  });
});
