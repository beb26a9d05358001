// A month or more of a person's sessions in the activity record, made deterministically (the dashboard's and the
// activity pane's pages): one to three sessions a day with prompts injected, MCP reads, a capture each, a few failures.
import type { ActivityEntry } from '../../../src/core/activity/record';

const DAY = 86_400_000;

/** `days` days of a person's sessions: one to three a day, each with prompts injected and one capture. */
export function activityLines(days: number, now: number): string {
  const lines: string[] = [];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let d = days - 1; d >= 0; d--) {
    const sessions = 1 + Math.floor(rnd() * 3);
    for (let s = 0; s < sessions; s++) {
      const session = `s${d}-${s}-0000-4000-8000-000000000000`;
      const base = now - d * DAY - (s + 1) * 3_600_000;
      const at = (m: number) => new Date(base + m * 60_000).toISOString();
      const entries: ActivityEntry[] = [];
      const prompts = 2 + Math.floor(rnd() * 8);
      for (let p = 0; p < prompts; p++) {
        const n = Math.floor(rnd() * 3);
        const chars = n * (300 + Math.floor(rnd() * 600));
        entries.push({ t: at(p), kind: 'inject', event: p ? 'UserPromptSubmit' : 'SessionStart', session, project: 'acme', notes: Array.from({ length: n }, (_, i) => ({ path: `Engram/Projects/acme/Note ${i}.md`, title: `Note ${i}`, why: ['shares: socket'] })), chars, tokens: Math.round(chars / 4), withheld: [] });
        // Now and then the agent reads an injected note over MCP.
        if (n && rnd() < 0.3) entries.push({ t: at(p + 0.5), kind: 'mcp', method: 'read', answerChars: 900, ms: 3, notes: [`Engram/Projects/acme/Note 0.md`] });
      }
      const filed = Math.floor(rnd() * 4);
      entries.push({ t: at(40), kind: 'extract', session, project: 'acme', agent: 'claude-code', outcome: `extracted ${filed} notes`, notes: filed, windows: [{ window: 'turns 0–20', backend: 'claude', model: 'haiku', inputTokens: 6000, outputTokens: 400, ms: 9000, outcome: 'ok', beats: filed }], beats: Array.from({ length: filed }, (_, i) => ({ path: `Engram/Inbox/Beat ${d}-${s}-${i}.md`, title: `Beat ${i}`, action: 'created' })), ...(rnd() < 0.4 ? { cited: ['Engram/Projects/acme/Note 1.md'] } : {}), ...(rnd() < 0.2 ? { redactions: { 'aws-access-key': 1 + Math.floor(rnd() * 2) } } : {}) });
      if (rnd() < 0.1) entries.push({ t: at(41), kind: 'failure', session, what: 'capture job', error: 'timeout', next: 'retry' });
      for (const e of entries) lines.push(JSON.stringify(e));
    }
  }
  return `${lines.join('\n')}\n`;
}
