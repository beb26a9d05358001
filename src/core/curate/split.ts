// Split: a note that grew too large, with several top-level sections, becomes one note per section; the
// original path keeps the frontmatter and opening text as a hub that links to the parts, so links to the
// note itself still work, and links to its headings and blocks follow the text to its new note.
import type { NoteCatalog } from './catalog';
import { notesTime } from './notes-time';
import { codeRanges } from './links';
import { rewriteLinks, splitRedirect, type SplitPart } from './link-rewrite';
import { findFrontmatter } from '../note/frontmatter';
import { folderOf, renderNote, wikilink } from './note-text';
import { fileNameKey, uniqueNotePath } from '../note/filename';
import type { ProposalDraft } from './proposals';
import type { CurateSettings } from './settings';

export interface Section {
  heading: string;
  /** Offsets into the note text: from the heading line to the next top-level heading. */
  start: number;
  end: number;
  /** Text after the heading line. */
  body: string;
}

export interface Outline {
  level: number;
  /** Offset of the body (after the frontmatter). */
  bodyStart: number;
  /** Offset of the first top-level heading. */
  firstSection: number;
  sections: Section[];
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/gm;

/** Top-level sections: headings of the smallest level used in the body, outside code blocks. */
export function outline(text: string): Outline {
  const fm = findFrontmatter(text);
  const bodyStart = fm && 'bodyStart' in fm ? fm.bodyStart : 0;
  const code = codeRanges(text, bodyStart).filter(([a, b]) => text.slice(a, b).includes('\n'));
  const found: Array<{ level: number; heading: string; start: number; lineEnd: number }> = [];
  HEADING.lastIndex = bodyStart;
  let m: RegExpExecArray | null;
  while ((m = HEADING.exec(text))) {
    const at = m.index;
    if (code.some(([a, b]) => at >= a && at < b)) continue;
    found.push({ level: m[1].length, heading: m[2].trim(), start: at, lineEnd: at + m[0].length });
  }
  if (found.length === 0) return { level: 0, bodyStart, firstSection: text.length, sections: [] };
  let level = Math.min(...found.map((f) => f.level));
  // A single title heading (`# Note`) over `##` sections: the sections are what splits.
  while (found.filter((f) => f.level === level).length === 1 && found.some((f) => f.level > level)) {
    level = Math.min(...found.filter((f) => f.level > level).map((f) => f.level));
  }
  const tops = found.filter((f) => f.level === level);
  const sections = tops.map((t, i) => {
    const end = i + 1 < tops.length ? tops[i + 1].start : text.length;
    return { heading: t.heading, start: t.start, end, body: text.slice(t.lineEnd, end).replace(/^\r?\n/, '') };
  });
  return { level, bodyStart, firstSection: tops[0].start, sections };
}

/** Sections shorter than this stay in the hub (a "See also" list is not worth a note of its own). */
export const MIN_PART_CHARS = 300;

/** Sections that close a note (links, sources, "see also", a footer): they stay with the note, whatever their length. */
const CLOSING = /^(see also|related|related notes|links|references|reference|sources|source|further reading|footer|backlinks|footnotes|resources|credits)\b/i;

function isPart(s: Section, minChars = MIN_PART_CHARS): boolean {
  return s.body.trim().length >= minChars && !CLOSING.test(s.heading.trim());
}

/** A section's own words: its text outside code blocks (a pasted dump is not a subject of its own). */
function proseLength(s: Section): number {
  return s.body.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').trim().length;
}

const WORD = /[\p{L}\p{N}]{3,}/gu;

/**
 * Why a long note is one subject, not several (null when its sections are separate subjects): a piece of writing
 * from one source (an article, a course: a source or author in the frontmatter, a link in the opening), or sections
 * that all speak of the note's title.
 */
export function oneSubject(text: string, title: string): string | null {
  const o = outline(text);
  const head = text.slice(0, o.bodyStart);
  if (/^(url|source|sources|blog|author|authors|link|via|course)\s*:/im.test(head)) return 'one piece of writing from one source (its frontmatter names the source or author)';
  if (/https?:\/\//.test(text.slice(o.bodyStart, o.firstSection))) return 'notes on one source (its opening links it)';
  const words = new Set((title.toLowerCase().match(WORD) ?? []).filter((w) => !['the', 'and', 'for', 'with', 'notes'].includes(w)));
  const parts = o.sections.filter((x) => isPart(x));
  if (words.size && parts.length) {
    const speaking = parts.filter((x) => (x.body.toLowerCase().match(WORD) ?? []).some((w) => words.has(w))).length;
    if (speaking * 2 >= parts.length) return `its sections all speak of "${title}"`;
  }
  return null;
}

export function isSplitCandidate(text: string, bodyLength: number, settings: CurateSettings, title?: string): boolean {
  if (bodyLength < settings.splitMinChars) return false;
  if (outline(text).sections.filter((x) => isPart(x) && proseLength(x) >= MIN_PART_CHARS).length < settings.splitMinSections) return false;
  return title === undefined || oneSubject(text, title) === null;
}

function subHeadings(body: string): string[] {
  const out: string[] = [];
  HEADING.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = HEADING.exec(body))) out.push(m[2].trim());
  return out;
}

