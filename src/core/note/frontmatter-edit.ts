// Round-trip-safe frontmatter edits: set, add or remove top-level keys by splicing only the source lines of those keys.
// yaml's serializer refolds long strings and respaces flow maps, so the block is never re-serialised as a whole;
// everything else (comments, order, quoting, flow vs block style, BOM, CRLF, the body) stays byte-identical.
import { Document, isMap, isScalar, isSeq, Scalar, type Node, type Pair, type ToStringOptions } from 'yaml';
import { EngramError } from '../errors.js';
import { parseNote, type ParsedNote } from './frontmatter.js';

export type FrontmatterValue = string | number | boolean | null | FrontmatterValue[] | { [key: string]: FrontmatterValue };

export interface FrontmatterEdits {
  /** Keys to set: an existing key keeps its place (and its style where it can); a new key is appended. */
  set?: Record<string, FrontmatterValue>;
  /** Keys to remove (missing ones are ignored). */
  remove?: string[];
}

export interface EditResult {
  text: string;
  changed: boolean;
}

const BASE_OPTIONS: ToStringOptions = { lineWidth: 0, minContentWidth: 0, flowCollectionPadding: false };

/** The problem of an invalid note as an error: it must not be rewritten. */
export function invalidYamlError(note: ParsedNote, where = 'note'): EngramError {
  const p = note.problem;
  return new EngramError('invalid-yaml', `${where}:${p?.line ?? 1}: ${p?.message ?? 'invalid frontmatter'}`, 'fix the frontmatter by hand; Engram never rewrites a note it cannot parse');
}

interface PairSpan {
  key: string;
  /** Absolute offsets in the note. */
  lineStart: number;
  keyStart: number;
  keyEnd: number;
  /** End of the value's own text (trailing spaces and newlines excluded). */
  valueEnd: number;
  /** Offset just past the line break that ends the value's last line (or the end of the YAML text). */
  lineEnd: number;
  /** Like lineEnd, but also past comments that belong to the value (inside a nested map). */
  removeEnd: number;
  value: Node | null;
}

function lineStartOf(text: string, i: number): number {
  return text.lastIndexOf('\n', i - 1) + 1;
}

function lineEndOf(text: string, i: number, limit: number): number {
  const nl = text.indexOf('\n', i);
  return nl < 0 || nl >= limit ? limit : nl + 1;
}

function spans(note: ParsedNote): { spans: PairSpan[]; indent: number } {
  const block = note.block;
  const doc = note.doc;
  if (!block || !doc) return { spans: [], indent: 0 };
  const base = block.yamlStart;
  const text = note.text;
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return { spans: [], indent: 0 };
  if (!isMap(contents)) throw new EngramError('invalid-yaml', 'frontmatter is not a map of keys to values');
  if (contents.flow) throw new EngramError('refused', 'frontmatter written as one flow map ({…}) is not edited');
  const out: PairSpan[] = [];
  let indent = 0;
  for (const pair of contents.items as Pair<Node, Node | null>[]) {
    const k = pair.key;
    if (!isScalar(k) || !k.range) throw new EngramError('refused', 'frontmatter with complex keys is not edited');
    const keyStart = base + k.range[0];
    const keyEnd = base + k.range[1];
    const lineStart = lineStartOf(text, keyStart);
    if (out.length === 0) indent = keyStart - lineStart;
    let valueEnd = pair.value?.range ? base + pair.value.range[1] : keyEnd;
    while (valueEnd > keyEnd && /\s/.test(text[valueEnd - 1])) valueEnd--;
    // `key:` with nothing after it: the value ends at the colon.
    const colon = text.indexOf(':', keyEnd);
    if (colon >= 0 && valueEnd <= colon) valueEnd = colon + 1;
    let nodeEnd = pair.value?.range ? Math.max(valueEnd, base + pair.value.range[2]) : valueEnd;
    while (nodeEnd > valueEnd && /\s/.test(text[nodeEnd - 1])) nodeEnd--;
    const lineEnd = lineEndOf(text, valueEnd, block.yamlEnd);
    out.push({ key: String(k.value), lineStart, keyStart, keyEnd, valueEnd, lineEnd, removeEnd: Math.max(lineEnd, lineEndOf(text, nodeEnd, block.yamlEnd)), value: pair.value ?? null });
  }
  return { spans: out, indent };
}

/** `key: value` (or `key:` + indented block lines) for one pair, in the style of `like` when it is the key's old value. */
function renderPair(keySource: string, value: FrontmatterValue, like: Node | null, indent: string, eol: string, note: ParsedNote): string {
  const key = 'k';
  // Rendered inside a one-pair map so that block scalars and nested collections get the indentation a map value needs.
  const doc = new Document({ [key]: value });
  const node = doc.get(key, true) as Node | undefined;
  const opts: ToStringOptions = { ...BASE_OPTIONS };
  const base = note.block?.yamlStart ?? 0;
  if (isScalar(node) && typeof value === 'string' && isScalar(like) && (like.type === Scalar.QUOTE_DOUBLE || like.type === Scalar.QUOTE_SINGLE)) {
    node.type = like.type;
  }
  if (isSeq(node) && isSeq(like)) {
    // A list whose items were all quoted the same way keeps that quoting for its string items.
    const styles = new Set(like.items.map((i) => (isScalar(i) ? i.type : undefined)));
    const only = styles.size === 1 ? [...styles][0] : undefined;
    if (only === Scalar.QUOTE_DOUBLE || only === Scalar.QUOTE_SINGLE) {
      for (const item of node.items) if (isScalar(item) && typeof item.value === 'string') item.type = only;
    }
  }
  if (isSeq(node) && isSeq(like) && like.flow) {
    node.flow = true;
    opts.flowCollectionPadding = like.range ? note.text[base + like.range[0] + 1] === ' ' : false;
  } else if (isSeq(node) && isSeq(like) && like.range) {
    // Keep the list's own item indentation (`- a` flush with the key, or indented by 2 or 4).
    const first = base + like.range[0];
    const seqIndent = first - lineStartOf(note.text, first) - indent.length;
    if (seqIndent <= 0) opts.indentSeq = false;
    else opts.indent = seqIndent;
  }
  const emitted = doc.toString(opts).replace(/\n$/, '');
  const rendered = keySource + emitted.slice(key.length);
  return rendered
    .split('\n')
    .map((l, i) => (i === 0 || l === '' ? l : indent + l))
    .join(eol);
}

