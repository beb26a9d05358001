// Splits a Markdown file into its frontmatter block and body, and parses the block with yaml's Document API.
import { isCollection, isScalar, parseDocument, visit, type Document } from 'yaml';

export interface FrontmatterBlock {
  /** Offset of the first character of the YAML text (after the opening `---` line). */
  yamlStart: number;
  /** Offset just past the YAML text (the start of the closing `---` line). */
  yamlEnd: number;
  /** Offset of the body (after the closing `---` line and its line break). */
  bodyStart: number;
  /** 1-based line of the opening `---`. */
  openLine: number;
}

export interface FrontmatterProblem {
  /** 1-based line in the file. */
  line: number;
  message: string;
}

export interface ParsedNote {
  /** The original text, untouched. */
  text: string;
  hasBom: boolean;
  eol: '\n' | '\r\n';
  block: FrontmatterBlock | null;
  /** Plain data of the frontmatter; `{}` when there is none; null when invalid. */
  data: Record<string, unknown> | null;
  /** The yaml Document (for source-range edits); null when absent or invalid. */
  doc: Document | null;
  body: string;
  problem: FrontmatterProblem | null;
}

const OPEN = /^---[ \t]*\r?\n/;

export function findFrontmatter(text: string): FrontmatterBlock | null | FrontmatterProblem {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const open = OPEN.exec(text.slice(start, start + 8));
  if (!open) return null;
  const yamlStart = start + open[0].length;
  // The closing fence is a line of exactly `---` (or `...`), possibly followed by spaces.
  const close = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/gm;
  close.lastIndex = yamlStart;
  // An empty block (`---\n---`) closes on the very next line.
  let m: RegExpExecArray | null;
  while ((m = close.exec(text))) {
    if (m.index >= yamlStart) {
      return { yamlStart, yamlEnd: m.index, bodyStart: m.index + m[0].length, openLine: 1 };
    }
  }
  return { line: 1, message: 'frontmatter opened with --- but never closed' };
}

function isProblem(x: FrontmatterBlock | FrontmatterProblem | null): x is FrontmatterProblem {
  return x !== null && 'message' in x;
}

export function parseNote(text: string): ParsedNote {
  const hasBom = text.charCodeAt(0) === 0xfeff;
  // The first line break decides (it is the frontmatter's, when there is one); no scan of the whole text.
  const firstBreak = text.indexOf('\n');
  const eol: '\n' | '\r\n' = firstBreak > 0 && text.charCodeAt(firstBreak - 1) === 13 ? '\r\n' : '\n';
  const found = findFrontmatter(text);
  const base = { text, hasBom, eol };
  if (found === null) {
    return { ...base, block: null, data: {}, doc: null, body: text.slice(hasBom ? 1 : 0), problem: null };
  }
  if (isProblem(found)) {
    return { ...base, block: null, data: null, doc: null, body: text, problem: found };
  }
  const yamlText = text.slice(found.yamlStart, found.yamlEnd);
  const lineOffset = lineOf(text, found.yamlStart) - 1;
  // Lines are counted only when there is a problem to report (a LineCounter on every note costs ~10%).
  const lineAt = (pos: number) => lineOf(yamlText, pos);
  const doc = parseDocument(yamlText, { prettyErrors: false, uniqueKeys: true, strict: true });
  const body = text.slice(found.bodyStart);
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    return { ...base, block: found, data: null, doc: null, body, problem: { line: lineAt(e.pos[0]) + lineOffset, message: firstLine(e.message) } };
  }
  // `created: {{date}}` (an unfilled template) parses as a map whose key is a map; Obsidian and JSON cannot hold
  // such keys, so it is invalid frontmatter, reported at the key.
  let badKey: number | undefined;
  // Only flow collections (`{`, `[`) or explicit keys (`?`) can make a key that is not a scalar.
  if (/[{[?]/.test(yamlText)) visit(doc, {
    Pair(_, pair) {
      if (pair.key !== null && !isScalar(pair.key) && isCollection(pair.key)) {
        badKey = pair.key.range?.[0] ?? 0;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (badKey !== undefined) {
    return { ...base, block: found, data: null, doc: null, body, problem: { line: lineAt(badKey) + lineOffset, message: 'a key is itself a map or list (an unfilled template such as {{date}}?)' } };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { ...base, block: found, data: null, doc: null, body, problem: { line: found.openLine, message: firstLine(String((e as Error).message)) } };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    return { ...base, block: found, data: null, doc: null, body, problem: { line: found.openLine + 1, message: 'frontmatter is not a map of keys to values' } };
  }
  return { ...base, block: found, data: data as Record<string, unknown>, doc, body, problem: null };
}

/** A key the fast reading takes: a word, not `__proto__` or a merge key. */
const SIMPLE_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
/**
 * A plain scalar that is a string in every YAML reading: it starts with a letter and holds nothing YAML gives a
 * meaning (no `:`, `#`, quotes, brackets, anchors, tags, tabs); the words YAML reads as booleans or null are out.
 */
const SIMPLE_VALUE = /^[\p{L}][^:#[\]{},"'&*!|>%@`\t\\]*$/u;
const RESERVED = /^(?:true|false|null|True|False|Null|TRUE|FALSE|NULL)$/;
const ENTRY = /^([^:\s][^:]*):(?:[ ]+(.*))?$/;
const ITEM = /^([ ]*)-[ ]+(.*)$/;

/**
 * The data of a frontmatter block of the simplest shape (`key: word words` lines and `key:` over `- word` items, the
 * shape of most notes' tags and properties), read without the YAML parser; undefined for anything else, which then
 * goes to `parseNote` (the same data either way: tests/core/note/frontmatter-fast.test.ts and the corpus test).
 */
export function simpleFrontmatter(yaml: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  let list: unknown[] | null = null;
  let listKey: string | null = null;
  let indent: string | null = null;
  for (const raw of yaml.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    const item = ITEM.exec(line);
    if (item) {
      if (listKey === null || (indent !== null && item[1] !== indent)) return undefined;
      const v = item[2].trimEnd();
      if (!SIMPLE_VALUE.test(v) || RESERVED.test(v)) return undefined;
      indent = item[1];
      list ??= [];
      list.push(v);
      data[listKey] = list;
      continue;
    }
    const entry = ENTRY.exec(line);
    if (!entry || !SIMPLE_KEY.test(entry[1]) || Object.prototype.hasOwnProperty.call(data, entry[1])) return undefined;
    const value = (entry[2] ?? '').trimEnd();
    list = null;
    indent = null;
    if (value === '') {
      listKey = entry[1];
      data[entry[1]] = null;
      continue;
    }
    if (!SIMPLE_VALUE.test(value) || RESERVED.test(value)) return undefined;
    listKey = null;
    data[entry[1]] = value;
  }
  return data;
}

/**
 * What an index needs of a note: its frontmatter data (null when invalid), body and problem. A block of the simplest
 * shape is read without the YAML parser (most of an index build's parsing time); any other goes through `parseNote`.
 */
export function readNoteData(text: string): Pick<ParsedNote, 'data' | 'body' | 'problem' | 'block'> {
  const found = findFrontmatter(text);
  if (found !== null && !isProblem(found)) {
    const data = simpleFrontmatter(text.slice(found.yamlStart, found.yamlEnd));
    if (data) return { data, body: text.slice(found.bodyStart), problem: null, block: found };
  }
  const parsed = parseNote(text);
  return { data: parsed.data, body: parsed.body, problem: parsed.problem, block: parsed.block };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function firstLine(s: string): string {
  return s.split('\n')[0].trim();
}
