// Splits a note's body into chunks by heading, so a long note is matched (and quoted) by its best section.
// Short notes, beats among them, stay one chunk.

export interface Chunk {
  /** The heading the chunk starts under, without the leading #s; absent for the text before the first heading. */
  heading?: string;
  text: string;
}

/** Bodies up to this many characters are never split. */
export const CHUNK_MIN_NOTE = 1500;
/** Sections shorter than this are merged into the one before. */
const MIN_SECTION = 200;
/** Sections longer than this are cut at paragraph breaks. */
const MAX_SECTION = 4000;

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/;
const FENCE = /^(`{3,}|~{3,})/;

export function chunkBody(body: string): Chunk[] {
  const text = body.trim();
  if (text.length <= CHUNK_MIN_NOTE) return [{ text }];
  const sections: Chunk[] = [];
  let current: { heading?: string; lines: string[] } = { lines: [] };
  let fence: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const f = FENCE.exec(line);
    if (f) fence = fence === null ? f[1][0] : fence === f[1][0] ? null : fence;
    const h = fence === null ? HEADING.exec(line) : null;
    if (h) {
      sections.push({ heading: current.heading, text: current.lines.join('\n').trim() });
      // Headings often carry emphasis (`## **Setup**`); the marks are noise in results and in the index.
      current = { heading: h[2].replace(/[*_`]+/g, '').trim(), lines: [] };
    } else {
      current.lines.push(line);
    }
  }
  sections.push({ heading: current.heading, text: current.lines.join('\n').trim() });

  const merged: Chunk[] = [];
  for (const s of sections) {
    if (s.text === '' && s.heading === undefined) continue;
    const prev = merged[merged.length - 1];
    if (prev && prev.text.length < MIN_SECTION) {
      // A tiny section (often a heading with one line) reads better together with its neighbour.
      prev.text = `${prev.text}\n${s.heading ? `${s.heading}\n` : ''}${s.text}`.trim();
      continue;
    }
    merged.push({ ...s });
  }
  const out: Chunk[] = [];
  for (const s of merged) {
    if (s.text.length <= MAX_SECTION) {
      out.push(s);
      continue;
    }
    let piece = '';
    for (const para of s.text.split(/\n\s*\n/)) {
      if (piece.length > 0 && piece.length + para.length > MAX_SECTION / 2) {
        out.push({ heading: s.heading, text: piece });
        piece = '';
      }
      // A single paragraph longer than the limit (a pasted log) is cut hard.
      for (let i = 0; i < para.length; i += MAX_SECTION) {
        const part = para.slice(i, i + MAX_SECTION);
        piece = piece ? `${piece}\n\n${part}` : part;
        if (piece.length >= MAX_SECTION) {
          out.push({ heading: s.heading, text: piece });
          piece = '';
        }
      }
    }
    if (piece) out.push({ heading: s.heading, text: piece });
  }
  return out.length > 0 ? out : [{ text }];
}
