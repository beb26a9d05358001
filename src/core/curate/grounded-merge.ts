// A merge the configured model writes, grounded: it may only reorder and join the merged note the rules assembled
// (the kept note plus what the others add), never write a sentence of its own nor leave one out. Every passage of its
// reply must be a passage of the notes, every passage of the notes must be in the reply, and its headings must be the
// notes' headings; otherwise the rule merge is shown, saying why. Still a proposal, shown as a diff before it applies.
import type { LlmBackend } from '../extract/backends/types';
import { findFrontmatter } from '../note/frontmatter';
import { normaliseUnit, unitsOf } from './note-units';

const SYSTEM = `You join notes that say the same thing into one note that reads as one.
You are given a merged note: the kept note's text, then a section for what each other note adds.
Rewrite it into one note. You may only reorder its sentences, list items, table rows, code blocks and headings,
move them between sections, and drop a heading whose section you emptied. Copy every sentence word for word.
Never write a new sentence, never reword one, never leave one out, never add a heading of your own.
Reply with the note's Markdown body only (no frontmatter, no commentary, no code fence around it).`;

/** Where a text's body starts (after its frontmatter). */
function bodyStart(text: string): number {
  const fm = findFrontmatter(text);
  return fm && 'bodyStart' in fm ? fm.bodyStart : 0;
}

/** Strips a fence the model put around its whole reply. */
function unwrap(reply: string): string {
  const m = /^\s*```(?:markdown|md)?\s*\n([\s\S]*?)\n```\s*$/i.exec(reply);
  return (m ? m[1] : reply).trim();
}

/** Why a reply is not grounded in the merged text (null when it is): a passage or heading added, or one left out. */
export function groundingOfMerge(merged: string, reply: string): string | null {
  const from = unitsOf(merged);
  const to = unitsOf(reply);
  const haystack = ` ${from.units.join(' ')} `;
  const added = to.units.filter((u) => !haystack.includes(` ${u} `));
  if (added.length) return `${added.length} passage${added.length === 1 ? '' : 's'} not in the notes ("${added[0].slice(0, 60)}")`;
  const said = ` ${to.units.join(' ')} `;
  const lost = from.units.filter((u) => !said.includes(` ${u} `));
  if (lost.length) return `${lost.length} passage${lost.length === 1 ? '' : 's'} of the notes left out ("${lost[0].slice(0, 60)}")`;
  const headings = new Set(from.headings);
  const newHeading = to.headings.find((h) => !headings.has(h));
  if (newHeading !== undefined) return `a heading of its own ("${newHeading}")`;
  // Links and embeds (pictures too) are content: each one kept, none invented.
  const links = (t: string): string[] => [...t.matchAll(/!?\[\[[^\]]*\]\]|!?\[[^\]]*\]\([^)]*\)/g)].map((m) => m[0]).sort();
  const a = links(merged);
  const b = links(reply);
  const gone = a.filter((l) => !b.includes(l));
  if (gone.length) return `${gone.length} link${gone.length === 1 ? '' : 's'} or embed${gone.length === 1 ? '' : 's'} left out (${gone[0]})`;
  const invented = b.filter((l) => !a.includes(l));
  if (invented.length) return `a link of its own (${invented[0]})`;
  return null;
}

/**
 * The model's merge of `text` (the rule merge, frontmatter included): the same frontmatter over the model's body when
 * it is grounded, else why not.
 */
export async function groundedMerge(backend: LlmBackend, text: string): Promise<{ text: string } | { problem: string }> {
  const at = bodyStart(text);
  const body = text.slice(at);
  let reply: string;
  try {
    reply = unwrap((await backend.complete({ system: SYSTEM, user: `<merged-note>\n${body.trim()}\n</merged-note>`, maxTokens: 8000 })).text);
  } catch (e) {
    return { problem: `${backend.name} failed: ${(e as Error).message}` };
  }
  if (!normaliseUnit(reply)) return { problem: `${backend.name} replied with no text` };
  const problem = groundingOfMerge(body, reply);
  if (problem) return { problem };
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return { text: `${text.slice(0, at)}${reply.replace(/\r?\n/g, eol)}${eol}` };
}
