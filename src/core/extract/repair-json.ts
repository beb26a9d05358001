// Turns a model's reply into JSON: strips code fences and chatter, then repairs the common damage
// (raw newlines inside strings, trailing commas, a reply cut off mid-array). Pure string functions.

export interface RepairResult {
  value: unknown;
  /** What had to be repaired, for the run log. */
  repairs: string[];
}

/** Removes ``` fences and any text before the first `{`/`[` and after the matching close. */
export function stripFences(text: string): string {
  const fenced = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)(?:\r?\n)?```/.exec(text);
  let body = fenced ? fenced[1] : text.replace(/^```(?:json)?/m, '');
  const start = body.search(/[[{]/);
  if (start > 0) body = body.slice(start);
  return body.trim();
}

/**
 * Follows string literals through a left-to-right scan of JSON text, so the repairs below touch only
 * what lies outside strings (or, for raw controls, only what lies inside).
 */
class StringScan {
  private inString = false;
  private escaped = false;

  /**
   * Reads one character: 'escaped' right after a backslash in a string, 'string' for the rest of a string
   * (its closing quote included), 'code' outside strings (an opening quote included).
   */
  read(ch: string): 'code' | 'string' | 'escaped' {
    if (!this.inString) {
      if (ch === '"') this.inString = true;
      return 'code';
    }
    if (this.escaped) {
      this.escaped = false;
      return 'escaped';
    }
    if (ch === '\\') this.escaped = true;
    else if (ch === '"') this.inString = false;
    return 'string';
  }
}

/** Escapes control characters that appear raw inside JSON strings (models often emit real newlines). */
function escapeRawControls(text: string): { text: string; changed: boolean } {
  const scan = new StringScan();
  let out = '';
  let changed = false;
  for (const ch of text) {
    if (scan.read(ch) === 'string' && (ch === '\n' || ch === '\r' || ch === '\t')) {
      out += ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : '\\t';
      changed = true;
      continue;
    }
    out += ch;
  }
  return { text: out, changed };
}

function removeTrailingCommas(text: string): { text: string; changed: boolean } {
  const scan = new StringScan();
  let out = '';
  let changed = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (scan.read(ch) === 'code' && ch === ',') {
      const next = /^\s*([\]}])/.exec(text.slice(i + 1, i + 64));
      if (next) {
        changed = true;
        continue;
      }
    }
    out += ch;
  }
  return { text: out, changed };
}

/**
 * Closes a truncated document: keeps everything up to the last complete value inside an array or object,
 * drops the partial tail, and appends the closing brackets.
 */
function closeTruncated(text: string): { text: string; changed: boolean } {
  const scan = new StringScan();
  const stack: string[] = [];
  let safeEnd = -1;
  let safeStack: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (scan.read(ch) !== 'code') continue;
    if (ch === '{' || ch === '[') stack.push(ch === '{' ? '}' : ']');
    else if (ch === '}' || ch === ']') {
      stack.pop();
      safeEnd = i + 1;
      safeStack = [...stack];
      if (stack.length === 0) return { text: text.slice(0, i + 1), changed: i + 1 < text.trimEnd().length };
    }
  }
  if (stack.length === 0 || safeEnd < 0) return { text, changed: false };
  const head = text.slice(0, safeEnd).replace(/,\s*$/, '');
  return { text: head + safeStack.reverse().join(''), changed: true };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Parses a reply as JSON, repairing it if needed; throws with a short reason when it cannot. */
export function parseModelJson(reply: string): RepairResult {
  const repairs: string[] = [];
  let text = stripFences(reply);
  if (text !== reply.trim()) repairs.push('stripped fences or chatter');
  if (!/^[[{]/.test(text)) throw new Error(`no JSON object in the reply: ${reply.slice(0, 80).replace(/\s+/g, ' ')}`);
  let parsed = tryParse(text);
  if (parsed.ok) return { value: parsed.value, repairs };
  const steps: [string, (t: string) => { text: string; changed: boolean }][] = [
    ['escaped raw newlines in strings', escapeRawControls],
    ['closed a truncated reply', closeTruncated],
    ['removed trailing commas', removeTrailingCommas],
  ];
  for (const [what, step] of steps) {
    const r = step(text);
    if (!r.changed) continue;
    text = r.text;
    repairs.push(what);
    parsed = tryParse(text);
    if (parsed.ok) return { value: parsed.value, repairs };
  }
  throw new Error(`reply is not valid JSON even after repair (${repairs.join(', ') || 'nothing to repair'})`);
}
