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

/**
 * Yields each element of the top-level array. When the document is not an array (a single object,
 * e.g. a one-conversation export), the whole document is yielded as one element if it fits.
 */
export async function* jsonArrayElements(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts: ArrayOptions = {}): AsyncGenerator<ArrayElement> {
  const max = opts.maxElementBytes ?? 256 * 1024 * 1024;
  let offset = opts.startOffset ?? 0;
  let mode: 'start' | 'between' | 'element' | 'single' | 'done' = 'start';
  let depth = 0; // nesting inside the current element
  let inString = false;
  let escape = false;
  let pieces: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  let elStart = 0;

  const finishElement = (): ArrayElement => {
    let el: ArrayElement;
    if (skipping) el = { value: undefined, offset: elStart, byteLength: size, problem: 'oversized' };
    else {
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const p of pieces) {
        bytes.set(p, at);
        at += p.length;
      }
      try {
        el = { value: JSON.parse(decoder.decode(bytes)), offset: elStart, byteLength: size };
      } catch {
        el = { value: undefined, offset: elStart, byteLength: size, problem: 'invalid' };
      }
    }
    pieces = [];
    size = 0;
    skipping = false;
    return el;
  };

  for await (const chunk of chunks) {
    // Start of the current element's bytes within this chunk (0 when an element continues from the last chunk).
    let segStart = mode === 'element' || mode === 'single' ? 0 : -1;
    const found: ArrayElement[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (mode === 'element' || mode === 'single') {
        if (inString) {
          if (escape) escape = false;
          else if (c === 0x5c) escape = true;
          else if (c === 0x22) inString = false;
          continue;
        }
        if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          depth--;
          if (depth === 0) {
            append(chunk.subarray(segStart, i + 1));
            segStart = -1;
            found.push(finishElement());
            mode = mode === 'single' ? 'done' : 'between';
          }
        }
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x2c) continue;
      if (mode === 'start') {
        if (c === 0x5b) mode = 'between';
        else if (c === 0x7b) {
          mode = 'single';
          depth = 1;
          elStart = offset + i;
          segStart = i;
        } else mode = 'done';
      } else if (mode === 'between') {
        if (c === 0x5d) mode = 'done';
        else if (c === 0x7b || c === 0x5b) {
          mode = 'element';
          depth = 1;
          elStart = offset + i;
          segStart = i;
        }
        // scalars between elements are ignored
      }
    }
    if (segStart >= 0) append(chunk.slice(segStart)); // copy: the producer may reuse its buffer
    offset += chunk.length;
    for (const el of found) yield el;
  }
  if (mode === 'element' || mode === 'single') yield { value: undefined, offset: elStart, byteLength: size, problem: 'invalid' };

  function append(bytes: Uint8Array): void {
    size += bytes.length;
    if (skipping) return;
    if (size > max) {
      skipping = true;
      pieces = [];
      return;
    }
    pieces.push(bytes);
  }
}
