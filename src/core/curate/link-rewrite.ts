// Points links at a note's new home (a merge target, a split part, an archive path), keeping each link's
// form: embed or not, alias, heading, block ref, escaped table pipe, Markdown or wiki style.
import { formatLink, parseLinks, type NoteLink } from './links';
import type { LinkResolver } from './link-resolver';

export interface LinkTarget {
  path: string;
  heading?: string;
  block?: string;
}

/** Where a resolved link should now point; null leaves it alone. */
export type Redirect = (target: LinkTarget) => LinkTarget | null;

export interface LinkEdit {
  start: number;
  end: number;
  before: string;
  after: string;
}

export interface RewriteResult {
  text: string;
  edits: LinkEdit[];
}

export interface RewriteContext {
  /** The vault before the change (resolves the links as written). */
  before: LinkResolver;
  /** The vault after the change (decides how to write the new link path). */
  after: LinkResolver;
  redirect: Redirect;
}

function hasFolder(linkpath: string): boolean {
  return linkpath.includes('/');
}

function stripMd(p: string): string {
  return p.toLowerCase().endsWith('.md') ? p.slice(0, -3) : p;
}

function newLinkpath(link: NoteLink, target: LinkTarget, filePath: string, ctx: RewriteContext): string {
  if (target.path === filePath && (target.heading !== undefined || target.block !== undefined)) return '';
  // Keep the text as written when it already names the new target (an archived note found by name).
  if (link.linkpath.trim() !== '' && ctx.after.resolve(link.linkpath, filePath) === target.path) return link.linkpath;
  const path = hasFolder(link.linkpath.trim()) ? stripMd(target.path) : ctx.after.linkpathFor(target.path, filePath);
  return link.form === 'markdown' ? `${path}.md` : path;
}

/** What Obsidian shows for a wikilink without display text: `Note`, `Note > Heading`, `Heading` for `#Heading`. */
function displayed(l: Pick<NoteLink, 'linkpath' | 'heading' | 'block'>): string {
  const sub = l.block !== undefined ? [`^${l.block}`] : l.heading !== undefined ? l.heading.split('#') : [];
  return [l.linkpath.trim(), ...sub].filter((x) => x !== '').join(' > ');
}

/**
 * Rewrites the links of one file. `sourcePath` is where the text lives now (used to resolve its links),
 * `filePath` where it will live after the change (a split part, or the same path).
 */
export function rewriteLinks(text: string, sourcePath: string, filePath: string, ctx: RewriteContext, links = parseLinks(text)): RewriteResult {
  const edits: LinkEdit[] = [];
  for (const link of links) {
    const resolved = ctx.before.resolve(link.linkpath, sourcePath);
    if (resolved === null) continue;
    const target = ctx.redirect({ path: resolved, heading: link.heading, block: link.block });
    if (target === null) continue;
    const linkpath = newLinkpath(link, target, filePath, ctx);
    // Unchanged in substance: leave the text exactly as written (encoding, spacing).
    if (linkpath === link.linkpath && target.heading === link.heading && target.block === link.block) continue;
    const next = { ...link, linkpath, heading: target.heading, block: target.block };
    // The reader sees the same words: a wikilink shown by its path gets the old text as its display text.
    if (link.form === 'wiki' && !link.embed && !link.inFrontmatter && link.alias === undefined) {
      const shown = displayed(link);
      if (displayed(next) !== shown) {
        next.alias = shown;
        const lineStart = text.lastIndexOf('\n', link.start - 1) + 1;
        if (/^\s*\|/.test(text.slice(lineStart, link.start))) next.escapedPipe = true;
      }
    }
    const after = formatLink(next);
    const before = text.slice(link.start, link.end);
    if (after !== before) edits.push({ start: link.start, end: link.end, before, after });
  }
  if (edits.length === 0) return { text, edits };
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += text.slice(at, e.start) + e.after;
    at = e.end;
  }
  return { text: out + text.slice(at), edits };
}

/** Headings and block ids a merge renamed inside the merged note, per merged note. */
export interface Renames {
  headings: Map<string, string>;
  blocks: Map<string, string>;
}

/**
 * Redirect for notes that moved or were merged: every link to `from` goes to `to`, headings and blocks kept,
 * or renamed where the merge renamed them (two merged notes had the same heading). `sections`: a merged note whose
 * text the kept note already held under a heading: a bare link (an embed above all) goes to that heading.
 */
export function moveRedirect(moves: Map<string, string>, renames: Map<string, Renames> = new Map(), sections: Map<string, string> = new Map()): Redirect {
  return (t) => {
    const to = moves.get(t.path);
    if (to === undefined) return null;
    const section = sections.get(t.path);
    if (section !== undefined && t.heading === undefined && t.block === undefined) return { path: to, heading: section, block: undefined };
    const r = renames.get(t.path);
    const heading = t.heading === undefined || !r ? t.heading : t.heading.split('#').map((seg) => r.headings.get(headingKey(seg)) ?? seg).join('#');
    const block = t.block === undefined || !r ? t.block : (r.blocks.get(t.block.trim()) ?? t.block);
    return { path: to, heading, block };
  };
}

/** Normalises a heading the way links match it: case, spacing and characters links cannot hold. */
export function headingKey(heading: string): string {
  return heading.replace(/[#^[\]|\\:]/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

export interface SplitPart {
  path: string;
  /** Headings (any level) that now live in this part; the first is its own top-level heading, if any. */
  headings: string[];
  /** The top-level heading this part was cut from: a link to it now links to the part itself. */
  section?: string;
  blocks: string[];
}

/**
 * Redirect for a split: a link to a heading goes to the part that holds it (to the part itself when the
 * heading became the part's title), a block ref to the part holding the block, and a bare link to `rest`.
 */
export function splitRedirect(original: string, rest: string, parts: SplitPart[]): Redirect {
  const byHeading = new Map<string, SplitPart>();
  const bySection = new Map<string, SplitPart>();
  const byBlock = new Map<string, SplitPart>();
  for (const p of parts) {
    for (const h of p.headings) if (!byHeading.has(headingKey(h))) byHeading.set(headingKey(h), p);
    if (p.section !== undefined) bySection.set(headingKey(p.section), p);
    for (const b of p.blocks) byBlock.set(b, p);
  }
  return (t) => {
    if (t.path !== original) return null;
    if (t.block !== undefined) {
      const part = byBlock.get(t.block.trim());
      return { path: part?.path ?? rest, block: t.block };
    }
    if (t.heading !== undefined) {
      // Nested heading links (`A#B`) name the last heading; Obsidian matches on it.
      const segs = t.heading.split('#');
      const last = headingKey(segs[segs.length - 1]);
      const section = bySection.get(last);
      if (section && segs.length === 1) return { path: section.path };
      const part = byHeading.get(last);
      if (part) {
        // The section heading became the part's title, so it is no longer a heading inside the part.
        const kept = segs.filter((s) => part.section === undefined || headingKey(s) !== headingKey(part.section));
        return kept.length ? { path: part.path, heading: kept.join('#') } : { path: part.path };
      }
      return { path: rest, heading: t.heading };
    }
    return rest === original ? null : { path: rest };
  };
}
