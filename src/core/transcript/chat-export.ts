// Bulk imports: a Claude.ai export and a ChatGPT export (`conversations.json`, a top-level array of
// conversations). One Session per conversation, streamed, so a large export never sits in memory.
import { emptyStats, countType, type ParseStats } from './parse-stats.js';
import { jsonArrayElements, type ArrayOptions } from './json-array.js';
import { str, obj, arr } from './record-stream.js';
import { TurnFinisher, newDraft, redactTurns, type DraftTurn, type FinishOptions } from './turn-builder.js';
import type { AgentName, Session, SessionMeta, Turn } from './types.js';

export interface ExportOptions extends ArrayOptions, FinishOptions {
  source?: string;
}

export interface ExportSummary {
  conversations: number;
  /** Elements that were not a conversation of a known export (or not valid JSON). */
  skipped: number;
  oversized: number;
}

/** Which export a conversation object comes from, or undefined. */
export function exportKind(v: unknown): 'claude-ai' | 'chatgpt' | undefined {
  const o = obj(v);
  if (!o) return undefined;
  if (Array.isArray(o.chat_messages)) return 'claude-ai';
  if (obj(o.mapping)) return 'chatgpt';
  return undefined;
}

/**
 * Yields one Session per conversation of a Claude.ai or ChatGPT export. `summary` (when given) is
 * filled in as the stream is read.
 */
export async function* readChatExport(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  opts: ExportOptions = {},
  summary: ExportSummary = { conversations: 0, skipped: 0, oversized: 0 },
): AsyncGenerator<Session> {
  for await (const el of jsonArrayElements(chunks, opts)) {
    if (el.problem === 'oversized') summary.oversized++;
    const kind = exportKind(el.value);
    if (!kind) {
      summary.skipped++;
      continue;
    }
    let session: Session;
    try {
      session = kind === 'claude-ai' ? claudeAiConversation(obj(el.value)!, el.offset, el.byteLength, opts) : chatGptConversation(obj(el.value)!, el.offset, el.byteLength, opts);
    } catch {
      summary.skipped++;
      continue;
    }
    summary.conversations++;
    await redactTurns(session.turns, session.stats!, opts, session.meta);
    yield session;
  }
}

function start(agent: AgentName, opts: ExportOptions, bytes: number): { stats: ParseStats; meta: SessionMeta; finisher: TurnFinisher } {
  const stats = emptyStats();
  stats.bytes = bytes;
  stats.lines = 1;
  stats.records = 1;
  const meta: SessionMeta = { sessionId: '', agent };
  if (opts.source) meta.source = opts.source;
  return { stats, meta, finisher: new TurnFinisher(stats, meta, opts) };
}

function claudeAiConversation(c: Record<string, unknown>, offset: number, bytes: number, opts: ExportOptions): Session {
  const { stats, meta, finisher } = start('claude-ai', opts, bytes);
  meta.sessionId = str(c.uuid) ?? `claude-ai:${offset}`;
  if (str(c.name)) meta.title = str(c.name);
  meta.startedAt = str(c.created_at);
  meta.endedAt = str(c.updated_at);
  const turns: Turn[] = [];
  let i = 0;
  for (const m of arr(c.chat_messages) ?? []) {
    const msg = obj(m);
    i++;
    if (!msg) {
      stats.malformedRecords++;
      continue;
    }
    countType(stats, `message:${str(msg.sender) ?? '?'}`);
    const sender = str(msg.sender);
    if (sender !== 'human' && sender !== 'assistant') continue;
    const d = newDraft(sender === 'human' ? 'user' : 'assistant', str(msg.uuid) ?? `${meta.sessionId}:${i}`, offset, offset + bytes, false, str(msg.created_at));
    const blocks = arr(msg.content);
    if (blocks && blocks.length) {
      for (const b of blocks) claudeBlock(obj(b), d, stats);
    } else if (typeof msg.text === 'string') d.parts.push(msg.text);
    // Attachments and files are documents the user pasted, not conversation: counted, not kept.
    stats.images += (arr(msg.files)?.length ?? 0) + (arr(msg.attachments)?.length ?? 0);
    const t = finisher.finish(d);
    if (t) turns.push(t);
  }
  return { meta, turns, stats };
}

