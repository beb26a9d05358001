// The round-trip self-check behind `engram check --roundtrip` and the corpus tests: in memory, edit one existing key
// and add one new key, then verify that the result differs from the original only on those keys' lines.
import { isMap, isScalar, isSeq, type Node, type Pair } from 'yaml';
import { errorMessage } from '../errors.js';
import { editFrontmatter, type FrontmatterValue } from './frontmatter-edit.js';
import { parseNote, type ParsedNote } from './frontmatter.js';

export type RoundtripResult =
  | { status: 'invalid'; line: number; message: string }
  | { status: 'ok'; editedKey: string | null; addedKey: string; text: string }
  | { status: 'changed-elsewhere'; message: string; text?: string };

function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function lineIndexOf(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** A different value of the same kind, so the edit exercises the value's own style (quotes, flow or block list). */
function changedValue(v: unknown): FrontmatterValue | undefined {
  if (typeof v === 'string') return `${v} (edited)`;
  if (typeof v === 'number') return Number.isFinite(v) ? v + 1 : 1;
  if (typeof v === 'boolean') return !v;
  if (v === null) return 'edited';
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean')) return [...(v as string[]), 'edited'];
  return undefined;
}

interface Target {
  key: string;
  /** The key as written (quotes included). */
  keySource: string;
  value: FrontmatterValue;
  /** Original line span [first, end) of the pair. */
  first: number;
  end: number;
}

function pickTarget(note: ParsedNote): Target | null {
  const contents = note.doc?.contents;
  if (!note.block || !note.data || !isMap(contents)) return null;
  for (const pair of contents.items as Pair<Node, Node | null>[]) {
    if (!isScalar(pair.key) || !pair.key.range) continue;
    const key = String(pair.key.value);
    // Scalars and lists of scalars; nested maps are left alone (a whole-map rewrite says little about splicing).
    if (pair.value && !isScalar(pair.value) && !isSeq(pair.value)) continue;
    // An anchored value may be aliased elsewhere: changing it would change those keys too (the editor refuses that).
    if (pair.value && (pair.value as { anchor?: string }).anchor) continue;
    const value = changedValue(note.data[key]);
    if (value === undefined) continue;
    const base = note.block.yamlStart;
    let valueEnd = pair.value?.range ? base + pair.value.range[1] : base + pair.key.range[1];
    while (valueEnd > base + pair.key.range[1] && /\s/.test(note.text[valueEnd - 1])) valueEnd--;
    const first = lineIndexOf(note.text, base + pair.key.range[0]);
    const last = lineIndexOf(note.text, Math.max(valueEnd - 1, base + pair.key.range[0]));
    return { key, keySource: note.text.slice(base + pair.key.range[0], base + pair.key.range[1]), value, first, end: last + 1 };
  }
  return null;
}

function freshKey(data: Record<string, unknown>): string {
  let k = 'engram_roundtrip';
  for (let n = 2; k in data; n++) k = `engram_roundtrip_${n}`;
  return k;
}

function sameLines(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Edits one existing key and adds one key in memory, and checks that nothing else in the note moved. */
export function roundtripCheck(text: string): RoundtripResult {
  const note = parseNote(text);
  if (note.problem || note.data === null) return { status: 'invalid', line: note.problem?.line ?? 1, message: note.problem?.message ?? 'invalid frontmatter' };
  const target = pickTarget(note);
  const added = freshKey(note.data);
  const set: Record<string, FrontmatterValue> = { [added]: 'ok' };
  if (target) set[target.key] = target.value;
  let out: string;
  try {
    out = editFrontmatter(note, { set }).text;
  } catch (e) {
    return { status: 'changed-elsewhere', message: `edit refused: ${errorMessage(e)}` };
  }
  const bomIn = text.startsWith('\uFEFF');
  if (out.startsWith('\uFEFF') !== bomIn) return { status: 'changed-elsewhere', message: 'byte-order mark added or lost', text: out };
  // The body must come through byte for byte; only the lines before it are compared one by one.
  const bodyStart = note.block ? note.block.bodyStart : bomIn ? 1 : 0;
  const body = text.slice(bodyStart);
  if (!out.endsWith(body)) return { status: 'changed-elsewhere', message: 'the body changed', text: out };
  const L = splitLines(text.slice(bomIn ? 1 : 0, bodyStart));
  const O = splitLines(out.slice(bomIn ? 1 : 0, out.length - body.length));
  // Lines written by the edit must end like the frontmatter's own lines (those of the opening fence).
  const eol = note.block ? (L[0]?.endsWith('\r\n') ? '\r\n' : '\n') : note.eol;

  if (!note.block) {
    // A new block on top: exactly `---`, the key, `---`, then the original untouched.
    const head = O.slice(0, O.length - L.length);
    if (!sameLines(O.slice(head.length), L)) return { status: 'changed-elsewhere', message: 'body changed when a frontmatter block was added', text: out };
    if (head.length !== 3 || head[0] !== `---${eol}` || head[2] !== `---${eol}` || !head[1].startsWith(`${added}:`)) {
      return { status: 'changed-elsewhere', message: `unexpected new frontmatter block: ${JSON.stringify(head.join(''))}`, text: out };
    }
    return { status: 'ok', editedKey: null, addedKey: added, text: out };
  }

  const fenceLine = lineIndexOf(text, note.block.yamlEnd);
  const ks = target ? target.first : fenceLine;
  const ke = target ? target.end : fenceLine;
  const tail = L.length - fenceLine;
  if (!sameLines(O.slice(0, ks), L.slice(0, ks))) return { status: 'changed-elsewhere', message: `lines before ${target ? `key "${target.key}"` : 'the closing ---'} changed`, text: out };
  if (O.length < ks + tail || !sameLines(O.slice(O.length - tail), L.slice(fenceLine))) {
    return { status: 'changed-elsewhere', message: 'the closing --- or the body changed', text: out };
  }
  const middle = O.slice(ks, O.length - tail);
  let y = middle.length - 1;
  while (y >= 0 && !middle[y].trimStart().startsWith(`${added}:`)) y--;
  if (y < 0) return { status: 'changed-elsewhere', message: `added key "${added}" is not just before the closing ---`, text: out };
  const between = L.slice(ke, fenceLine);
  const x = middle.slice(0, y - between.length);
  if (y - between.length < 0 || !sameLines(middle.slice(y - between.length, y), between)) {
    return { status: 'changed-elsewhere', message: `lines between key "${target?.key ?? ''}" and the closing --- changed`, text: out };
  }
  if (target && (x.length === 0 || !x[0].trimStart().startsWith(target.keySource))) return { status: 'changed-elsewhere', message: `edited key "${target.key}" lost its line`, text: out };
  if (!target && x.length > 0) return { status: 'changed-elsewhere', message: 'lines changed although no key was edited', text: out };
  for (const line of [...x, ...middle.slice(y)]) {
    if (!line.endsWith(eol) || (eol === '\n' && line.endsWith('\r\n'))) return { status: 'changed-elsewhere', message: 'edited lines use a different line ending', text: out };
  }
  return { status: 'ok', editedKey: target?.key ?? null, addedKey: added, text: out };
}
