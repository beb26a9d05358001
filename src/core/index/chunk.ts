// Splits a note's body into passages: heading sections, each carrying its heading path, with long sections and long
// lists cut into bounded pieces, so a note is matched (and quoted) by the part that answers and a 277,000-character
// list is a few hundred small passages, not one giant document. Short notes, beats among them, stay one passage.

export interface Chunk {
  /**
   * The heading path the passage sits under ("Setup > Linux"), without the leading #s; absent for the text before the
   * first heading and for a note kept whole.
   */
  heading?: string;
  text: string;
}

/** Bodies up to this many characters are never split. */
export const CHUNK_MIN_NOTE = 1500;
/** Sections shorter than this are merged into the one before. */
const MIN_SECTION = 200;
/** Sections longer than this are cut into pieces of about PIECE characters (a passage of about 200 words). */
const MAX_SECTION = 1600;
const PIECE = 1200;
/** A line longer than this (a pasted log, a minified blob) is cut hard. */
const MAX_LINE = 1600;
/**
 * A long list (a map of contents, 2,000 plugins) is cut into pieces of a few items: its entries are separate things,
 * and a piece of twenty would match a question by one word from each of four unrelated entries.
 */
const LIST_PIECE = 300;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,4}[.)])\s/;

export const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/;
export const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/** A heading's text as a reader sees it: emphasis marks, links and tags out. */
export function headingText(h: string): string {
  return h
    .replace(/\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2')
    .replace(/\[\[([^\]]*)\]\]/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[*_`]+/g, '')
    .trim();
}

export function chunkBody(body: string): Chunk[] {
  const text = body.trim();
  if (text.length <= CHUNK_MIN_NOTE) return [{ text }];
  const sections: Chunk[] = [];
  const path: { level: number; text: string }[] = [];
  let heading: string | undefined;
  let lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const f = FENCE.exec(line);
    if (f) fence = fence === null ? f[1][0] : fence === f[1][0] ? null : fence;
    const h = fence === null && !f ? HEADING.exec(line) : null;
    if (h) {
      sections.push({ heading, text: lines.join('\n').trim() });
      const level = h[1].length;
      while (path.length && path[path.length - 1].level >= level) path.pop();
      const t = headingText(h[2]);
      if (t) path.push({ level, text: t });
      heading = path.length ? path.map((p) => p.text).join(' > ') : undefined;
      lines = [];
    } else {
      lines.push(line);
    }
  }
  sections.push({ heading, text: lines.join('\n').trim() });

  const merged: Chunk[] = [];
  for (const s of sections) {
    // A heading with nothing under it before the next one lives on in that one's heading path.
    if (s.text === '') continue;
    const prev = merged[merged.length - 1];
    if (prev && prev.text.length < MIN_SECTION && prev.text.length + s.text.length <= MAX_SECTION) {
      // A tiny section (often a heading with one line) reads better together with its neighbour.
      const last = s.heading?.split(' > ').pop();
      prev.text = `${prev.text}\n${last && last !== prev.heading ? `${last}\n` : ''}${s.text}`.trim();
      continue;
    }
    merged.push({ ...s });
  }
  const out: Chunk[] = [];
  for (const s of merged) {
    if (s.text.length <= MAX_SECTION) out.push(s);
    else for (const piece of cut(s.text)) out.push({ heading: s.heading, text: piece });
  }
  return out.length > 0 ? out : [{ text }];
}

/**
 * Cuts a long section into pieces of about PIECE characters: at paragraph breaks first, then between lines (a list is
 * cut between its items, never inside one), a code block kept whole where it fits, a single huge line cut hard.
 */
function cut(text: string): string[] {
  const out: string[] = [];
  let piece: string[] = [];
  let size = 0;
  const flush = (): void => {
    const t = piece.join('\n').trim();
    if (t) out.push(t);
    piece = [];
    size = 0;
  };
  const blocks = text.split(/\n[ \t]*\n/);
  for (const block of blocks) {
    if (size > 0 && size + block.length > PIECE) flush();
    if (block.length <= MAX_SECTION) {
      piece.push(block, '');
      size += block.length + 1;
      continue;
    }
    const lines = block.split('\n');
    const limit = lines.filter((l) => LIST_ITEM.test(l)).length >= lines.length * 0.8 ? LIST_PIECE : PIECE;
    for (const raw of lines) {
      for (let i = 0; i < Math.max(1, raw.length); i += MAX_LINE) {
        const line = raw.slice(i, i + MAX_LINE);
        // A list is cut before an item, never between an item and its indented continuation.
        if (size > 0 && size + line.length > limit && (limit === PIECE || LIST_ITEM.test(line))) flush();
        piece.push(line);
        size += line.length + 1;
      }
    }
    piece.push('');
  }
  flush();
  return out;
}

const LINK = /!?\[\[[^\]\n]*\]\]|\[[^\]\n]*\]\([^)\n]*\)|\bhttps?:\/\/[^\s)>\]]+/g;

/**
 * Whether a passage is a list of links (a map of contents, a "Related" list, references by address): three or more
 * wikilinks, Markdown links or bare addresses making up over 60% of its non-blank characters. It matches a question
 * by the names of the notes or pages it points to, and those, not the list, hold the answer.
 */
export function isLinkList(text: string): boolean {
  let n = 0;
  let inLinks = 0;
  for (const m of text.matchAll(LINK)) {
    n++;
    inLinks += m[0].replace(/\s+/g, '').length;
  }
  if (n < 3) return false;
  return inLinks >= text.replace(/^\s*(?:[-*+]|\d{1,4}[.)])\s+/gm, '').replace(/\s+/g, '').length * 0.6;
}
