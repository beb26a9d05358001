// Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl and subagents/agent-*.jsonl).
// The format is internal and changes between versions (docs/ARCHITECTURE.md (transcripts change between versions)): key on `type`, tolerate any
// shape, group the lines of one API message by message.id, and never throw on bad input.
import { countType } from './parse-stats.js';
import { str, obj, arr, type SourceRecord } from './record-stream.js';
import { newDraft, baseName, type DraftTurn } from './turn-builder.js';
import { errorSummary } from './noise.js';
import { PromptQueue, type QueuedPrompt } from './claude-queue.js';
import { JsonlSessionReader, readSession, type ReaderOptions } from './jsonl-reader.js';
import type { Session } from './types.js';

export type { ReaderOptions } from './jsonl-reader.js';

const COMPACT_SUMMARY_RE = /^This session is being continued from a previous conversation that ran out of context/;

export class ClaudeCodeReader extends JsonlSessionReader {
  private readonly seen = new Set<string>();
  /** The open turn of each conversation chain (main, or one per subagent inlined in the file). */
  private readonly open = new Map<string, DraftTurn>();
  private readonly promptQueue = new PromptQueue();
  private mainRecords = 0;
  private sideRecords = 0;
  private firstAgentId: string | undefined;

  constructor(opts: ReaderOptions = {}) {
    super('claude-code', opts);
    if (opts.source) {
      const norm = opts.source.replace(/\\/g, '/');
      if (/\/subagents\/agent-acompact[^/]*$/.test(norm)) this.meta.subagent = 'compact';
      else if (/\/subagents\/agent-[^/]*$/.test(norm)) this.meta.subagent = 'task';
    }
  }

  protected closeAll(): void {
    // Close what is still open in the order the turns started.
    const rest = [...this.open.entries()].sort((a, b) => a[1].offset - b[1].offset);
    for (const [key] of rest) this.close(key);
  }

  protected record(rec: SourceRecord): void {
    const r = rec.value;
    const type = str(r.type) ?? '(none)';
    const subtype = str(r.subtype);
    countType(this.stats, type === 'system' && subtype ? `system:${subtype}` : type);
    this.envelope(r);
    const uuid = str(r.uuid);
    if (uuid) {
      if (this.seen.has(uuid)) {
        this.stats.duplicateRecords++;
        return;
      }
      this.seen.add(uuid);
    }
    switch (type) {
      case 'user':
        this.user(r, rec, uuid ?? `line:${rec.offset}`);
        break;
      case 'assistant':
        this.assistant(r, rec, uuid ?? `line:${rec.offset}`);
        break;
      case 'system':
        if (subtype === 'compact_boundary') this.stats.compactions++;
        else if (subtype === 'microcompact_boundary') this.stats.microcompactions++;
        break;
      case 'summary':
        this.stats.summaries++;
        if (str(r.summary)) this.meta.title = str(r.summary);
        break;
      case 'queue-operation':
        this.queuedPrompt(this.promptQueue.onQueueRecord(r, rec));
        break;
      case 'attachment':
        this.queuedPrompt(this.promptQueue.onAttachment(r, rec, uuid ?? `line:${rec.offset}`));
        break;
      case 'custom-title':
        if (str(r.customTitle)) this.meta.title = str(r.customTitle);
        break;
      default:
        // progress, file-history-snapshot, queue-operation, attachment, pr-link, and future types: not conversation.
        break;
    }
  }

  private envelope(r: Record<string, unknown>): void {
    const m = this.meta;
    const sid = str(r.sessionId);
    if (sid && !m.sessionId) m.sessionId = sid;
    const cwd = str(r.cwd);
    if (cwd && m.cwd && cwd !== m.cwd && !(m.otherCwds ??= []).includes(m.cwd) && m.otherCwds.length < 8) m.otherCwds.push(m.cwd);
    if (cwd) m.cwd = cwd;
    const branch = str(r.gitBranch);
    if (branch) m.gitBranch = branch;
    const version = str(r.version);
    if (version) m.version = version;
    const ts = str(r.timestamp);
    if (ts) {
      if (!m.startedAt || ts < m.startedAt) m.startedAt = ts;
      if (!m.endedAt || ts > m.endedAt) m.endedAt = ts;
    }
    const type = r.type;
    if (type === 'user' || type === 'assistant') {
      if (r.isSidechain === true) {
        this.sideRecords++;
        this.firstAgentId ??= str(r.agentId);
      } else this.mainRecords++;
    }
  }

  private chainKey(r: Record<string, unknown>): string {
    return r.isSidechain === true ? `side:${str(r.agentId) ?? ''}` : 'main';
  }

