// Splits a byte stream into lines with exact byte offsets and bounded memory.
// Splitting happens on bytes (0x0A never occurs inside a UTF-8 sequence), so a character split
// across chunks is decoded whole; only one line (at most maxLineBytes) is ever buffered.

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

export async function* splitLines(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts: SplitOptions = {}): AsyncGenerator<Line> {
  const maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let offset = opts.startOffset ?? 0; // offset of the start of the pending line
  let pieces: Uint8Array[] = [];
  let pendingBytes = 0;
  let skipping = false; // the pending line passed maxLine: drop bytes until its newline

  for await (const chunk of chunks) {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(0x0a, pos);
      if (nl === -1) {
        const rest = chunk.length - pos;
        if (!skipping && pendingBytes + rest > maxLine) {
          skipping = true;
          pieces = [];
        }
        // Copy: the producer may reuse its chunk buffer after we yield.
        if (!skipping) pieces.push(chunk.slice(pos));
        pendingBytes += rest;
        break;
      }
      const partLen = nl - pos;
      const lineBytes = pendingBytes + partLen + 1;
      if (skipping || pendingBytes + partLen > maxLine) {
        yield { text: null, offset, byteLength: lineBytes, unterminated: false };
      } else if (pieces.length === 0) {
        yield { text: decode(chunk.subarray(pos, nl)), offset, byteLength: lineBytes, unterminated: false };
      } else {
        pieces.push(chunk.subarray(pos, nl));
        yield { text: decode(concat(pieces, pendingBytes + partLen)), offset, byteLength: lineBytes, unterminated: false };
      }
      offset += lineBytes;
      pieces = [];
      pendingBytes = 0;
      skipping = false;
      pos = nl + 1;
    }
  }
  if (pendingBytes > 0) {
    const text = skipping ? null : decode(concat(pieces, pendingBytes));
    yield { text, offset, byteLength: pendingBytes, unterminated: true };
  }
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
export async function* chunksOf(data: string | Uint8Array, chunkSize = 64 * 1024): AsyncGenerator<Uint8Array> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, Math.min(bytes.length, i + chunkSize));
}