function blockIds(body: string): string[] {
  return [...body.matchAll(/\s\^([A-Za-z0-9-]+)[ \t]*$/gm)].map((m) => m[1]);
}

/**
 * The split proposal for one note: the exact text of the hub and of every part, and the redirect for links.
 * `minPartChars`: shorter sections stay in the hub (a split the user asks for takes every section with text).
 */
export function splitDraft(catalog: NoteCatalog, path: string, minPartChars = MIN_PART_CHARS): ProposalDraft | null {
  const note = catalog.get(path);
  if (!note?.meta || note.meta.locked) return null;
  const o = outline(note.text);
  const sections = o.sections.filter((x) => isPart(x, minPartChars));
  if (sections.length < 2) return null;
  const kept = o.sections.filter((x) => !isPart(x, minPartChars));
  const title = note.meta.title;
  const folder = folderOf(path);
  const taken = new Set<string>();
  const isTaken = (p: string): boolean => catalog.resolver.has(p) || taken.has(fileNameKey(p));
  const parts: Array<SplitPart & { body: string; heading: string }> = [];
  for (const s of sections) {
    const p = uniqueNotePath(folder, `${title} - ${s.heading}`, isTaken);
    taken.add(fileNameKey(p));
    parts.push({ path: p, headings: subHeadings(s.body), section: s.heading, blocks: blockIds(s.body), body: s.body, heading: s.heading });
  }
  const redirect = { kind: 'split' as const, original: path, rest: path, parts: parts.map(({ path: p, headings, section, blocks }) => ({ path: p, headings, section, blocks })) };
  const after = catalog.resolver.with({ add: parts.map((p) => p.path) });
  const ctx = { before: catalog.resolver, after, redirect: splitRedirect(path, path, redirect.parts) };

  // The parts are as old as the note they come from (the same split on two devices writes the same bytes).
  const created = notesTime(catalog, [path])?.stamp;
  const writes = parts.map((p) => {
    // Links inside the part (including `[[#Other section]]`) are resolved as from the original note.
    const body = rewriteLinks(p.body, path, p.path, ctx).text;
    const text = renderNote(
      {
        type: note.meta!.type,
        scope: note.meta!.scope,
        project: note.meta!.project,
        tags: note.meta!.tags,
        related: [wikilink(path)],
        created,
        updated: created,
        engram_source: 'restructure',
      },
      body,
    );
    return { path: p.path, text };
  });
  // The hub keeps the frontmatter exactly as written, the opening text, the short sections, and a list of the parts.
  const head = note.text.slice(0, o.firstSection);
  const opening = rewriteLinks(head, path, path, ctx).text.replace(/\s+$/, '');
  const short = kept.map((x) => rewriteLinks(note.text.slice(x.start, x.end), path, path, ctx).text.replace(/\s+$/, ''));
  const list = parts.map((p) => `- ${wikilink(p.path)}`).join('\n');
  const rest = [`${'#'.repeat(Math.max(1, o.level))} Parts\n\n${list}`, ...short].join('\n\n');
  // Right after the frontmatter's closing `---`: one line break; after opening text: a blank line.
  const onlyFrontmatter = o.bodyStart > 0 && note.text.slice(o.bodyStart, o.firstSection).trim() === '';
  const hub = `${opening}${opening === '' ? '' : onlyFrontmatter ? '\n' : '\n\n'}${rest}\n`;
  writes.unshift({ path, text: hub });
  return {
    family: 'restructure',
    kind: 'split',
    title: `split ${wikilink(path)} into ${parts.length} notes`,
    reason: `${note.body.length} characters in ${o.sections.length} top-level sections${kept.length ? ` (${kept.length === 1 ? '1 short one stays' : `${kept.length} short ones stay`} in the hub)` : ''}`,
    sources: [{ path, hash: catalog.hash(path) }],
    writes,
    trash: [path],
    moves: [],
    redirect,
    linkRewrites: [],
  };
}