function claudeBlock(b: Record<string, unknown> | undefined, d: DraftTurn, stats: ParseStats): void {
  if (!b) return;
  switch (str(b.type)) {
    case 'text':
      if (typeof b.text === 'string') d.parts.push(b.text);
      break;
    case 'thinking':
      stats.thinkingBlocks++;
      break;
    case 'tool_use': {
      stats.toolUses++;
      const name = str(b.name) ?? 'tool';
      if (!d.tools.includes(name)) d.tools.push(name);
      break;
    }
    case 'tool_result':
      stats.toolResults++;
      if (b.is_error === true) stats.toolErrors++;
      break;
    default:
      break;
  }
}

function isoFromEpoch(v: unknown): string | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 1e11 ? new Date(v * 1000).toISOString() : undefined;
}

function chatGptConversation(c: Record<string, unknown>, offset: number, bytes: number, opts: ExportOptions): Session {
  const { stats, meta, finisher } = start('chatgpt', opts, bytes);
  const mapping = obj(c.mapping) ?? {};
  meta.sessionId = str(c.conversation_id) ?? str(c.id) ?? `chatgpt:${offset}`;
  if (str(c.title)) meta.title = str(c.title);
  meta.startedAt = isoFromEpoch(c.create_time);
  meta.endedAt = isoFromEpoch(c.update_time);
  // The conversation is a tree (edits, regenerations); the shown branch ends at current_node.
  const path: Record<string, unknown>[] = [];
  const visited = new Set<string>();
  let id = str(c.current_node) ?? lastLeaf(mapping);
  while (id && !visited.has(id)) {
    visited.add(id);
    const node = obj(mapping[id]);
    if (!node) break;
    path.push(node);
    id = str(node.parent);
  }
  path.reverse();
  const turns: Turn[] = [];
  for (const node of path) {
    const msg = obj(node.message);
    if (!msg) continue;
    const role = str(obj(msg.author)?.role);
    const content = obj(msg.content);
    const ctype = str(content?.content_type) ?? '';
    countType(stats, `${role ?? '?'}:${ctype}`);
    if (obj(msg.metadata)?.is_visually_hidden_from_conversation === true) {
      stats.metaRecords++;
      continue;
    }
    if (role === 'tool') {
      stats.toolResults++;
      continue;
    }
    if (role !== 'user' && role !== 'assistant') continue;
    const d = newDraft(role, str(msg.id) ?? str(node.id) ?? `${meta.sessionId}:${turns.length}`, offset, offset + bytes, false, isoFromEpoch(msg.create_time));
    const recipient = str(msg.recipient);
    if (role === 'assistant' && recipient && recipient !== 'all') {
      // A call to a tool (python, browser, dalle): its code is tool input, not conversation.
      stats.toolUses++;
      d.tools.push(recipient);
    } else if (ctype === 'text' || ctype === 'multimodal_text') {
      for (const p of arr(content?.parts) ?? []) {
        if (typeof p === 'string') d.parts.push(p);
        else if (obj(p)) stats.images++;
      }
    } else if (ctype === 'thoughts' || ctype === 'reasoning_recap') {
      stats.thinkingBlocks++;
    }
    // user_editable_context (custom instructions), model_editable_context (ChatGPT memory) and
    // tool displays are not conversation.
    const t = finisher.finish(d);
    if (t) turns.push(t);
  }
  return { meta, turns, stats };
}

function lastLeaf(mapping: Record<string, unknown>): string | undefined {
  let best: string | undefined;
  let bestTime = -1;
  for (const [id, n] of Object.entries(mapping)) {
    const node = obj(n);
    if (!node || (arr(node.children)?.length ?? 0) > 0) continue;
    const t = obj(node.message)?.create_time;
    const time = typeof t === 'number' ? t : 0;
    if (time >= bestTime) {
      bestTime = time;
      best = id;
    }
  }
  return best;
}
