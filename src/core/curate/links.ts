// The wikilink model: every internal link of a note, with its exact source range, so that curation can
// point links at a new note without disturbing anything else on the line.
import { findFrontmatter } from '../note/frontmatter';

export type LinkForm = 'wiki' | 'markdown';

export interface NoteLink {
  form: LinkForm;
  /** `![[…]]` or `![](…)`. */
  embed: boolean;
  /** The link path as written, spaces included (decoded for Markdown links): `Folder/Note`, `Note.md`, ``. */
  linkpath: string;
  /** Heading path after `#` (may be nested `A#B`); undefined when none or a block ref. */
  heading?: string;
  /** Block id after `#^`. */
  block?: string;
  /** Display text: after `|` for wikilinks, the bracket text for Markdown links. */
  alias?: string;
  /** The pipe was written `\|` (wikilinks inside tables). */
  escapedPipe?: boolean;
  /** Offsets into the whole file text; `text.slice(start, end)` is the full link. */
  start: number;
  end: number;
  inFrontmatter: boolean;
}

const WIKI = /(!?)\[\[([^[\]\n]+?)\]\]/g;
// Markdown links to notes: `[text](path.md)` / `[text](<path with spaces.md>)` / `[text](path.md#heading)`.
const MARKDOWN = /(!?)\[([^[\]\n]*)\]\((<[^>\n]+>|[^()\s]+)\)/g;

