// Renders injected context and recall results: title, why it matched, a [[wikilink]]; fenced; within a budget.
import { fenceRecalled } from '../transcript/fence.js';

export interface RenderItem {
  title: string;
  path: string;
  type?: string;
  summary?: string;
  snippet?: string;
  /** Heading path of the passage the snippet comes from. */
  heading?: string;
  why: string[];
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function linkTarget(item: RenderItem): string {
  // A wikilink by path (without .md) is unambiguous even when two notes share a title.
  return item.path.replace(/\.md$/i, '');
}

export function renderItem(item: RenderItem, detail: number): string {
  const head = `- [[${linkTarget(item)}|${item.title}]]${item.type ? ` (${item.type})` : ''}`;
  // A passage of a long note is quoted with where it sits; a short note (or a beat) by its summary, else its text.
  const passage = item.heading && item.snippet ? `§ ${item.heading}: ${item.snippet}` : undefined;
  const body = oneLine(passage || item.summary || item.snippet || '', detail);
  const why = item.why.length ? ` (matched: ${oneLine(item.why.join('; '), 120)})` : '';
  return body ? `${head}: ${body}${why}` : `${head}${why}`;
}

/** Packs as many items as fit in maxChars (fence included); returns the text and how many went in. */
export function renderContext(items: RenderItem[], maxChars: number, heading: string): { text?: string; used: number } {
  const overhead = fenceRecalled(heading).length + 2;
  const lines: string[] = [];
  let size = overhead;
  for (const item of items) {
    let line = renderItem(item, 360);
    if (size + line.length + 1 > maxChars) line = renderItem(item, 120);
    if (size + line.length + 1 > maxChars) break;
    lines.push(line);
    size += line.length + 1;
  }
  if (!lines.length) return { used: 0 };
  return { text: fenceRecalled(`${heading}\n${lines.join('\n')}`), used: lines.length };
}
