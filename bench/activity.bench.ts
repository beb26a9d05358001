// The activity record's cost: time per hook context request with and without the record (same engine, same notes,
// same prompts, one run), and the record's size on disk after 90 days of a busy user's sessions with the host's
// rotation (5 MB, three older copies kept).
import fs from 'node:fs';
import { register } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Engine as EngineType } from '../src/core/engine.js';

// The engine imports its prompt files (.md) as text: the loader first, then the engine by dynamic import.
register('./md-text-loader.mjs', import.meta.url);
const { Engine } = await import('../src/core/engine.js');
const { ActivityRecord, activityFile, readActivity } = await import('../src/core/activity/record.js');
const { MemoryVault } = await import('../src/core/ports/memory-vault.js');
const { NodeStateStore } = await import('../sidecar/hosting/node-state-store.js');

const DAY = 86_400_000;
const TOPICS = ['kafka retention', 'pnpm workspaces', 'socket timeout', 'deploy script', 'auth migration', 'cache warmup', 'retry backoff', 'api base path'];

function vaultFiles(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const t = TOPICS[i % TOPICS.length];
    files[`Engram/Projects/acme/Note ${i} ${t}.md`] = `---\ntype: decision\nproject: acme\nsummary: ${t} decision number ${i}\n---\nWe decided how ${t} works for case ${i}; the reason is written here in a few more words.\n`;
  }
  return files;
}

async function contextTimes(engine: EngineType, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    await engine.context({ event: 'UserPromptSubmit', prompt: `how does the ${TOPICS[r % TOPICS.length]} work?`, sessionId: `s-${r}`, project: 'acme', maxChars: 1500, maxItems: 5 });
    times.push(performance.now() - t0);
  }
  return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-activity-bench-'));
  try {
    const store = new NodeStateStore(tmp);
    const clock = { now: () => Date.now() };
    const files = vaultFiles(400);
    const plain = new Engine({ ports: { vault: new MemoryVault({ files, clock }), clock, yieldNow: () => Promise.resolve() } });
    const record = new ActivityRecord(store, activityFile('bench'), clock);
    const recorded = new Engine({ ports: { vault: new MemoryVault({ files, clock }), clock, yieldNow: () => Promise.resolve() }, activity: record });
    await plain.start();
    await recorded.start();
    // Alternating rounds, so the machine's noise falls on both alike.
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < 5; r++) {
      a.push(...(await contextTimes(plain, 200)));
      b.push(...(await contextTimes(recorded, 200)));
      await record.written();
    }
    const [ma, mb] = [median(a), median(b)];
    console.log(`  context request, 400 notes: without the record median ${ma.toFixed(3)} ms, with it ${mb.toFixed(3)} ms (+${(mb - ma).toFixed(3)} ms, ×${(mb / ma).toFixed(2)}); the answer never waits for the write`);
    // The write itself, off the answer's path: appends (JSON, one appendFile each) until all are on disk.
    const w0 = performance.now();
    for (let i = 0; i < 2000; i++) record.add({ kind: 'inject', event: 'UserPromptSubmit', session: `s-${i}`, project: 'acme', notes: [{ path: 'Engram/Projects/acme/Note 1 kafka retention.md', title: 'Note 1', why: ['shares: kafka, retention'] }], chars: 300, tokens: 75, withheld: [] });
    await record.written();
    console.log(`  writing an entry (appended to logs/activity-<key>.jsonl): ${((performance.now() - w0) / 2000).toFixed(3)} ms each, off the answer's path`);

    // 90 days: 8 sessions a day, 25 prompts each (every one an inject entry with up to 5 notes), one capture each.
    let t = Date.now() - 90 * DAY;
    const bigClock = { now: () => t };
    const dated = new ActivityRecord(store, activityFile('ninety'), bigClock);
    let entries = 0;
    for (let d = 0; d < 90; d++) {
      for (let s = 0; s < 8; s++) {
        const session = `${d}-${s}-aaaa-4aaa-8aaa-000000000000`;
        for (let p = 0; p < 25; p++) {
          t += 60_000;
          const n = p % 6;
          dated.add({ kind: 'inject', event: 'UserPromptSubmit', session, project: 'acme', notes: Array.from({ length: n }, (_, i) => ({ path: `Engram/Projects/acme/Note ${i} kafka retention.md`, title: `Note ${i} kafka retention`, why: ['bm25 3.2', 'shares: kafka, retention, acme'] })), chars: n * 280, tokens: n * 70, withheld: [] });
          entries++;
        }
        dated.add({ kind: 'extract', session, project: 'acme', agent: 'claude-code', outcome: 'extracted 3 notes', notes: 3, windows: [{ window: 'turns 0–40', backend: 'claude', model: 'claude-haiku-4-5', inputTokens: 9000, outputTokens: 500, ms: 8000, outcome: 'ok', beats: 3 }], beats: [0, 1, 2].map((i) => ({ path: `Engram/Projects/acme/Beat ${d} ${s} ${i}.md`, title: `Beat ${i}`, action: 'created' })) });
        entries++;
      }
      t = Date.now() - (89 - d) * DAY;
    }
    await dated.written();
    const logs = path.join(tmp, 'logs');
    const kept = fs.readdirSync(logs).filter((f) => f.startsWith('activity-ninety'));
    const bytes = kept.reduce((n, f) => n + fs.statSync(path.join(logs, f)).size, 0);
    const read = await readActivity(store, activityFile('ninety'));
    console.log(`  90 days, ${entries.toLocaleString('en-US')} entries written: ${(bytes / 1e6).toFixed(1)} MB on disk in ${kept.length} files (cap 20 MB); ${read.matched.toLocaleString('en-US')} entries kept, the oldest from ${read.entries[0]?.t.slice(0, 10)}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
