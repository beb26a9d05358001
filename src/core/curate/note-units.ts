// A note's own text as units, for telling what two notes share and what one adds to another: its sentences of
// prose, list items, table rows and code blocks, normalised (lower case, words only); headings apart.

/** A unit of a note's own text (a sentence, list item or table row), normalised: lower case, words only. */
export function normaliseUnit(s: string): string {
  return s.toLowerCase().replace(/\[\[([^\]|#]*)(?:[^\]]*)\]\]/g, '$1').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

export const FENCE = /^\s*(`{3,}|~{3,})/;
/** Words that link others and say nothing on their own: a passage that differs only by them says the same thing. */
export const LINKING = new Set('a an the is are was were be been of to in on at by for and as so that this it its which with'.split(' '));

/** Whether a line closes the code block `open` started (same character, at least as long, nothing after). */
export function closes(open: string, line: string): boolean {
  const m = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
  const o = FENCE.exec(open)?.[1] ?? '```';
  return !!m && m[1][0] === o[0] && m[1].length >= o.length;
}
/** The mark of a code block's unit: code counts as text in common, but names that differ need prose in common. */
export const CODE = 'code: ';
/** Code blocks that are queries other plugins fill in (generated output, not the note's own words). */
const QUERY_FENCE = /^\s*(```|~~~)\s*(dataview|dataviewjs|query|base|tasks)\b/i;

/** The units of a body: sentences of prose, list items, table rows, each code block whole; headings apart. */
export function unitsOf(body: string): { units: string[]; headings: string[] } {
  const units: string[] = [];
  const headings: string[] = [];
  let code: string[] | null = null;
  let opened = '';
  let query = false;
  for (const line of body.split(/\r?\n/)) {
    if (code) {
      if (closes(opened, line)) {
        // Code is marked: it counts as text in common, but names that differ need prose in common.
        if (!query) units.push(`${CODE}${normaliseUnit(code.join(' '))}`);
        code = null;
      } else code.push(line);
      continue;
    }
    if (FENCE.test(line)) {
      code = [];
      opened = line;
      query = QUERY_FENCE.test(line);
      continue;
    }
    // Embedded pictures and notes are not the note's own words (their file names say nothing of its subject).
    const t = line.replace(/!\[\[[^\]]*\]\]|!\[[^\]]*\]\([^)]*\)/g, ' ').trim();
    if (!t) continue;
    const h = /^#{1,6}\s+(.*)$/.exec(t);
    if (h) {
      headings.push(normaliseUnit(h[1]));
      continue;
    }
    const item = /^([-*+]|\d+[.)]|>)\s+/.test(t) || t.startsWith('|');
    // A list item that is only a link is an index's entry, not text of the note's own.
    if (item && /^([-*+]|\d+[.)])\s+!?\[\[[^\]]*\]\]\s*$/.test(t)) continue;
    const row = t.startsWith('|');
    for (const s of row ? [t] : t.replace(/^([-*+]|\d+[.)]|>)\s+/, '').split(/(?<=[.!?])\s+/)) {
      const u = normaliseUnit(s);
      if (u) units.push(u);
    }
  }
  return { units: units.filter((u) => u.length >= 3), headings };
}

/** Runs of four words through the note's own prose (passages in order), and through each code block; code keeps its mark. */
export function shingles(units: string[]): string[] {
  const out = new Set<string>();
  const add = (words: string[], mark: string): void => {
    if (words.length < 4) out.add(mark + words.join(' '));
    else for (let i = 0; i + 4 <= words.length; i++) out.add(mark + words.slice(i, i + 4).join(' '));
  };
  const prose: string[] = [];
  for (const u of units) {
    if (u.startsWith(CODE)) add(u.slice(CODE.length).split(' '), CODE);
    else prose.push(...u.split(' '));
  }
  if (prose.length) add(prose, '');
  return [...out];
}
