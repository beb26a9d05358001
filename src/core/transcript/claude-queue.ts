// Prompts a user types while Claude Code is working. They are queued (`queue-operation`): `dequeue`
// later writes the prompt as an ordinary user record; `remove` hands it to the model mid-turn, and
// then the queue record (and, in newer versions, a `queued_command` attachment) is its only trace.
// Each such prompt is kept once, whichever record carries it first.
import { stableId } from '../hash.js';
import { str, obj, type SourceRecord } from './record-stream.js';

export interface QueuedPrompt {
  text: string;
  uuid: string;
  offset: number;
  end: number;
  timestamp?: string;
}

export class PromptQueue {
  private readonly pending: { content: string; rec: SourceRecord; timestamp?: string }[] = [];
  /** Recently kept prompts, so a second record of the same prompt is not a second turn. */
  private readonly kept: string[] = [];

  /** A queue-operation record; returns the prompt to keep when the model got it mid-turn. */
  onQueueRecord(r: Record<string, unknown>, rec: SourceRecord): QueuedPrompt | undefined {
    const op = str(r.operation);
    if (op === 'enqueue') {
      const content = str(r.content);
      if (content?.trim()) this.pending.push({ content, rec, timestamp: str(r.timestamp) });
    } else if (op === 'dequeue') this.pending.shift();
    else if (op === 'popAll') this.pending.length = 0;
    else if (op === 'remove') {
      const q = this.pending.shift();
      if (q) return this.keep({ text: q.content, uuid: `queue:${stableId([q.timestamp ?? '', q.content])}`, offset: q.rec.offset, end: rec.end, timestamp: q.timestamp });
    }
    return undefined;
  }

  /** An attachment record; returns a human prompt from a `queued_command` not already kept. */
  onAttachment(r: Record<string, unknown>, rec: SourceRecord, uuid: string): QueuedPrompt | undefined {
    const a = obj(r.attachment);
    if (!a || str(a.type) !== 'queued_command') return undefined; // hook context, files, IDE state: not conversation
    const prompt = str(a.prompt);
    const mode = str(a.commandMode);
    const origin = str(obj(a.origin)?.kind);
    if (!prompt?.trim() || (mode !== undefined && mode !== 'prompt') || (origin !== undefined && origin !== 'human')) return undefined;
    if (this.isRepeat(prompt)) return undefined;
    return this.keep({ text: prompt, uuid, offset: rec.offset, end: rec.end, timestamp: str(r.timestamp) ?? str(a.timestamp) });
  }

  /** True (once) when a record repeats a prompt already kept from the queue. */
  isRepeat(text: string): boolean {
    const i = this.kept.indexOf(text);
    if (i < 0) return false;
    this.kept.splice(i, 1);
    return true;
  }

  private keep(p: QueuedPrompt): QueuedPrompt {
    this.kept.push(p.text);
    if (this.kept.length > 8) this.kept.shift();
    return p;
  }
}
