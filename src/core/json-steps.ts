// JSON.parse of a large object in steps: the long array under its last key is cut at its top-level commas and parsed
// a block at a time, so a host's UI gets turns (a 13,000-note table is 5 MB of JSON, about 40 ms in one go).

/** Characters (or bytes) scanned for the array's commas between two steps. */
const SCAN_STEP = 1 << 16;

/**
 * What Engram's writers put between two elements of the long array: a comma and a newline. JSON.stringify never writes
 * a raw newline (it escapes it in strings), so each newline marks an element's end and the reader cuts the array by
 * looking for newlines (native, fast) instead of reading every character for quotes and brackets (the 13,415-note
 * vault's note cache and note table: about a tenth of a host's start). Still JSON: any reader parses it.
 */
export const JSON_ELEMENT_SEPARATOR = ',\n';

const dec = new TextDecoder();

/**
 * The value of `JSON.parse(json)`, in steps, when `json` is an object whose last key is `key` holding an array, as
 * Engram's writers lay it out (no whitespace); any other text is parsed in one go. Throws what JSON.parse throws.
 * `json` may be the UTF-8 bytes of the text (a snapshot's note table): then no block is decoded until it is parsed, and
 * the text is never held whole (its quotes, brackets and commas are single bytes that no multi-byte character holds).
 */
export function* parseJsonSteps(json: string | Uint8Array, key: string, block = 1024): Generator<void, unknown> {
  const text = typeof json === 'string' ? (from: number, to: number) => json.slice(from, to) : (from: number, to: number) => dec.decode(json.subarray(from, to));
  const whole = (): unknown => JSON.parse(text(0, json.length));
  const marker = `${JSON.stringify(key)}:[`;
  // Inside a JSON string every quote is escaped, so the first bare `"key":[` is structure, not text.
  const at = indexOf(json, marker);
  if (at < 0 || text(json.length - 2, json.length) !== ']}') return whole();
  let head: Record<string, unknown>;
  try {
    // Closes only if the key is the top-level object's: nested deeper, `]}` leaves it open.
    head = JSON.parse(`${text(0, at + marker.length)}]}`) as Record<string, unknown>;
  } catch {
    return whole();
  }
  const start = at + marker.length;
  const blocks = cutAtNewlines(json, start, block);
  if (blocks) {
    const out: unknown[] = [];
    try {
      for (const [from, to] of blocks) {
        const part = text(from, to);
        // An empty block is a stray comma: the scan below refuses it as JSON.parse does.
        if (!part.trim()) throw new SyntaxError('empty block');
        for (const v of JSON.parse(`[${part}]`) as unknown[]) out.push(v);
        yield;
      }
    } catch {
      // A newline after a comma inside an element (JSON laid out by another writer), or JSON that is not valid: cut by
      // the characters below, which give what JSON.parse gives (its error included).
      return yield* cutByScan(json, text, head, key, start, block);
    }
    head[key] = out;
    return head;
  }
  return yield* cutByScan(json, text, head, key, start, block);
}

/**
 * The array from `start` to the object's closing `]}` cut into blocks of `block` elements at the newlines that follow
 * its commas ([from, to) of each block, the separators left out); undefined when it holds no newline, or one that no
 * comma precedes (another layout). A cut that falls inside an element leaves a block that does not parse.
 */
function cutAtNewlines(json: string | Uint8Array, start: number, block: number): [number, number][] | undefined {
  const newline = (from: number) => (typeof json === 'string' ? json.indexOf('\n', from) : json.indexOf(0x0a, from));
  const comma = (i: number) => (typeof json === 'string' ? json.charCodeAt(i) : json[i]) === 0x2c;
  const blocks: [number, number][] = [];
  let from = start;
  let elements = 0;
  for (let nl = newline(start); nl >= 0; nl = newline(nl + 1)) {
    if (!comma(nl - 1)) return undefined;
    if (++elements % block === 0) {
      blocks.push([from, nl - 1]);
      from = nl + 1;
    }
  }
  if (elements === 0) return undefined;
  blocks.push([from, json.length - 2]);
  return blocks;
}

/** The array cut at its top-level commas, read a character at a time (any layout without newlines). */
function* cutByScan(json: string | Uint8Array, text: (from: number, to: number) => string, head: Record<string, unknown>, key: string, start: number, block: number): Generator<void, unknown> {
  const whole = (): unknown => JSON.parse(text(0, json.length));
  const cuts = [start];
  let depth = 0;
  let inString = false;
  let end = -1;
  let elements = 0;
  const code = typeof json === 'string' ? (i: number) => json.charCodeAt(i) : (i: number) => json[i];
  for (let i = start; i < json.length && end < 0; i++) {
    const c = code(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) end = i;
      else depth--;
    } else if (c === 0x2c && depth === 0 && ++elements % block === 0) cuts.push(i + 1);
    if ((i - start + 1) % SCAN_STEP === 0) yield;
  }
  // The array must close right before the object does: otherwise this is not the layout we cut.
  if (end !== json.length - 2) return whole();
  cuts.push(end + 1);
  const out: unknown[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const part = cuts[k + 1] - 1 > cuts[k] ? text(cuts[k], cuts[k + 1] - 1) : '';
    // Only an empty array has an empty block; anywhere else it is a stray comma, which JSON.parse refuses too.
    if (!part.trim() && cuts.length > 2) throw new SyntaxError(`Unexpected "," in JSON at position ${cuts[k]}`);
    if (part.trim()) for (const v of JSON.parse(`[${part}]`) as unknown[]) out.push(v);
    yield;
  }
  head[key] = out;
  return head;
}

/** Where an ASCII marker first occurs in a text or in UTF-8 bytes; -1 when nowhere. */
function indexOf(json: string | Uint8Array, marker: string): number {
  if (typeof json === 'string') return json.indexOf(marker);
  const m = Array.from(marker, (ch) => ch.charCodeAt(0));
  outer: for (let i = 0; i + m.length <= json.length; i++) {
    for (let j = 0; j < m.length; j++) if (json[i + j] !== m[j]) continue outer;
    return i;
  }
  return -1;
}