/** Ranges of fenced code blocks and inline code spans in `body` (links there are text, not links). */
export function codeRanges(text: string, from: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const fence = /^[ \t]{0,3}(`{3,}|~{3,})[^\n]*$/gm;
  fence.lastIndex = from;
  let open: { marker: string; start: number } | null = null;
  let m: RegExpExecArray | null;
  while ((m = fence.exec(text))) {
    const marker = m[1];
    if (!open) open = { marker, start: m.index };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && m[0].trim() === marker) {
      ranges.push([open.start, m.index + m[0].length]);
      open = null;
    }
  }
  if (open) ranges.push([open.start, text.length]);
  // Inline code spans outside fences: a run of n backticks closed by the next run of exactly n, within a paragraph.
  let i = text.indexOf('`', from);
  while (i >= 0) {
    let n = 1;
    while (text[i + n] === '`') n++;
    const at = i;
    const inFence = ranges.some(([a, b]) => at >= a && at < b);
    let close = -1;
    if (!inFence) {
      let j = text.indexOf('`', i + n);
      while (j >= 0) {
        let k = 1;
        while (text[j + k] === '`') k++;
        if (k === n) {
          close = j;
          break;
        }
        j = text.indexOf('`', j + k);
      }
      if (close >= 0 && text.slice(i + n, close).includes('\n\n')) close = -1;
    }
    if (close >= 0) {
      ranges.push([i, close + n]);
      i = text.indexOf('`', close + n);
    } else {
      i = text.indexOf('`', i + n);
    }
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

function inRanges(ranges: Array<[number, number]>, pos: number): boolean {
  // Ranges are few per note; a linear scan is fine.
  for (const [a, b] of ranges) {
    if (pos < a) return false;
    if (pos < b) return true;
  }
  return false;
}

/** Splits `path#heading` / `path#^block`, keeping spaces as written (so an untouched link is rewritten byte-for-byte). */
function splitSubpath(target: string): { linkpath: string; heading?: string; block?: string } {
  const hash = target.indexOf('#');
  if (hash < 0) return { linkpath: target };
  const linkpath = target.slice(0, hash);
  const sub = target.slice(hash + 1);
  if (sub.startsWith('^')) return { linkpath, block: sub.slice(1) };
  return { linkpath, heading: sub };
}

function parseWiki(m: RegExpExecArray, inFrontmatter: boolean): NoteLink | null {
  const inner = m[2];
  const pipe = inner.indexOf('|');
  let target = pipe < 0 ? inner : inner.slice(0, pipe);
  const alias = pipe < 0 ? undefined : inner.slice(pipe + 1);
  let escapedPipe = false;
  if (pipe >= 0 && target.endsWith('\\')) {
    target = target.slice(0, -1);
    escapedPipe = true;
  }
  if (target.trim() === '' && alias === undefined) return null;
  return { form: 'wiki', embed: m[1] === '!', ...splitSubpath(target), alias, escapedPipe: escapedPipe || undefined, start: m.index, end: m.index + m[0].length, inFrontmatter };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function parseMarkdown(m: RegExpExecArray, inFrontmatter: boolean): NoteLink | null {
  let href = m[3];
  if (href.startsWith('<')) href = href.slice(1, -1);
  // External URLs (scheme:) and pure anchors to other documents are not vault links.
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return null;
  const decoded = safeDecode(href);
  const parts = splitSubpath(decoded);
  if (parts.linkpath !== '' && !/\.md$/i.test(parts.linkpath)) return null;
  return { form: 'markdown', embed: m[1] === '!', ...parts, alias: m[2], start: m.index, end: m.index + m[0].length, inFrontmatter };
}

/** Every internal link of a note: wikilinks, embeds, Markdown links to `.md` files, and links inside frontmatter. */
export function parseLinks(text: string): NoteLink[] {
  const fm = findFrontmatter(text);
  const bodyStart = fm && 'bodyStart' in fm ? fm.bodyStart : 0;
  const links: NoteLink[] = [];
  if (text.indexOf('[') < 0) return links;
  const code = codeRanges(text, bodyStart);
  WIKI.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WIKI.exec(text))) {
    const inFm = m.index < bodyStart;
    if (!inFm && inRanges(code, m.index)) continue;
    const link = parseWiki(m, inFm);
    if (link) links.push(link);
  }
  if (text.indexOf('](') >= 0) {
    MARKDOWN.lastIndex = bodyStart;
    while ((m = MARKDOWN.exec(text))) {
      if (inRanges(code, m.index)) continue;
      // `[[a]](b)` is a wikilink followed by text, already taken.
      if (links.some((l) => m!.index >= l.start && m!.index < l.end)) continue;
      const link = parseMarkdown(m, false);
      if (link) links.push(link);
    }
    links.sort((a, b) => a.start - b.start);
  }
  return links;
}

/** Formats a link back into text; the inverse of parseLinks for one link. */
export function formatLink(link: Pick<NoteLink, 'form' | 'embed' | 'linkpath' | 'heading' | 'block' | 'alias' | 'escapedPipe'>): string {
  const sub = link.block !== undefined ? `#^${link.block}` : link.heading !== undefined ? `#${link.heading}` : '';
  if (link.form === 'markdown') {
    const path = link.linkpath === '' ? '' : link.linkpath.endsWith('.md') ? link.linkpath : `${link.linkpath}.md`;
    // Like Obsidian: only what breaks a Markdown link is encoded (spaces, brackets, percent signs).
    const href = (path + sub).replace(/%/g, '%25').replace(/ /g, '%20').replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/</g, '%3C').replace(/>/g, '%3E');
    return `${link.embed ? '!' : ''}[${link.alias ?? ''}](${href})`;
  }
  const alias = link.alias !== undefined ? `${link.escapedPipe ? '\\|' : '|'}${link.alias}` : '';
  return `${link.embed ? '!' : ''}[[${link.linkpath}${sub}${alias}]]`;
}

/** Top-level `#` tags written in the body (`#tag`, `#nested/tag`), outside code. */
export function bodyTags(text: string, bodyStart: number): string[] {
  const out = new Set<string>();
  const code = codeRanges(text, bodyStart);
  const re = /(^|[\s(])#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu;
  re.lastIndex = bodyStart;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (inRanges(code, m.index)) continue;
    out.add(m[2].toLowerCase());
  }
  return [...out];
}
