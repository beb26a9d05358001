// JSONL bytes -> records with byte offsets, counting every line that is not one clean record.
import { LineSplitter, type Line } from './line-splitter.js';
import { parseJsonLine, utf8Length } from './json-records.js';
import { noteDamage, type ParseStats } from './parse-stats.js';

export interface SourceRecord {
  value: Record<string, unknown>;
  /** Byte offset of the record in the file. */
  offset: number;
  /** Byte offset just past the record (its line ending included when it ends the line). */
  end: number;
}

export interface StreamOptions {
  startOffset?: number;
  maxLineBytes?: number;
}

/** Lines -> records, synchronously per chunk (see LineSplitter for why). */
export class RecordStream {
  private readonly splitter: LineSplitter;

  constructor(
    private readonly stats: ParseStats,
    opts: StreamOptions = {},
  ) {
    this.splitter = new LineSplitter(opts);
  }

  push(chunk: Uint8Array): SourceRecord[] {
    return this.records(this.splitter.push(chunk));
  }

  finish(): SourceRecord[] {
    return this.records(this.splitter.finish());
  }

  private records(lines: Line[]): SourceRecord[] {
    const out: SourceRecord[] = [];
    const stats = this.stats;
    for (const line of lines) {
      stats.lines++;
      stats.bytes += line.byteLength;
      const lineEnd = line.offset + line.byteLength;
      if (line.text === null) {
        stats.oversizedLines++;
        noteDamage(stats, line.offset, 'oversized', 0);
        continue;
      }
      if (line.text.trim() === '') {
        stats.blankLines++;
        continue;
      }
      const parsed = parseJsonLine(line.text);
      if (parsed.malformed) {
        stats.malformedRecords++;
        noteDamage(stats, line.offset, 'malformed', 0);
        continue;
      }
      if (parsed.torn) {
        stats.tornLines++;
        stats.recoveredRecords += parsed.records.length;
        if (parsed.lost) stats.lostFragments++;
        noteDamage(stats, line.offset, 'torn', parsed.records.length);
      }
      const n = parsed.records.length;
      for (let i = 0; i < n; i++) {
        const rec = parsed.records[i];
        stats.records++;
        const offset = parsed.torn ? line.offset + utf8Length(line.text, rec.at) : line.offset;
        const next = parsed.records[i + 1];
        const end = next ? line.offset + utf8Length(line.text, next.at) : lineEnd;
        out.push({ value: rec.value, offset, end });
      }
    }
    return out;
  }
}

/** Field access on untyped JSON without `any`. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function arr(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}
