import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../../src/core/transcript/claude-code.js';
import { readCodex } from '../../../src/core/transcript/codex.js';
import { readChatExport, type ExportSummary } from '../../../src/core/transcript/chat-export.js';
import { detectFormat } from '../../../src/core/transcript/detect.js';
import { jsonArrayElements } from '../../../src/core/transcript/json-array.js';
import { chunksOf } from '../../../src/core/transcript/line-splitter.js';
import type { Session } from '../../../src/core/transcript/types.js';
import { chunked, fixture, fixtureBytes } from './helpers.js';

const SID = '5f1c2b9e-0d4a-4c8e-9a57-1b2c3d4e5f60';
const ROLLOUT = 'rollout-2026-01-05T09-00-00-019c0000-1111-7222-8333-444455556666.jsonl';

async function all(gen: AsyncIterable<Session>): Promise<Session[]> {
  const out: Session[] = [];
  for await (const s of gen) out.push(s);
  return out;
}

describe('subagent transcripts', () => {
  it('a task subagent file is its own session, linked to its parent', async () => {
    const name = `${SID}/subagents/agent-a1b2c3d.jsonl`;
    const s = await readClaudeCode(chunked(fixtureBytes(name), [100]), { source: fixture(name) });
    expect(s.meta).toMatchObject({ subagent: 'task', agentId: 'a1b2c3d', parentSessionId: SID, sessionId: `${SID}:agent-a1b2c3d` });
    expect(s.turns.every((t) => t.sidechain)).toBe(true);
    expect(s.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'assistant']);
  });

  it("recognises Claude Code's compaction agent", async () => {
    const name = `${SID}/subagents/agent-acompact-9f8e7d.jsonl`;
    const s = await readClaudeCode(chunked(fixtureBytes(name), [100]), { source: fixture(name) });
    expect(s.meta.subagent).toBe('compact');
  });
});

describe("Engram's own calls", () => {
  it('flags a transcript that starts with the extraction prompt marker', async () => {
    const s = await readClaudeCode(chunked(fixtureBytes('engram-internal.jsonl'), [50]));
    expect(s.meta.engramInternal).toBe(true);
    const other = await readClaudeCode(chunked(fixtureBytes('claude-all-types.jsonl'), [5000]));
    expect(other.meta.engramInternal).toBeUndefined();
  });
});

describe('Codex rollout reader', () => {
  it('reads metadata, user prompts and assistant messages; drops injected context and tool output', async () => {
    const s = await readCodex(chunked(fixtureBytes(ROLLOUT), [13, 200]), { source: fixture(ROLLOUT) });
    expect(s.meta).toMatchObject({ agent: 'codex', sessionId: '019c0000-1111-7222-8333-444455556666', cwd: '/home/dev/projects/orbit', gitBranch: 'feature/cache', version: '0.125.0' });
    expect(s.turns.map((t) => `${t.role}: ${t.text}`)).toEqual([
      'user: Add a cache to the HTTP client. #decision cache entries expire after 5 minutes',
      "assistant: I'll read the client first.",
      'assistant: Added a 5-minute TTL cache; tests pass.',
      'user: no, use an LRU with 500 entries instead of a plain map',
      'assistant: Switched to an LRU cache with 500 entries.',
    ]);
    expect(s.turns[1]!.tools).toEqual(['exec_command', 'apply_patch', 'web_search']);
    expect(s.turns[1]!.errors).toHaveLength(1);
    expect(s.turns[1]!.errors[0]).toContain('cache is not defined');
    expect(s.stats).toMatchObject({ compactions: 1, thinkingBlocks: 1, toolErrors: 1 });
    const all = s.turns.map((t) => t.text).join('\n');
    expect(all).not.toMatch(/AGENTS\.md|environment_context|permissions/);
  });

  it('takes typed prompts from user_message events too, once per prompt', async () => {
    const line = (type: string, payload: object) => JSON.stringify({ timestamp: '2026-05-11T10:00:00Z', type, payload });
    const lines = [
      line('session_meta', { id: '019e1695-0522-7c83-8b39-0dd379793f80', cwd: '/w/app' }),
      line('event_msg', { type: 'user_message', message: 'analyze the transcript and list action items' }),
      line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Action items: …' }] }),
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'draft the demo' }] }),
      line('event_msg', { type: 'task_started' }),
      line('event_msg', { type: 'user_message', message: 'draft the demo' }),
      line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Drafted.' }] }),
    ];
    const s = await readCodex(chunksOf(`${lines.join('\n')}\n`));
    expect(s.turns.map((t) => `${t.role}: ${t.text}`)).toEqual(['user: analyze the transcript and list action items', 'assistant: Action items: …', 'user: draft the demo', 'assistant: Drafted.']);
  });

  it('gives turns stable ids (the same records give the same ids)', async () => {
    const a = await readCodex(chunked(fixtureBytes(ROLLOUT), [4096]));
    const b = await readCodex(chunked(fixtureBytes(ROLLOUT), [7]));
    expect(a.turns.map((t) => t.uuid)).toEqual(b.turns.map((t) => t.uuid));
    expect(new Set(a.turns.map((t) => t.uuid)).size).toBe(a.turns.length);
  });
});