  private user(r: Record<string, unknown>, rec: SourceRecord, uuid: string): void {
    if (r.isCompactSummary === true) {
      this.stats.compactSummaries++;
      return;
    }
    if (r.isMeta === true) {
      this.stats.metaRecords++;
      return;
    }
    const message = obj(r.message);
    const content = message ? message.content : undefined;
    const parts: string[] = [];
    if (typeof content === 'string') parts.push(content);
    for (const b of arr(content) ?? []) {
      const block = obj(b);
      if (!block) continue;
      const bt = str(block.type);
      if (bt === 'text' && typeof block.text === 'string') parts.push(block.text);
      else if (bt === 'tool_result') this.toolResult(block);
      else if (bt === 'image' || bt === 'document') this.stats.images++;
    }
    if (parts.length === 0) return;
    // Versions before the isCompactSummary flag wrote the summary as a plain user message.
    if (COMPACT_SUMMARY_RE.test(parts[0])) {
      this.stats.compactSummaries++;
      return;
    }
    if (parts.length === 1 && r.isSidechain !== true && this.promptQueue.isRepeat(parts[0])) return;
    const key = this.chainKey(r);
    this.close(key);
    const d = newDraft('user', uuid, rec.offset, rec.end, r.isSidechain === true, str(r.timestamp));
    d.parts = parts;
    this.emit(d);
  }

  private queuedPrompt(p: QueuedPrompt | undefined): void {
    if (!p) return;
    this.close('main');
    const d = newDraft('user', p.uuid, p.offset, p.end, false, p.timestamp);
    d.parts = [p.text];
    this.stats.queuedPrompts++;
    this.emit(d);
  }

  private toolResult(block: Record<string, unknown>): void {
    this.stats.toolResults++;
    if (block.is_error !== true) return;
    this.stats.toolErrors++;
    const owner = this.toolOwner.get(str(block.tool_use_id) ?? '');
    if (!owner) return;
    const c = block.content;
    let text = typeof c === 'string' ? c : '';
    for (const b of arr(c) ?? []) {
      const t = obj(b);
      if (t && typeof t.text === 'string') text += (text ? '\n' : '') + t.text;
    }
    owner.errors.push(errorSummary(text || 'tool error'));
  }

  private assistant(r: Record<string, unknown>, rec: SourceRecord, uuid: string): void {
    const message = obj(r.message);
    const key = this.chainKey(r);
    const id = str(message?.id) ?? str(r.requestId) ?? uuid;
    let d = this.open.get(key);
    if (!d || d.role !== 'assistant' || d.messageId !== id) {
      this.close(key);
      d = newDraft('assistant', uuid, rec.offset, rec.end, r.isSidechain === true, str(r.timestamp));
      d.messageId = id;
      this.open.set(key, d);
    }
    d.lastUuid = uuid;
    d.endOffset = rec.end;
    const content = message ? message.content : undefined;
    if (typeof content === 'string') d.parts.push(content);
    for (const b of arr(content) ?? []) {
      const block = obj(b);
      if (!block) continue;
      switch (str(block.type)) {
        case 'text':
          if (typeof block.text === 'string') d.parts.push(block.text);
          break;
        case 'thinking':
        case 'redacted_thinking':
          this.stats.thinkingBlocks++;
          break;
        case 'tool_use':
        case 'server_tool_use': {
          this.stats.toolUses++;
          this.addToolCall(d, str(block.name) ?? 'tool', str(block.id));
          break;
        }
        case 'image':
          this.stats.images++;
          break;
        default:
          break;
      }
    }
  }

  private close(key: string): void {
    const d = this.open.get(key);
    if (!d) return;
    this.open.delete(key);
    this.closeDraft(d);
  }

  protected finishMeta(): void {
    const m = this.meta;
    // A subagent file holds only sidechain records; a main file may hold a few inline (older versions).
    if (this.sideRecords > 0 && this.mainRecords === 0) {
      m.subagent ??= 'task';
      if (this.firstAgentId) m.agentId = this.firstAgentId;
    }
    if (m.subagent && !m.agentId && m.source) {
      const id = /agent-([^/\\]+?)\.jsonl$/.exec(m.source)?.[1];
      if (id) m.agentId = id;
    }
    if (m.agentId && m.sessionId && !m.parentSessionId) {
      m.parentSessionId = m.sessionId;
      m.sessionId = `${m.sessionId}:agent-${m.agentId}`;
    }
    if (!m.sessionId && m.source) m.sessionId = baseName(m.source).replace(/\.jsonl?$/, '');
  }
}

/** Reads a whole Claude Code transcript into a Session (turns kept in memory; use the reader to stream). */
export async function readClaudeCode(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts: ReaderOptions = {}): Promise<Session> {
  return readSession(new ClaudeCodeReader(opts), chunks);
}
