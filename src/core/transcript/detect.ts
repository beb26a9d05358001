// Which reader a file needs, from its first bytes (and its name as a tie-breaker).
import { readClaudeCode, type ReaderOptions } from './claude-code.js';
import { readCodex } from './codex.js';
import type { Session } from './types.js';
import { isRolloutName } from './client.js';

export type TranscriptFormat = 'claude-code' | 'codex' | 'chat-export' | 'unknown';

const CLAUDE_TYPES = new Set(['user', 'assistant', 'system', 'summary', 'progress', 'file-history-snapshot', 'queue-operation', 'attachment', 'custom-title', 'pr-link']);
const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

/** `head` = the first few KB of the file, decoded. */
export function detectFormat(head: string, path = ''): TranscriptFormat {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('[')) return 'chat-export';
  const lines = text.split('\n').slice(0, 20);
  for (const line of lines) {
    if (!line.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; // a long first line cut by the head, or damage: try the next
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    const r = v as Record<string, unknown>;
    const type = typeof r.type === 'string' ? r.type : '';
    if (CODEX_TYPES.has(type) && 'payload' in r) return 'codex';
    if (CLAUDE_TYPES.has(type) || 'parentUuid' in r || 'leafUuid' in r) return 'claude-code';
  }
  const name = path.replace(/\\/g, '/').split('/').pop() ?? '';
  if (isRolloutName(name)) return 'codex';
  if (/\.jsonl$/.test(name) && /"(?:parentUuid|sessionId)"/.test(text)) return 'claude-code';
  if (name === 'conversations.json') return 'chat-export';
  return 'unknown';
}

/** Reads a Claude Code or Codex JSONL transcript (chat exports hold many sessions: use readChatExport). */
export async function readSession(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  format: 'claude-code' | 'codex',
  opts: ReaderOptions = {},
): Promise<Session> {
  return format === 'codex' ? readCodex(chunks, opts) : readClaudeCode(chunks, opts);
}
