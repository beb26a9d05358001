import { describe, expect, it } from 'vitest';
import { readClaudeCode, ClaudeCodeReader } from '../../../src/core/transcript/claude-code.js';
import { parseJsonLine } from '../../../src/core/transcript/json-records.js';
import { chunksOf } from '../../../src/core/transcript/line-splitter.js';
import { chunked, fixture, fixtureBytes } from './helpers.js';

const SID = '5f1c2b9e-0d4a-4c8e-9a57-1b2c3d4e5f60';

describe('Claude Code reader: every record type', () => {
  it('reads metadata from the envelope', async () => {
    const s = await readClaudeCode(chunked(fixtureBytes('claude-all-types.jsonl'), [4096]), { source: fixture('claude-all-types.jsonl') });
    expect(s.meta).toMatchObject({ sessionId: SID, agent: 'claude-code', cwd: '/home/dev/projects/orbit', gitBranch: 'main', version: '2.1.39' });
    expect(s.meta.subagent).toBeUndefined();
    expect(s.meta.startedAt! <= s.meta.endedAt!).toBe(true);
  });

  it('keeps conversation, drops noise, groups a split API message', async () => {
    const s = await readClaudeCode(chunked(fixtureBytes('claude-all-types.jsonl'), [1, 17, 300]));
    const texts = s.turns.map((t) => `${t.role}${t.sidechain ? '*' : ''}: ${t.text}`);
    expect(texts[0]).toBe('user: Set up the build for orbit. #decision use esbuild for bundling, not webpack');
    // msg_01AAA spans three lines (thinking, text, tool_use): one turn, tool attached, thinking gone.
    const first = s.turns[1]!;
    expect(first).toMatchObject({ role: 'assistant', text: "I'll look at the package manifest first.", tools: ['Read'] });
    expect(first.lastUuid).not.toBe(first.uuid);
    expect(s.stats!.thinkingBlocks).toBe(1);
    // The tool error is attached to the turn that made the call.
    const bash = s.turns.find((t) => t.tools.includes('Bash'))!;
    expect(bash.errors[0]).toContain('Missing script');
    // Nothing of the noise reaches the text.
    const all = s.turns.map((t) => t.text).join('\n');
    for (const noise of ['system-reminder', 'opened package.json', 'engram-memory', 'from memory', 'command-name', 'No MCP servers', 'Caveat:', 'Request interrupted', 'continued from a previous conversation', '"scripts"', 'look at package.json first']) {
      expect(all).not.toContain(noise);
    }
    expect(texts).toContain('user: no, use pnpm instead of npm for the scripts');
    expect(texts).toContain('user: remember: the CI runner has no network access, vendor everything');
    expect(texts).toContain('user*: Find every place that calls fetch().');
    expect(texts.at(-1)).toBe('assistant: Plain string content from an older version: keeping npm for publish.');
  });

  it('counts compactions, summaries, sidechains, meta records and copies', async () => {
    const s = await readClaudeCode(chunked(fixtureBytes('claude-all-types.jsonl'), [64]));
    const st = s.stats!;
    expect(st).toMatchObject({ compactions: 1, compactSummaries: 1, summaries: 1, microcompactions: 1, metaRecords: 2, duplicateRecords: 1, sidechainTurns: 2, images: 1, toolErrors: 1 });
    expect(st.turnsByRole).toEqual({ user: 5, assistant: 7 });
    for (const t of ['progress', 'file-history-snapshot', 'queue-operation', 'attachment', 'pr-link', 'future-record-kind', 'system:turn_duration', 'system:stop_hook_summary']) {
      expect(st.recordTypes[t], t).toBe(1);
    }
    expect(st.tornLines + st.malformedRecords).toBe(0);
    expect(s.meta.title).toBe('Orbit build setup with esbuild and pnpm');
  });

  it('redacts secrets in turn text', async () => {
    const s = await readClaudeCode(chunked(fixtureBytes('claude-all-types.jsonl'), [999]));
    const all = s.turns.map((t) => t.text).join('\n');
    expect(all).toContain('[REDACTED:anthropic-key]');
    expect(all).not.toMatch(/sk-ant-api03-Q/);
    expect(s.stats!.redactions).toEqual({ 'anthropic-key': 1 });
  });

  it('gives every turn the byte offset of its first record', async () => {
    const bytes = fixtureBytes('claude-all-types.jsonl');
    const s = await readClaudeCode(chunked(bytes, [50]));
    for (const t of s.turns) {
      const nl = bytes.indexOf(0x0a, t.offset);
      const rec = JSON.parse(new TextDecoder().decode(bytes.subarray(t.offset, nl))) as { uuid: string };
      expect(rec.uuid).toBe(t.uuid);
      expect(t.endOffset).toBeGreaterThan(t.offset);
    }
  });

  it('turn indexes follow reading order', async () => {
    const s = await readClaudeCode(chunked(fixtureBytes('claude-all-types.jsonl'), [4096]));
    expect(s.turns.map((t) => t.index)).toEqual(s.turns.map((_, i) => i));
  });

  it('streams turns as they complete (the reader is usable without keeping the session)', async () => {
    const reader = new ClaudeCodeReader();
    let n = 0;
    for await (const _t of reader.turns(chunked(fixtureBytes('claude-all-types.jsonl'), [128]))) n++;
    expect(n).toBe(12);
    expect(reader.meta.sessionId).toBe(SID);
  });
});