function keySourceFor(key: string): string {
  return new Document(key).toString(BASE_OPTIONS).replace(/\n$/, '');
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Applies edits to a note's frontmatter (creating a frontmatter block when there is none).
 * Throws EngramError('invalid-yaml') for a note whose frontmatter does not parse: such a note is never rewritten.
 */
export function editFrontmatter(input: string | ParsedNote, edits: FrontmatterEdits, where = 'note'): EditResult {
  const note = typeof input === 'string' ? parseNote(input) : input;
  const text = note.text;
  if (note.problem || note.data === null) throw invalidYamlError(note, where);
  const set = edits.set ?? {};
  const remove = new Set(edits.remove ?? []);
  const expected: Record<string, unknown> = { ...note.data };
  for (const k of remove) delete expected[k];
  for (const [k, v] of Object.entries(set)) expected[k] = v;
  if (deepEqual(expected, note.data) && Object.keys(expected).join('\0') === Object.keys(note.data).join('\0')) return { text, changed: false };

  let out: string;
  if (!note.block) {
    const eol = note.eol;
    const lines = Object.entries(set).map(([k, v]) => renderPair(keySourceFor(k), v, null, '', eol, note));
    if (lines.length === 0) return { text, changed: false };
    const bom = note.hasBom ? '\uFEFF' : '';
    out = `${bom}---${eol}${lines.join(eol)}${eol}---${eol}${text.slice(bom.length)}`;
  } else {
    const block = note.block;
    const fence = text.slice(lineStartOf(text, block.yamlStart - 1), block.yamlStart);
    const eol = fence.endsWith('\r\n') ? '\r\n' : '\n';
    const { spans: pairs, indent } = spans(note);
    const pad = ' '.repeat(indent);
    const splices: { start: number; end: number; text: string }[] = [];
    const seen = new Set<string>();
    for (const p of pairs) {
      seen.add(p.key);
      if (remove.has(p.key) && !(p.key in set)) {
        splices.push({ start: p.lineStart, end: p.removeEnd, text: '' });
      } else if (p.key in set) {
        const newValue = set[p.key];
        const oldValue = note.data[p.key];
        if (deepEqual(oldValue, newValue)) continue;
        const keySource = text.slice(p.keyStart, p.keyEnd);
        const rendered = renderPair(keySource, newValue, p.value, pad, eol, note);
        // A comment after an inline value stays on the key's line.
        const rest = text.slice(p.valueEnd, p.lineEnd);
        const comment = /^[ \t]+#.*$/m.exec(rest.replace(/\r?\n$/, ''))?.[0] ?? '';
        const sameLine = lineStartOf(text, p.valueEnd) === p.lineStart;
        // So does a comment on the key's line above a block value (`tags: # why` then `  - a`).
        const keyLineEnd = lineEndOf(text, p.keyEnd, p.lineEnd);
        const keyLineRest = text.slice(p.keyEnd, keyLineEnd).replace(/\r?\n$/, '');
        const keyComment = !sameLine ? (/^\s*:(\s+#.*)$/.exec(keyLineRest)?.[1] ?? '') : '';
        if (comment && sameLine && rendered.includes(eol)) {
          const [first, ...more] = rendered.split(eol);
          splices.push({ start: p.keyStart, end: p.lineEnd, text: `${first}${comment}${eol}${more.join(eol)}${eol}` });
        } else if (keyComment) {
          const [first, ...more] = rendered.split(eol);
          splices.push({ start: p.keyStart, end: p.valueEnd, text: [`${first}${keyComment}`, ...more].join(eol) });
        } else {
          splices.push({ start: p.keyStart, end: p.valueEnd, text: rendered });
        }
      }
    }
    const added = Object.entries(set).filter(([k]) => !seen.has(k));
    if (added.length > 0) {
      const lines = added.map(([k, v]) => pad + renderPair(keySourceFor(k), v, null, pad, eol, note) + eol).join('');
      // An empty block (`---` right after `---`) or one whose last line has no line break gets one first.
      const before = text.slice(block.yamlStart, block.yamlEnd);
      const needsBreak = before.length > 0 && !before.endsWith('\n');
      splices.push({ start: block.yamlEnd, end: block.yamlEnd, text: (needsBreak ? eol : '') + lines });
    }
    splices.sort((a, b) => b.start - a.start);
    out = text;
    for (const s of splices) out = out.slice(0, s.start) + s.text + out.slice(s.end);
  }

  // Never hand back a note that would read differently from what was asked: re-parse and compare.
  const check = parseNote(out);
  if (check.problem || !check.data || !deepEqual(check.data, expected)) {
    throw new EngramError('refused', `${where}: the frontmatter edit could not be made without side effects; note left unchanged`);
  }
  return { text: out, changed: out !== text };
}
