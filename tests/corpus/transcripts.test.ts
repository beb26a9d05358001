// Every transcript in ../shared/corpus/transcripts parses without an exception, and the reader's
// counts agree with a separate, deliberately simple pass over the raw lines (never a snapshot of
// the parser's own output).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasCorpus, corpusPath, corpusSkipReason } from '../helpers/shared.js';
import { readClaudeCode } from '../../src/core/transcript/claude-code.js';
import { readCodex } from '../../src/core/transcript/codex.js';
import { detectFormat } from '../../src/core/transcript/detect.js';
import { buildWindows } from '../../src/core/transcript/windows.js';

const root = hasCorpus ? corpusPath('transcripts') : '';

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.jsonl?$/.test(e.name) && !/metadata\.json$|manifest\.json$|expected/.test(p)) out.push(p);
  }
  return out.sort();
}

const files = hasCorpus ? walk(root) : [];
const claudeFiles = files.filter((f) => f.endsWith('.jsonl') && !f.includes(`${path.sep}codex${path.sep}`));
const codexFiles = files.filter((f) => f.includes(`${path.sep}codex${path.sep}`));
const otherFiles = files.filter((f) => !claudeFiles.includes(f) && !codexFiles.includes(f));

type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- raw JSON in a test's own simple pass

/** Each line's records: JSON.parse, else the pieces of a line split where one record ends and the next begins. */
function simpleRecords(file: string): { records: Rec[]; torn: number } {
  const records: Rec[] = [];
  let torn = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line) as Rec);
    } catch {
      torn++;
      for (const piece of line.split(/(?<=\})(?=\{")/)) {
        try {
          records.push(JSON.parse(piece) as Rec);
        } catch {
          // the truncated part of a torn line
        }
      }
    }
  }
  return { records, torn };
}

const NOISE = /<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|bash-stdout|bash-stderr|command-name|command-message|task-notification|agent-notification|ide_opened_file|ide_selection|ide_diagnostics)>[\s\S]*?(<\/\1>|$)|<\/?(command-args|bash-input)>|\[Request interrupted by user( for tool use)?\]|<engram-memory[\s\S]*?(<\/engram-memory>|$)/g;

function simpleClaude(file: string) {
  const { records, torn } = simpleRecords(file);
  const seen = new Set<string>();
  let user = 0;
  let sidechain = 0;
  const assistantIds = new Map<string, boolean>(); // id -> sidechain
  let compactions = 0;
  let summaries = 0;
  const queue: string[] = [];
  for (const r of records) {
    // Queued prompts: `remove` means the model got it mid-turn and no user record follows.
    if (r.type === 'queue-operation') {
      if (r.operation === 'enqueue' && typeof r.content === 'string' && r.content.trim()) queue.push(r.content);
      if (r.operation === 'dequeue') queue.shift();
      if (r.operation === 'popAll') queue.length = 0;
      if (r.operation === 'remove' && queue.length && queue.shift()!.replace(NOISE, '').trim()) user++;
    }
    if (typeof r.uuid === 'string') {
      if (seen.has(r.uuid)) continue;
      seen.add(r.uuid);
    }
    if (r.type === 'system' && r.subtype === 'compact_boundary') compactions++;
    if (r.type === 'summary') summaries++;
    if (r.type === 'user' && !r.isMeta && !r.isCompactSummary) {
      const c = r.message?.content;
      const text = typeof c === 'string' ? c : Array.isArray(c) ? c.filter((b: Rec) => b?.type === 'text').map((b: Rec) => String(b.text)).join('\n') : '';
      if (text.replace(NOISE, '').trim() && !text.startsWith('This session is being continued from a previous conversation that ran out of context')) {
        user++;
        if (r.isSidechain) sidechain++;
      }
    }
    if (r.type === 'assistant' && Array.isArray(r.message?.content)) {
      const useful = r.message.content.some((b: Rec) => (b?.type === 'text' && String(b.text).trim()) || b?.type === 'tool_use');
      if (useful && !assistantIds.has(r.message.id)) assistantIds.set(r.message.id, r.isSidechain === true);
    }
  }
  const assistant = assistantIds.size;
  sidechain += [...assistantIds.values()].filter(Boolean).length;
  return { user, assistant, sidechain, compactions, summaries, torn };
}

