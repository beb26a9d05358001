// The activity pane over the real engine and the memory notes, with a week of sessions in the record: Claude Code in
// acme (injections, a capture that filed a note and held one, a withheld private note), Codex in zeta, an MCP read,
// and a failure. Opening a note is recorded (window.engramOpened).
import { activityFile, type ActivityEntry } from '../../../src/core/activity/record';
import { ActivityView } from '../../../src/plugin/views/activity-view';
import { MEMORY_NOTES, NOW, hostedContext, mirrorIntoMocks, recordOpens } from './memory-notes';
import { mount, run, world } from './page-kit';

const at = (daysAgo: number, hour: number, minute = 0) => new Date(NOW - daysAgo * 86_400_000 - (12 - hour) * 3_600_000 + minute * 60_000).toISOString();
const TIMEOUT = 'Engram/Projects/acme/Sidecar socket timeout.md';
const UNIX = 'Engram/Projects/acme/Use a Unix socket for the sidecar.md';
const POOL = 'Engram/Projects/zeta/Socket pool sizing.md';
const BACKOFF = 'Engram/Inbox/Socket timeouts need backoff.md';

export const ACTIVITY: ActivityEntry[] = [
  // Two days ago: Codex in zeta.
  { t: at(2, 9), kind: 'inject', event: 'SessionStart', session: 'c0dex000-0000-4000-8000-000000000001', agent: 'codex', project: 'zeta', notes: [{ path: POOL, title: 'Socket pool sizing', why: ['shares: socket, pool'] }], chars: 420, tokens: 105, withheld: [] },
  { t: at(2, 10), kind: 'extract', session: 'c0dex000-0000-4000-8000-000000000001', agent: 'codex', project: 'zeta', outcome: 'extracted 0 notes', notes: 0, windows: [{ window: 'turns 0–12', backend: 'claude', model: 'claude-haiku-4-5', inputTokens: 3000, outputTokens: 120, ms: 4100, outcome: 'ok', beats: 0 }], beats: [], cited: [POOL] },
  // Today: Claude Code in acme.
  { t: at(0, 9), kind: 'inject', event: 'SessionStart', session: 'c1aude00-0000-4000-8000-000000000002', agent: 'claude-code', project: 'acme', notes: [{ path: TIMEOUT, title: 'Sidecar socket timeout', why: ['shares: sidecar, socket, timeout'] }], chars: 610, tokens: 153, withheld: [{ path: 'Notes/Kombucha brewing log.md', why: 'private folder Notes' }] },
  { t: at(0, 9, 5), kind: 'inject', event: 'UserPromptSubmit', session: 'c1aude00-0000-4000-8000-000000000002', agent: 'claude-code', project: 'acme', notes: [{ path: UNIX, title: 'Use a Unix socket for the sidecar', heading: 'Why', why: ['shares: unix, socket'] }], chars: 380, tokens: 95, withheld: [] },
  { t: at(0, 9, 6), kind: 'mcp', method: 'read', answerChars: 1200, ms: 4, notes: [UNIX] },
  { t: at(0, 9, 40), kind: 'extract', session: 'c1aude00-0000-4000-8000-000000000002', agent: 'claude-code', project: 'acme', outcome: 'extracted 1 notes, 1 held for review', notes: 1, windows: [{ window: 'turns 0–30', backend: 'claude', model: 'claude-haiku-4-5', inputTokens: 6120, outputTokens: 410, ms: 8123, outcome: 'ok', beats: 2 }], beats: [{ path: BACKOFF, title: 'Socket timeouts need backoff', action: 'created', type: 'correction' }, { path: 'Engram/Inbox/Retry budget.md', title: 'Retry budget', action: 'proposed', proposal: 'p1' }], cited: [TIMEOUT] },
  { t: at(0, 9, 41), kind: 'failure', session: 'c1aude00-0000-4000-8000-000000000002', agent: 'claude-code', project: 'acme', what: 'capture job c1aude00', error: 'timeout', next: 'retry' },
];

run(async () => {
  const w = await world(MEMORY_NOTES, { now: NOW });
  await w.host.state.write(activityFile('0123456789abcdef'), `${ACTIVITY.map((e) => JSON.stringify(e)).join('\n')}\n`);
  await mirrorIntoMocks(w, MEMORY_NOTES);
  window.engramOpened = recordOpens(w);
  await mount(w, (leaf) => new ActivityView(leaf, hostedContext(w)));
});
