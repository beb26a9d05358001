// Turns one JSONL line into the records it holds. A clean line is one object. A torn line (a
// record cut short by a crash, with the next record glued on, or two records missing their
// newline) yields every whole record found in it; the rest is counted, never thrown.

export interface LineRecords {
  /** Whole JSON objects found, with their character index in the line. */
  records: { value: Record<string, unknown>; at: number }[];
  /** The line was not exactly one JSON value. */
  torn: boolean;
  /** Part of the line could not be read as a record. */
  lost: boolean;
  /** The line was valid JSON but not an object. */
  malformed: boolean;
}

const MAX_CANDIDATES = 64;
const MAX_CANDIDATES_HUGE = 8; // keep recovery linear-ish on multi-MB lines
const HUGE = 1 << 20;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseJsonLine(text: string): LineRecords {
  try {
    const v: unknown = JSON.parse(text);
    if (isObject(v)) return { records: [{ value: v, at: 0 }], torn: false, lost: false, malformed: false };
    return { records: [], torn: false, lost: false, malformed: true };
  } catch {
    return recoverTorn(text);
  }
}

/** Index just past the '}' that closes the object opening at `start`, or -1 (string-aware brace matching). */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped char
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

function tryObjectAt(text: string, start: number): { value: Record<string, unknown>; end: number } | undefined {
  const end = balancedEnd(text, start);
  if (end < 0) return undefined;
  try {
    const v: unknown = JSON.parse(text.slice(start, end));
    return isObject(v) ? { value: v, end } : undefined;
  } catch {
    return undefined;
  }
}

// Where a glued record may start: right after a '}' or at a key that opens Claude Code / Codex records.
const START_RE = /\}(\s*)\{"|\{"(?:parentUuid|type|uuid|timestamp|isSidechain|leafUuid|sessionId|logicalParentUuid|message|payload)"/g;

function recoverTorn(text: string): LineRecords {
  const records: LineRecords['records'] = [];
  let lost = false;
  let pos = skipSpace(text, 0);
  const limit = text.length > HUGE ? MAX_CANDIDATES_HUGE : MAX_CANDIDATES;
  let attempts = 0;
  while (pos < text.length && attempts < limit) {
    const whole = text.charCodeAt(pos) === 0x7b ? tryObjectAt(text, pos) : undefined;
    attempts++;
    if (whole) {
      records.push({ value: whole.value, at: pos });
      pos = skipSpace(text, whole.end);
      continue;
    }
    // Nothing whole starts here: skip to the next place a record could start.
    lost = true;
    let next = -1;
    START_RE.lastIndex = pos + 1;
    for (let m = START_RE.exec(text); m; m = START_RE.exec(text)) {
      const at = m[0].startsWith('}') ? m.index + 1 + (m[1]?.length ?? 0) : m.index;
      if (at <= pos) continue;
      attempts++;
      const found = tryObjectAt(text, at);
      if (found || attempts >= limit) {
        next = at;
        break;
      }
    }
    if (next < 0) break;
    pos = next;
  }
  if (pos < text.length) lost = true;
  return { records, torn: true, lost, malformed: false };
}

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
    i++;
  }
  return i;
}

/** UTF-8 byte length of text[0, index): to turn a character index in a line into a byte offset. */
export function utf8Length(text: string, index = text.length): number {
  let n = 0;
  for (let i = 0; i < index; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < index) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
