// JSON.parse of a large object in steps: the long array under its last key is cut at its top-level commas and parsed
// a block at a time, so a host's UI gets turns (a 13,000-note table is 5 MB of JSON, about 40 ms in one go).

/** Characters scanned for the array's commas between two steps. */
const SCAN_STEP = 1 << 18;

/**
 * The value of `JSON.parse(json)`, in steps, when `json` is an object whose last key is `key` holding an array, as
 * Engram's writers lay it out (no whitespace); any other text is parsed in one go. Throws what JSON.parse throws.
 */
export function* parseJsonSteps(json: string, key: string, block = 1024): Generator<void, unknown> {
  const marker = `${JSON.stringify(key)}:[`;
  // Inside a JSON string every quote is escaped, so the first bare `"key":[` is structure, not text.
  const at = json.indexOf(marker);
  if (at < 0 || !json.endsWith(']}')) return JSON.parse(json) as unknown;
  let head: Record<string, unknown>;
  try {
    // Closes only if the key is the top-level object's: nested deeper, `]}` leaves it open.
    head = JSON.parse(`${json.slice(0, at + marker.length)}]}`) as Record<string, unknown>;
  } catch {
    return JSON.parse(json) as unknown;
  }
  const start = at + marker.length;
  const cuts = [start];
  let depth = 0;
  let inString = false;
  let end = -1;
  let elements = 0;
  for (let i = start; i < json.length && end < 0; i++) {
    const c = json.charCodeAt(i);
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
  if (end !== json.length - 2) return JSON.parse(json) as unknown;
  cuts.push(end + 1);
  const out: unknown[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const text = json.slice(cuts[k], cuts[k + 1] - 1);
    // Only an empty array has an empty block; anywhere else it is a stray comma, which JSON.parse refuses too.
    if (text === '' && cuts.length > 2) throw new SyntaxError(`Unexpected "," in JSON at position ${cuts[k]}`);
    if (text !== '') for (const v of JSON.parse(`[${text}]`) as unknown[]) out.push(v);
    yield;
  }
  head[key] = out;
  return head;
}
