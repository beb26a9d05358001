import { describe, expect, it } from 'vitest';
import { JobQueue } from '../../../src/core/jobs/queue.js';
import { TermStats } from '../../../src/core/recall/term-stats.js';
import { judge } from '../../../src/core/recall/gate.js';
import { renderContext } from '../../../src/core/recall/render.js';
import { stripEngramFences } from '../../../src/core/transcript/fence.js';

describe('job queue', () => {
  it('coalesces requests for one key and runs one job at a time', async () => {
    const runs: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new JobQueue<number[]>(async (job) => {
      runs.push(`${job.key}:${job.data.join(',')}`);
      if (runs.length === 1) await gate;
    }, (a, b) => [...a, ...b]);
    q.push('s1', [1]);
    await Promise.resolve();
    for (let i = 2; i <= 20; i++) q.push('s1', [i]);
    q.push('s2', [0]);
    expect(q.stats()).toMatchObject({ running: 's1', pending: 2 });
    release();
    await q.idle();
    expect(runs).toEqual(['s1:1', `s1:${Array.from({ length: 19 }, (_, i) => i + 2).join(',')}`, 's2:0']);
    expect(q.stats()).toMatchObject({ done: 3, failed: 0, pending: 0, running: null });
  });

  it('counts a failed job and goes on; hands it back to retry, and gives it up after three failures in a row', async () => {
    const events: string[] = [];
    let failing = true;
    const q = new JobQueue<null>(async (j) => {
      if (j.key === 'bad' && failing) throw new Error('boom');
    }, (a) => a, {
      giveUpAfter: 3,
      retry: (j, e, n) => events.push(`retry ${j.key} #${n}: ${(e as Error).message}`),
      giveUp: (j, e, n) => events.push(`give up ${j.key} after ${n}: ${(e as Error).message}`),
    });
    q.push('bad', null);
    q.push('good', null);
    await q.idle();
    expect(events).toEqual(['retry bad #1: boom']);
    expect(q.stats()).toMatchObject({ done: 1, failed: 1 });
    for (let i = 0; i < 2; i++) {
      q.push('bad', null);
      await q.idle();
    }
    expect(events.slice(1)).toEqual(['retry bad #2: boom', 'give up bad after 3: boom']);
    // After giving up the count starts afresh, and a success clears it.
    q.push('bad', null);
    await q.idle();
    failing = false;
    q.push('bad', null);
    await q.idle();
    failing = true;
    q.push('bad', null);
    await q.idle();
    expect(events.slice(3)).toEqual(['retry bad #1: boom', 'retry bad #1: boom']);
  });
});

describe('relevance gate', () => {
  const stats = new TermStats();
  const notes: Record<string, string> = {
    a: 'Use pnpm workspaces. The monorepo moved from npm to pnpm workspaces because installs were slow.',
    b: 'Gardening: water the tomatoes every morning.',
    c: 'Sourdough starter needs feeding twice a day.',
    d: 'The API base path is /api/v2.',
  };
  for (const [k, t] of Object.entries(notes)) stats.set(k, t);

  it('passes a note that covers the prompt and refuses chit-chat and unrelated prompts', () => {
    expect(judge('why did the monorepo move to pnpm workspaces?', stats.termsOf('a')!, stats).pass).toBe(true);
    expect(judge('thanks, looks good', stats.termsOf('a')!, stats).pass).toBe(false);
    expect(judge('how do I reverse a linked list in rust', stats.termsOf('a')!, stats).pass).toBe(false);
    expect(judge('pnpm', stats.termsOf('a')!, stats).pass).toBe(false);
  });

  it('renders fenced items with wikilink and why, within the budget, and the fence is what extraction strips', () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ title: `Note ${i}`, path: `Engram/Inbox/Note ${i}.md`, summary: 'x'.repeat(300), why: ['shares: pnpm'] }));
    const { text, used } = renderContext(items, 1500, 'Possibly relevant notes:');
    expect(text!.length).toBeLessThanOrEqual(1500);
    expect(used).toBeGreaterThan(0);
    expect(text).toContain('[[Engram/Inbox/Note 0|Note 0]]');
    expect(text).toContain('matched: shares: pnpm');
    expect(stripEngramFences(`before ${text} after`)).toEqual({ text: 'before  after', removed: 1 });
    expect(renderContext([], 1500, 'h').text).toBeUndefined();
  });
});
