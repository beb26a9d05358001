// Codex CLI rollouts ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl, default ~/.codex).
// Records are {timestamp, type, payload}: session_meta, turn_context, response_item (messages,
// function calls and their output, reasoning), event_msg (UI echoes), compacted.
import { stableId } from '../hash.js';
import { countType } from './parse-stats.js';
import { str, obj, arr, type SourceRecord } from './record-stream.js';
import { newDraft, baseName, type DraftTurn } from './turn-builder.js';
import { errorSummary } from './noise.js';
import { JsonlSessionReader, readSession, type ReaderOptions } from './jsonl-reader.js';
import type { Session } from './types.js';

// User-role messages Codex injects itself (instructions, environment), not typed by the user.
const INJECTED_USER_RE = /^\s*(?:<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<permissions instructions>|<turn_aborted>|<user_shell_command>|<subagent_notification>)/;

/** How many records apart a prompt's response item and its event may be. */
const ECHO_DISTANCE = 4;

export class CodexReader extends JsonlSessionReader {
  private open: DraftTurn | undefined;
  private readonly seen = new Set<string>();
  private recordNo = 0;
  private lastPrompt: { source: 'item' | 'event'; recordNo: number } | undefined;

  constructor(opts: ReaderOptions = {}) {
    super('codex', opts);
  }

  protected closeAll(): void {
    this.close();
  }

  protected finishMeta(): void {
    if (!this.meta.sessionId && this.meta.source) {
      const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(this.meta.source);
      this.meta.sessionId = m?.[1] ?? baseName(this.meta.source);
    }
  }

  protected record(rec: SourceRecord): void {
    this.recordNo++;
    const r = rec.value;
    const type = str(r.type) ?? '(none)';
    const payload = obj(r.payload) ?? {};
    const ptype = str(payload.type);
    countType(this.stats, ptype ? `${type}:${ptype}` : type);
    const ts = str(r.timestamp);
    if (ts) {
      if (!this.meta.startedAt || ts < this.meta.startedAt) this.meta.startedAt = ts;
      if (!this.meta.endedAt || ts > this.meta.endedAt) this.meta.endedAt = ts;
    }
    switch (type) {
      case 'session_meta': {
        const id = str(payload.id);
        if (id && !this.meta.sessionId) this.meta.sessionId = id;
        if (str(payload.cwd)) this.meta.cwd = str(payload.cwd);
        if (str(payload.cli_version)) this.meta.version = str(payload.cli_version);
        const branch = str(obj(payload.git)?.branch);
        if (branch) this.meta.gitBranch = branch;
        break;
      }
      case 'turn_context':
        if (str(payload.cwd)) this.meta.cwd = str(payload.cwd);
        break;
      case 'compacted':
        this.stats.compactions++;
        break;
      case 'response_item':
        this.item(payload, rec, ts);
        break;
      case 'event_msg':
        // Mostly UI echoes of response items (agent_message, exec_command_end). The typed prompt is
        // `user_message`; some versions write it only there.
        if (ptype === 'user_message' && typeof payload.message === 'string') this.userPrompt([payload.message], rec, ts, 'event');
        break;
      default:
        break;
    }
  }

  // A prompt may be recorded twice, as a response item and as an event, a record or two apart
  // (their texts can differ: the event has no injected context). Keep the first, skip its echo.
  private userPrompt(texts: string[], rec: SourceRecord, ts: string | undefined, source: 'item' | 'event'): void {
    const last = this.lastPrompt;
    if (last && last.source !== source && this.recordNo - last.recordNo <= ECHO_DISTANCE) {
      this.lastPrompt = undefined;
      return;
    }
    const typed = texts.filter((t) => t.trim());
    if (typed.length === 0) return;
    this.close();
    const d = newDraft('user', this.uuidFor(rec), rec.offset, rec.end, false, ts);
    d.parts = typed;
    this.lastPrompt = { source, recordNo: this.recordNo };
    this.emit(d);
  }

  private item(p: Record<string, unknown>, rec: SourceRecord, ts: string | undefined): void {
    switch (str(p.type)) {
      case 'message': {
        const role = str(p.role);
        const texts: string[] = [];
        const content = p.content;
        if (typeof content === 'string') texts.push(content);
        for (const b of arr(content) ?? []) {
          const block = obj(b);
          if (block && typeof block.text === 'string') texts.push(block.text);
          else if (block && /image/.test(str(block.type) ?? '')) this.stats.images++;
        }
        if (role === 'user') {
          const typed = texts.filter((t) => !INJECTED_USER_RE.test(t));
          if (typed.length < texts.length) this.stats.metaRecords++;
          if (typed.length === 0) return;
          this.userPrompt(typed, rec, ts, 'item');
        } else if (role === 'assistant') {
          // Each assistant message starts a turn; the tool calls that follow belong to it.
          this.close();
          const d = this.draft(rec, ts);
          d.parts.push(...texts);
        }
        break;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call':
      case 'web_search_call': {
        this.stats.toolUses++;
        const d = this.open ?? this.draft(rec, ts);
        d.lastUuid = this.uuidFor(rec);
        d.endOffset = rec.end;
        this.addToolCall(d, str(p.name) ?? str(p.type)!.replace(/_call$/, ''), str(p.call_id));
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        this.stats.toolResults++;
        const err = codexError(p.output);
        if (err === undefined) return;
        this.stats.toolErrors++;
        this.toolOwner.get(str(p.call_id) ?? '')?.errors.push(errorSummary(err));
        break;
      }
      case 'reasoning':
        this.stats.thinkingBlocks++;
        break;
      default:
        break;
    }
  }

  private uuidFor(rec: SourceRecord): string {
    // Codex records have no ids; a hash of the record is stable across copies of the file.
    const key = `codex:${stableId([JSON.stringify(rec.value)])}`;
    if (this.seen.has(key)) this.stats.duplicateRecords++;
    this.seen.add(key);
    return key;
  }

  private draft(rec: SourceRecord, ts: string | undefined): DraftTurn {
    const d = newDraft('assistant', this.uuidFor(rec), rec.offset, rec.end, false, ts);
    this.open = d;
    return d;
  }

  private close(): void {
    if (!this.open) return;
    this.closeDraft(this.open);
    this.open = undefined;
  }
}

/** The error text of a tool output, or undefined when the call succeeded. */
function codexError(output: unknown): string | undefined {
  let text = typeof output === 'string' ? output : '';
  if (!text) {
    const o = obj(output);
    if (o && typeof o.content === 'string') text = o.content;
  }
  if (text.startsWith('{')) {
    try {
      const j = obj(JSON.parse(text));
      const code = obj(j?.metadata)?.exit_code;
      if (typeof code === 'number') return code === 0 ? undefined : str(j?.output) ?? `exit code ${code}`;
    } catch {
      // not JSON: fall through to the text checks
    }
  }
  const m = /Process exited with code (\d+)/.exec(text.slice(0, 400));
  if (m && m[1] !== '0') {
    const out = text.indexOf('Output:');
    return `exit code ${m[1]}: ${(out >= 0 ? text.slice(out + 7) : text).trim()}`;
  }
  if (/^(?:error|failed|.*\bfailed:)/i.test(text.slice(0, 200))) return text;
  return undefined;
}

export async function readCodex(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts: ReaderOptions = {}): Promise<Session> {
  return readSession(new CodexReader(opts), chunks);
}