describe('chat exports', () => {
  it('Claude.ai: one session per conversation, text from content blocks, thinking and attachments dropped', async () => {
    const summary: ExportSummary = { conversations: 0, skipped: 0, oversized: 0 };
    const sessions = await all(readChatExport(chunked(fixtureBytes('claude-ai-conversations.json'), [37]), {}, summary));
    expect(summary).toEqual({ conversations: 2, skipped: 0, oversized: 0 });
    const [s, empty] = sessions;
    expect(s!.meta).toMatchObject({ agent: 'claude-ai', sessionId: 'c0a1b2c3-0000-4000-8000-000000000001', title: 'Choosing a queue' });
    expect(s!.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(s!.turns[1]!.text).toBe("SQS if you're on AWS already; Redis if you need low latency.");
    expect(s!.turns[2]!.text).toContain('[REDACTED:aws-access-key]');
    expect(s!.turns.map((t) => t.text).join()).not.toContain('long pasted notes');
    expect(empty!.turns).toEqual([]);
  });

  it('ChatGPT: follows the shown branch of the tree, skips hidden, system and tool messages', async () => {
    const summary: ExportSummary = { conversations: 0, skipped: 0, oversized: 0 };
    const sessions = await all(readChatExport(chunked(fixtureBytes('chatgpt-conversations.json'), [64]), {}, summary));
    expect(summary).toEqual({ conversations: 1, skipped: 1, oversized: 0 });
    const s = sessions[0]!;
    expect(s.meta).toMatchObject({ agent: 'chatgpt', title: 'Postgres dates', startedAt: '2026-01-01T08:00:00.000Z' });
    expect(s.turns.map((t) => `${t.role}: ${t.text}${t.tools.length ? ` [${t.tools.join()}]` : ''}`)).toEqual([
      "user: What's the best way to store dates in Postgres?",
      'assistant:  [python]',
      'assistant: Use `timestamptz` and store UTC.',
      "user: actually, we need the user's local time too",
      'assistant: Store `timestamptz` plus the IANA zone name in a separate column.',
    ]);
    expect(s.turns.map((t) => t.text).join()).not.toContain('regenerated');
  });

  it('streams array elements with their byte offsets and survives damage', async () => {
    const text = '[ {"a":"]}\\""}, 5, {"b":[1,{"c":2}]} , {"bad": } ]';
    const els = [];
    for await (const e of jsonArrayElements(chunksOf(text, 3))) els.push(e);
    expect(els.map((e) => e.value)).toEqual([{ a: ']}"' }, { b: [1, { c: 2 }] }, undefined]);
    expect(text.slice(els[1]!.offset, els[1]!.offset + els[1]!.byteLength)).toBe('{"b":[1,{"c":2}]}');
    expect(els[2]!.problem).toBe('invalid');
    const capped = [];
    for await (const e of jsonArrayElements(chunksOf('[{"x":"' + 'y'.repeat(5000) + '"},{"z":1}]', 100), { maxElementBytes: 1000 })) capped.push(e);
    expect(capped.map((e) => e.problem ?? 'ok')).toEqual(['oversized', 'ok']);
  });
});

describe('detectFormat', () => {
  it('recognises each format from its first bytes', () => {
    const text = (name: string) => new TextDecoder().decode(fixtureBytes(name));
    expect(detectFormat(text('claude-all-types.jsonl'))).toBe('claude-code');
    expect(detectFormat(text('claude-damaged.jsonl'))).toBe('claude-code');
    expect(detectFormat(text(ROLLOUT))).toBe('codex');
    expect(detectFormat(text('chatgpt-conversations.json'))).toBe('chat-export');
    expect(detectFormat(text('claude-ai-conversations.json'))).toBe('chat-export');
    expect(detectFormat('{\n  "sessionId": "x",\n  "messages": []\n}')).toBe('unknown');
    expect(detectFormat('hello world')).toBe('unknown');
    expect(detectFormat('')).toBe('unknown');
  });
});
