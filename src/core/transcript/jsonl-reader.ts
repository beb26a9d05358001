// What the JSONL session readers (Claude Code, Codex) share: records streamed from byte chunks, a bad
// record counted instead of thrown, draft turns finished as they close, and tool calls tracked so a
// later result can be matched back to the turn that made it. Each reader supplies the record logic.
import { emptyStats, type ParseStats } from './parse-stats.js';
import { RecordStream, type SourceRecord, type StreamOptions } from './record-stream.js';
import { TurnFinisher, redactTurns, type DraftTurn, type FinishOptions } from './turn-builder.js';
import type { AgentName, Session, SessionMeta, Turn } from './types.js';

export interface ReaderOptions extends StreamOptions, FinishOptions {
  /** The file path, for the session's metadata and to recognise subagent files. */
  source?: string;
}

export abstract class JsonlSessionReader {
  readonly stats: ParseStats = emptyStats();
  readonly meta: SessionMeta;
  private readonly finisher: TurnFinisher;
  /** Which open turn issued each tool call id, until that turn closes. */
  protected readonly toolOwner = new Map<string, DraftTurn>();
  private readonly out: Turn[] = [];

  constructor(
    agent: AgentName,
    protected readonly opts: ReaderOptions,
  ) {
    this.meta = { sessionId: '', agent };
    if (opts.source) this.meta.source = opts.source;
    this.finisher = new TurnFinisher(this.stats, this.meta, opts);
  }

  /** Streams the finished turns in reading order; meta and stats are complete when the loop ends. */
  async *turns(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Turn> {
    const stream = new RecordStream(this.stats, this.opts);
    for await (const chunk of chunks) {
      for (const rec of stream.push(chunk)) this.safeRecord(rec);
      if (this.out.length) yield* await redactTurns(this.out.splice(0), this.stats, this.opts);
    }
    for (const rec of stream.finish()) this.safeRecord(rec);
    this.closeAll();
    this.finishMeta();
    // The title (a summary or custom title) is the user's text too: redacted with the last turns.
    yield* await redactTurns(this.out.splice(0), this.stats, this.opts, this.meta);
  }

  /** Reads one record into the open turns. */
  protected abstract record(rec: SourceRecord): void;
  /** Closes every turn still open at the end of the file. */
  protected abstract closeAll(): void;
  /** Fills in what the metadata can only know once every record is read. */
  protected abstract finishMeta(): void;

  private safeRecord(rec: SourceRecord): void {
    try {
      this.record(rec);
    } catch {
      // A record of a shape nobody anticipated: count it, keep reading.
      this.stats.malformedRecords++;
    }
  }

  /** Notes a tool call in the turn making it; a result carrying `toolId` is matched back while the turn is open. */
  protected addToolCall(d: DraftTurn, name: string, toolId: string | undefined): void {
    if (!d.tools.includes(name)) d.tools.push(name);
    if (toolId) {
      d.toolIds.push(toolId);
      this.toolOwner.set(toolId, d);
    }
  }

  /** Finishes a turn that will get no more records: its tool calls stop taking results. */
  protected closeDraft(d: DraftTurn): void {
    for (const id of d.toolIds) this.toolOwner.delete(id);
    this.emit(d);
  }

  protected emit(d: DraftTurn): void {
    const t = this.finisher.finish(d);
    if (t) this.out.push(t);
  }
}

/** Reads a whole transcript into a Session (turns kept in memory; use the reader itself to stream). */
export async function readSession(reader: JsonlSessionReader, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<Session> {
  const turns: Turn[] = [];
  for await (const t of reader.turns(chunks)) turns.push(t);
  return { meta: reader.meta, turns, stats: reader.stats };
}