function simpleCodex(file: string) {
  const { records, torn } = simpleRecords(file);
  let user = 0;
  let assistantText = 0;
  let calls = 0;
  let compactions = 0;
  // A typed prompt is a response item, an event, or both a few records apart: count it once.
  let lastPrompt: { kind: string; at: number } | undefined;
  const prompt = (kind: string, at: number) => {
    if (lastPrompt && lastPrompt.kind !== kind && at - lastPrompt.at <= 4) lastPrompt = undefined;
    else {
      user++;
      lastPrompt = { kind, at };
    }
  };
  records.forEach((r, at) => {
    const p = r.payload ?? {};
    if (r.type === 'compacted') compactions++;
    if (r.type === 'event_msg' && p.type === 'user_message' && typeof p.message === 'string' && p.message.trim()) prompt('event', at);
    if (r.type !== 'response_item') return;
    if (p.type === 'message') {
      const text = (Array.isArray(p.content) ? p.content : []).map((b: Rec) => String(b?.text ?? '')).join('');
      if (p.role === 'user' && text.trim() && !/^\s*(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md|<permissions instructions>|<turn_aborted>|<user_shell_command>|<subagent_notification>)/.test(text)) prompt('item', at);
      if (p.role === 'assistant' && text.trim()) assistantText++;
    }
    if (/^(function_call|custom_tool_call|local_shell_call|web_search_call)$/.test(p.type)) calls++;
  });
  return { user, assistantText, calls, compactions, torn };
}

async function open(file: string): Promise<AsyncIterable<Uint8Array>> {
  return fs.createReadStream(file, { highWaterMark: 256 * 1024 }) as AsyncIterable<Uint8Array>;
}

describe.skipIf(!hasCorpus)(`corpus transcripts (${hasCorpus ? 'present' : corpusSkipReason})`, () => {
  it('the corpus is where we expect it', () => {
    expect(claudeFiles.length).toBeGreaterThan(30);
    expect(codexFiles.length).toBeGreaterThan(5);
  });

  describe.each(hasCorpus ? claudeFiles.map((f) => [path.relative(root, f), f]) : [['none', '']])('Claude Code %s', (_name, file) => {
    it('counts agree with a simple pass over the raw lines', async () => {
      const s = await readClaudeCode(await open(file), { source: file });
      const want = simpleClaude(file);
      const st = s.stats!;
      expect(st.turnsByRole.user, 'user turns').toBe(want.user);
      expect(st.turnsByRole.assistant, 'assistant turns').toBe(want.assistant);
      expect(st.sidechainTurns, 'sidechain turns').toBe(want.sidechain);
      expect(st.compactions, 'compactions').toBe(want.compactions);
      expect(st.summaries, 'legacy summaries').toBe(want.summaries);
      expect(st.tornLines, 'torn lines').toBe(want.torn);
      expect(st.bytes).toBe(fs.statSync(file).size);
      expect(detectFormat(fs.readFileSync(file, 'utf8').slice(0, 65536), file)).toBe('claude-code');
      expect(s.turns.map((t) => t.index)).toEqual(s.turns.map((_, i) => i));
      for (const w of buildWindows(s.turns, { budgetTokens: 8000 })) expect(w.tokens).toBeLessThanOrEqual(8000);
    });
  });

  describe.each(hasCorpus ? codexFiles.map((f) => [path.relative(root, f), f]) : [['none', '']])('Codex %s', (_name, file) => {
    it('counts agree with a simple pass over the raw lines', async () => {
      const s = await readCodex(await open(file), { source: file });
      const want = simpleCodex(file);
      const st = s.stats!;
      expect(st.turnsByRole.user, 'user turns').toBe(want.user);
      // Each assistant message is a turn; tool calls before any message form one tool-only turn.
      expect(st.turnsByRole.assistant).toBeGreaterThanOrEqual(want.assistantText);
      expect(st.turnsByRole.assistant).toBeLessThanOrEqual(want.assistantText + want.calls);
      expect(st.compactions, 'compactions').toBe(want.compactions);
      expect(st.tornLines, 'torn lines').toBe(want.torn);
      expect(s.meta.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(detectFormat(fs.readFileSync(file, 'utf8').slice(0, 65536), file)).toBe('codex');
    });
  });

  it.each(hasCorpus ? otherFiles.map((f) => [path.relative(root, f), f]) : [['none', '']])('other agent %s: not taken for a transcript, never throws', async (_name, file) => {
    expect(detectFormat(fs.readFileSync(file, 'utf8').slice(0, 65536), file)).toBe('unknown');
    const s = await readClaudeCode(await open(file));
    expect(s.turns).toEqual([]);
  });

  it('the torn lines the corpus README lists are found and their intact records kept', async () => {
    const file = path.join(root, 'entireio-cli', '8c_fa910f8ef9_0.full.jsonl');
    const s = await readClaudeCode(await open(file));
    expect(s.stats!.tornLines).toBe(2);
    expect(s.stats!.recoveredRecords).toBe(4);
  });
});
