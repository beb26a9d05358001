// The review pane's bench page: 500 due working-memory notes in 10 projects (related notes share a tag), a scripted
// model deciding promote, extend or delete, and the pane's first open timed (plan, then drawing) with the long tasks
// and long animation frames Chromium reports while it opens.
import { ReviewView } from '../../../src/plugin/views/review-view';
import type { EngramApi, PaneContext } from '../../../src/plugin/views/api';
import { ScriptedBackend } from '../../helpers/extract';
import { mount, run, watchLongFrames, world } from './page-kit';
import { yieldToUi } from '../../../src/plugin/node/yield';

const NOW = Date.parse('2026-03-10T12:00:00Z');
export const DUE_NOTES = 500;

export interface ReviewBenchResult {
  notes: number;
  items: number;
  planMs: number;
  firstRenderMs: number;
  /** To the first frame painted after the pane drew. */
  firstPaintMs: number;
  /** Until every item is in the DOM (drawn a screenful per turn). */
  allDrawnMs: number;
  refreshMs: number;
  /** Long tasks and long animation frames; `script`: the longest script in it (a frame may hold many short tasks). */
  longTasks: Array<{ kind: string; ms: number; script: number }>;
}

declare global {
  interface Window {
    reviewBench?: ReviewBenchResult;
  }
}

const seen = watchLongFrames();

function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < DUE_NOTES; i++) {
    const day = String(1 + (i % 16)).padStart(2, '0');
    const topic = `topic-${Math.floor(i / 4)}`;
    out[`Engram/Working memory/Note ${i}.md`] =
      `---\ntype: problem\nscope: project\nproject: project-${Math.floor(i / 50)}\ntags: [${topic}]\nreview_after: 2026-03-${day}\nsummary: Working note ${i} about ${topic}, still being checked.\ncreated: 2026-02-01T10:00:00Z\nengram_source: hook-extraction\nengram_session: session-${i % 37}\nrelated: ["[[Note ${(i + 1) % DUE_NOTES}]]"]\n---\n` +
      `Working note ${i}: ${'what we tried, what failed and what we will check next. '.repeat(6)}\n`;
  }
  return out;
}

/** Every third group is promoted, every third deleted, the rest extended. */
function reply(user: string): string {
  const paths = [...user.matchAll(/^path: (.+)$/gm)].map((m) => m[1]);
  const n = Number(/Note (\d+)/.exec(paths[0])?.[1] ?? 0);
  const action = ['promote', 'delete', 'extend'][n % 3];
  const note = { title: `Durable ${n}`, summary: `What notes ${paths.length} taught.`, type: 'insight', tags: ['learned'], links: [], body: `${'A durable fact kept from the working notes. '.repeat(8)}` };
  return JSON.stringify({ decisions: [{ action, notes: paths, reason: 'scripted', weeks: 2, ...(action === 'promote' ? { note } : {}) }] });
}


run(async () => {
  const w = await world(files(), { clock: { now: () => NOW + performance.now() }, backend: new ScriptedBackend((req) => reply(req.user ?? '')), yieldNow: yieldToUi });
  // The engine's own start (indexing the 500 notes) is over before the pane opens: the figures are the pane's.
  await w.host.engine.whenReady();
  await w.host.engine.settled();
  let planMs = 0;
  const api: EngramApi = {
    ...w.api,
    reviewPlan: async (p) => {
      const t = performance.now();
      try {
        return await w.api.reviewPlan(p);
      } finally {
        planMs = performance.now() - t;
      }
    },
  };
  const ctx: PaneContext = { api: () => api, onChange: () => () => {} };
  const t0 = performance.now();
  const view = (await mount(w, (leaf) => new ReviewView(leaf, ctx))) as ReviewView;
  const firstRenderMs = performance.now() - t0;
  const firstPlanMs = planMs;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const firstPaintMs = performance.now() - t0;
  await view.drawn;
  const allDrawnMs = performance.now() - t0;
  const t1 = performance.now();
  await view.refresh();
  await view.drawn;
  const refreshMs = performance.now() - t1;
  // Let the observers deliver what the last frames produced.
  await new Promise((r) => setTimeout(r, 100));
  window.reviewBench = {
    notes: DUE_NOTES,
    items: document.querySelectorAll('.engram-review-item').length,
    planMs: firstPlanMs,
    firstRenderMs,
    firstPaintMs,
    allDrawnMs,
    refreshMs,
    longTasks: seen.filter((e) => e.start >= t0).map(({ kind, ms, start, script }) => ({ kind: `${kind} at +${(start - t0).toFixed(0)} ms`, ms, script })),
  };
});