describe('Claude Code reader: damage', () => {
  it('keeps every intact record, counts the rest, never throws', async () => {
    const s = await readClaudeCode(chunked(fixtureBytes('claude-damaged.jsonl'), [3, 11]));
    const st = s.stats!;
    expect(s.turns.map((t) => t.text)).toEqual([
      'First question: how do I run the tests?',
      'Second question: where is the config?',
      'In orbit.config.ts.',
      '\ufffdhird question: does ünïcödé — and emoji 🚀 — survive?',
      'Yes: ünïcödé and 🚀 are fine.',
    ]);
    // torn + glued line, two glued whole records, "{not json", the cut-off last line
    expect(st.tornLines).toBe(4);
    expect(st.recoveredRecords).toBe(3);
    expect(st.lostFragments).toBe(3);
    expect(st.malformedRecords).toBe(3); // [1,2,3], 42, "just a string"
    expect(st.blankLines).toBe(1);
    expect(st.damage.map((d) => d.kind)).toContain('torn');
  });

  it('finds the offset of a record recovered from the middle of a line', async () => {
    const bytes = fixtureBytes('claude-damaged.jsonl');
    const s = await readClaudeCode(chunked(bytes, [4096]));
    const second = s.turns[1]!; // glued right after the torn line's recovered snapshot
    const at = new TextDecoder().decode(bytes.subarray(second.offset, second.offset + 40));
    expect(at.startsWith('{"parentUuid"')).toBe(true);
  });
});

describe('parseJsonLine', () => {
  const a = JSON.stringify({ type: 'user', uuid: 'a', message: { content: 'x{"y":1}' } });
  const b = JSON.stringify({ type: 'summary', summary: 's', leafUuid: 'l' });
  it('reads one clean record', () => {
    expect(parseJsonLine(a)).toMatchObject({ torn: false, lost: false, records: [{ at: 0 }] });
  });
  it('splits whole records glued together', () => {
    const r = parseJsonLine(a + b + a);
    expect(r.records.map((x) => x.value.type)).toEqual(['user', 'summary', 'user']);
    expect(r).toMatchObject({ torn: true, lost: false });
  });
  it('recovers the intact record after a truncated one', () => {
    const r = parseJsonLine(a.slice(0, 30) + b);
    expect(r.records.map((x) => x.value.type)).toEqual(['summary']);
    expect(r).toMatchObject({ torn: true, lost: true });
  });
  it('recovers after a record cut inside a string', () => {
    const r = parseJsonLine(a.slice(0, a.indexOf('x{') + 3) + b);
    expect(r.records.map((x) => x.value.type)).toEqual(['summary']);
  });
  it('reports garbage and non-objects without throwing', () => {
    expect(parseJsonLine('{oops')).toMatchObject({ records: [], torn: true, lost: true });
    expect(parseJsonLine('[1]')).toMatchObject({ records: [], malformed: true });
    expect(parseJsonLine('null')).toMatchObject({ records: [], malformed: true });
  });
});

