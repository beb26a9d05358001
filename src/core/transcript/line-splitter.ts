// Splits a byte stream into lines with exact byte offsets and bounded memory.
// Splitting happens on bytes (0x0A never occurs inside a UTF-8 sequence), so a character split
// across chunks is decoded whole; only one line (at most maxLineBytes) is ever buffered.
// The work is synchronous per chunk (LineSplitter): an await per line would cost more than the parsing.

export interface Line {
  /** The decoded line without its line ending; null when the line was longer than the limit. */
  text: string | null;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Bytes of the line including its line ending. */
  byteLength: number;
  /** The line had no terminating newline (the end of the stream). */
  unterminated: boolean;
}

export interface SplitOptions {
  /** Offset of the first byte of the stream in the file (when the host starts reading mid-file). */
  startOffset?: number;
  /** Longer lines are skipped (reported with text null), never buffered whole. Default 64 MiB. */
  maxLineBytes?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

const decoder = new TextDecoder('utf-8');

function decode(bytes: Uint8Array): string {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 0x0d) end--; // CRLF files
  return decoder.decode(end === bytes.length ? bytes : bytes.subarray(0, end));
}

export class LineSplitter {
  private readonly maxLine: number;
  private offset: number; // offset of the start of the pending line
  private pieces: Uint8Array[] = [];
  private pendingBytes = 0;
  private skipping = false; // the pending line passed maxLine: drop bytes until its newline

  constructor(opts: SplitOptions = {}) {
    this.maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.offset = opts.startOffset ?? 0;
  }

  /** The lines this chunk completes. */
  push(chunk: Uint8Array): Line[] {
    const out: Line[] = [];
    let pos = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, pos);
      if (nl === -1) break;
      if (this.pendingBytes > 0 || this.skipping) out.push(this.complete(chunk, pos, nl));
      else {
        // The common case: a whole line inside this chunk, decoded in place (measured faster than one
        // decode of the whole chunk and a split).
        const len = nl - pos;
        out.push({ text: len > this.maxLine ? null : decode(chunk.subarray(pos, nl)), offset: this.offset, byteLength: len + 1, unterminated: false });
        this.offset += len + 1;
      }
      pos = nl + 1;
    }
    if (pos < chunk.length) this.hold(chunk, pos);
    return out;
  }

  private hold(chunk: Uint8Array, pos: number): void {
    const rest = chunk.length - pos;
    if (!this.skipping && this.pendingBytes + rest > this.maxLine) {
      this.skipping = true;
      this.pieces = [];
    }
    // Copy: the producer may reuse its chunk buffer.
    if (!this.skipping) this.pieces.push(chunk.slice(pos));
    this.pendingBytes += rest;
  }

  private complete(chunk: Uint8Array, pos: number, nl: number): Line {
    const partLen = nl - pos;
    const lineBytes = this.pendingBytes + partLen + 1;
    let text: string | null = null;
    if (!this.skipping && this.pendingBytes + partLen <= this.maxLine) {
      this.pieces.push(chunk.subarray(pos, nl));
      text = decode(concat(this.pieces, this.pendingBytes + partLen));
    }
    const line: Line = { text, offset: this.offset, byteLength: lineBytes, unterminated: false };
    this.offset += lineBytes;
    this.pieces = [];
    this.pendingBytes = 0;
    this.skipping = false;
    return line;
  }

  /** The last line, when the stream does not end with a newline. */
  finish(): Line[] {
    if (this.pendingBytes === 0) return [];
    const line: Line = { text: this.skipping ? null : decode(concat(this.pieces, this.pendingBytes)), offset: this.offset, byteLength: this.pendingBytes, unterminated: true };
    this.offset += this.pendingBytes;
    this.pieces = [];
    this.pendingBytes = 0;
    this.skipping = false;
    return [line];
  }
}

export async function* splitLines(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts: SplitOptions = {}): AsyncGenerator<Line> {
  const splitter = new LineSplitter(opts);
  for await (const chunk of chunks) yield* splitter.push(chunk);
  yield* splitter.finish();
}

function concat(pieces: Uint8Array[], total: number): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A chunk source over an in-memory string or bytes (tests, imports of pasted text). */
// eslint-disable-next-line @typescript-eslint/require-await -- the readers take one kind of chunk source, async (a file's is); this one has nothing to wait for
export async function* chunksOf(data: string | Uint8Array, chunkSize = 64 * 1024): AsyncGenerator<Uint8Array> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, Math.min(bytes.length, i + chunkSize));
}
