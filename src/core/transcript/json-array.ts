// Streams the elements of one big top-level JSON array (chat exports' conversations.json can be
// hundreds of MB): only one element is buffered at a time, and its byte offset is kept.

export interface ArrayElement {
  /** Parsed element, or undefined when it was not valid JSON or longer than the limit. */
  value: unknown;
  offset: number;
  byteLength: number;
  /** Why value is undefined. */
  problem?: 'invalid' | 'oversized';
}

export interface ArrayOptions {
  startOffset?: number;
  /** Larger elements are skipped, never buffered whole. Default 256 MiB. */
  maxElementBytes?: number;
}

const decoder = new TextDecoder('utf-8');

/** One element's bytes as they arrive: buffered up to the limit, then only counted (an oversized element is skipped). */
class ElementBuffer {
  private pieces: Uint8Array[] = [];
  private skipping = false;
  size = 0;

  constructor(private readonly max: number) {}

  append(bytes: Uint8Array): void {
    this.size += bytes.length;
    if (this.skipping) return;
    if (this.size > this.max) {
      this.skipping = true;
      this.pieces = [];
      return;
    }
    this.pieces.push(bytes);
  }

  /** The element that started at `offset`, parsed; the buffer is empty again. */
  take(offset: number): ArrayElement {
    const size = this.size;
    let el: ArrayElement;
    if (this.skipping) el = { value: undefined, offset, byteLength: size, problem: 'oversized' };
    else {
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const p of this.pieces) {
        bytes.set(p, at);
        at += p.length;
      }
      try {
        el = { value: JSON.parse(decoder.decode(bytes)), offset, byteLength: size };
      } catch {
        el = { value: undefined, offset, byteLength: size, problem: 'invalid' };
      }
    }
    this.pieces = [];
    this.size = 0;
    this.skipping = false;
    return el;
  }
}

/** Where the scan stands: before the array, between its elements, inside one, inside a lone top-level object, or past the end. */
type ScanMode = 'start' | 'between' | 'element' | 'single' | 'done';

/** Reads the document chunk by chunk, tracking strings and nesting, and hands back each element it completes. */
class ArrayScanner {
  private mode: ScanMode = 'start';
  private depth = 0; // nesting inside the current element
  private inString = false;
  private escape = false;
  private elStart = 0;
  private readonly buffer: ElementBuffer;

  constructor(private offset: number, max: number) {
    this.buffer = new ElementBuffer(max);
  }

  private get inElement(): boolean {
    return this.mode === 'element' || this.mode === 'single';
  }

  /** The elements this chunk completes. */
  feed(chunk: Uint8Array): ArrayElement[] {
    // Start of the current element's bytes within this chunk (0 when an element continues from the last chunk).
    let segStart = this.inElement ? 0 : -1;
    const found: ArrayElement[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (this.inElement) {
        if (this.closes(c)) {
          this.buffer.append(chunk.subarray(segStart, i + 1));
          segStart = -1;
          found.push(this.buffer.take(this.elStart));
          this.mode = this.mode === 'single' ? 'done' : 'between';
        }
        continue;
      }
      if (this.opens(c)) {
        this.depth = 1;
        this.elStart = this.offset + i;
        segStart = i;
      }
    }
    if (segStart >= 0) this.buffer.append(chunk.slice(segStart)); // copy: the producer may reuse its buffer
    this.offset += chunk.length;
    return found;
  }

  /** An element the document left unfinished, as invalid. */
  end(): ArrayElement | undefined {
    return this.inElement ? { value: undefined, offset: this.elStart, byteLength: this.buffer.size, problem: 'invalid' } : undefined;
  }

  /** Inside an element: whether byte `c` closes it. */
  private closes(c: number): boolean {
    if (this.inString) {
      if (this.escape) this.escape = false;
      else if (c === 0x5c) this.escape = true;
      else if (c === 0x22) this.inString = false;
      return false;
    }
    if (c === 0x22) this.inString = true;
    else if (c === 0x7b || c === 0x5b) this.depth++;
    else if (c === 0x7d || c === 0x5d) return --this.depth === 0;
    return false;
  }

  /** Outside an element: whether byte `c` opens one. */
  private opens(c: number): boolean {
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x2c) return false;
    if (this.mode === 'start') {
      if (c === 0x5b) this.mode = 'between';
      else if (c === 0x7b) {
        this.mode = 'single';
        return true;
      } else this.mode = 'done';
    } else if (this.mode === 'between') {
      if (c === 0x5d) this.mode = 'done';
      else if (c === 0x7b || c === 0x5b) {
        this.mode = 'element';
        return true;
      }
      // scalars between elements are ignored
    }
    return false;
  }
}

/**
 * Yields each element of the top-level array. When the document is not an array (a single object,
 * e.g. a one-conversation export), the whole document is yielded as one element if it fits.
 */
export async function* jsonArrayElements(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts: ArrayOptions = {}): AsyncGenerator<ArrayElement> {
  const scanner = new ArrayScanner(opts.startOffset ?? 0, opts.maxElementBytes ?? 256 * 1024 * 1024);
  for await (const chunk of chunks) {
    for (const el of scanner.feed(chunk)) yield el;
  }
  const unfinished = scanner.end();
  if (unfinished) yield unfinished;
}