describe('Claude Code reader: prompts queued while the agent works', () => {
  const q = (operation: string, content?: string) => JSON.stringify({ type: 'queue-operation', operation, timestamp: '2026-01-07T21:08:38.458Z', sessionId: 's', ...(content ? { content } : {}) });
  const user = (uuid: string, content: string) => JSON.stringify({ type: 'user', uuid, sessionId: 's', message: { role: 'user', content } });
  const asst = (uuid: string, id: string, text: string) => JSON.stringify({ type: 'assistant', uuid, sessionId: 's', message: { id, role: 'assistant', content: [{ type: 'text', text }] } });

  it('keeps a queued prompt handed over mid-turn (remove), once; a dequeued one comes back as a user record', async () => {
    const lines = [
      user('u1', 'refactor the sync state'),
      q('enqueue', 'no, add conversationId field, but set value from sessionId'),
      asst('a1', 'm1', 'Working on it.'),
      q('remove'),
      asst('a2', 'm2', 'Adding conversationId as asked.'),
      q('enqueue', 'then write the tests'),
      q('dequeue'),
      user('u2', 'then write the tests'),
      q('enqueue', 'typed, then taken back'),
      q('popAll', 'typed, then taken back'),
      q('enqueue', '<task-notification>\n<task-id>b1</task-id>\n</task-notification>'),
      q('remove'),
    ];
    const s = await readClaudeCode(chunksOf(`${lines.join('\n')}\n`));
    expect(s.turns.map((t) => `${t.role}: ${t.text}`)).toEqual([
      'user: refactor the sync state',
      'assistant: Working on it.',
      'user: no, add conversationId field, but set value from sessionId',
      'assistant: Adding conversationId as asked.',
      'user: then write the tests',
    ]);
    expect(s.stats!.queuedPrompts).toBe(2);
    expect(s.turns[2]!.uuid).toMatch(/^queue:/);
  });
});

describe('Claude Code reader: queued_command attachments (newer versions)', () => {
  const line = (o: object) => JSON.stringify({ sessionId: 's', timestamp: '2026-03-01T10:00:00Z', ...o });
  const att = (uuid: string, a: object) => line({ type: 'attachment', uuid, attachment: { type: 'queued_command', ...a } });

  it('keeps a human prompt once, whether queue records, an attachment or both carry it; skips notifications', async () => {
    const lines = [
      line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'fix the exporter' } }),
      line({ type: 'queue-operation', operation: 'enqueue', content: 'and convert the prices to euros' }),
      line({ type: 'queue-operation', operation: 'remove' }),
      att('t1', { prompt: 'and convert the prices to euros', commandMode: 'prompt', origin: { kind: 'human' } }),
      att('t2', { prompt: 'also check the logs', commandMode: 'prompt' }),
      att('t3', { prompt: '<task-notification>done</task-notification>', commandMode: 'task-notification', origin: { kind: 'task-notification' } }),
      line({ type: 'attachment', uuid: 't4', attachment: { type: 'hook_additional_context', content: ['<engram-memory>x</engram-memory>'] } }),
    ];
    const s = await readClaudeCode(chunksOf(`${lines.join('\n')}\n`));
    expect(s.turns.map((t) => t.text)).toEqual(['fix the exporter', 'and convert the prices to euros', 'also check the logs']);
    expect(s.stats!.recordTypes.attachment).toBe(4);
  });
});
