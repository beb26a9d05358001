// Progressive disclosure: recall's compact list (title, path, one line, size in tokens) and `read` of one passage by
// its heading, so an agent pays for the text it opens, not for every hit.
import { FENCE, HEADING, headingText } from '../index/chunk.js';
import type { SearchHit } from '../index/types.js';

/** A rough token count (about four characters a token in English prose). */
export function tokens(chars: number): number {
  return Math.max(1, Math.round(chars / 4));
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, Math.max(0, max - 1))}…` : t;
}

/**
 * One line a hit: `- Title · path#heading · ~N tok: what it says`, the line cut to fit 124 characters (ten hits under
 * 1,500 characters with the fence and the list's head line). The id (path#heading) is never cut: `read` opens the hit
 * by it; a long one leaves less room for the title and none for the line of text.
 */
export function compactList(hits: (SearchHit & { body?: string })[], perLine = 124): string[] {
  return hits.map((h) => {
    const at = h.heading ? `${h.path}#${h.heading}` : h.path;
    const size = h.chars !== undefined ? ` · ~${tokens(h.chars)} tok` : '';
    const id = `${at.replace(/\s+/g, ' ')}${size}`;
    const head = `- ${oneLine(h.title, Math.max(16, Math.min(40, perLine - id.length - 5)))} · ${id}`;
    const room = perLine - head.length - 2;
    const what = room >= 20 ? oneLine(h.summary || h.snippet || '', room) : '';
    return what ? `${head}: ${what}` : head;
  });
}

/**
 * The section of a note body under `heading` (its last part, or its whole path "A > B", case aside), subsections
 * included, with the heading path found; or the headings the note has when none matches.
 */
export function passagesUnder(body: string, heading: string): { text: string; heading?: string; headings: string[] } {
  const want = heading.toLowerCase().replace(/\s+/g, ' ').trim();
  const match = (path: string): boolean => {
    const l = path.toLowerCase();
    return l === want || l.endsWith(` > ${want}`);
  };
  const headings: string[] = [];
  const path: { level: number; text: string }[] = [];
  let fence: string | null = null;
  let inside = 0; // level of the matched heading while inside its section, else 0
  let found: string | undefined;
  const out: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const f = FENCE.exec(line);
    if (f) fence = fence === null ? f[1][0] : fence === f[1][0] ? null : fence;
    const h = fence === null && !f ? HEADING.exec(line) : null;
    if (h) {
      const level = h[1].length;
      if (inside && level <= inside) inside = 0;
      while (path.length && path[path.length - 1].level >= level) path.pop();
      path.push({ level, text: headingText(h[2]) });
      const p = path.map((x) => x.text).join(' > ');
      headings.push(p);
      if (!inside && found === undefined && match(p)) {
        inside = level;
        found = p;
        continue;
      }
    }
    if (inside) out.push(line);
  }
  return found === undefined ? { text: '', headings } : { text: out.join('\n').trim(), heading: found, headings };
}
