// A hit's excerpt: the part of its passage that answers, boilerplate and markup out, cut around the query's words, with
// the frontmatter properties the query asks about. Cut when a hit's snippet is first read (search.ts).
import { answeringText } from './answering.js';
import { flatText, snippetOf } from './rank.js';
import type { TextIndex } from './text-index.js';

/**
 * A hit's excerpt: the frontmatter properties the query asks about ("year: 1957" for "what year did … come out"),
 * whose answer no passage holds, then the densest window of the passage.
 */
export function excerpt(t: TextIndex, props: string | undefined, passage: string, query: string[], terms: string[], fromStart = false): string {
  const max = 300;
  // A passage chosen for its heading is quoted from its start: what the heading introduces.
  const words = fromStart ? [] : query;
  // The section of a short note that answers what is asked (its steps for a how-to question): answering.ts.
  const text = answeringText(t.withoutBoilerplate(passage), query.join(' '), terms, t.tokenizer);
  const flat = flatText(text);
  const cut = snippetOf(flat, words, max, fromStart ? [] : terms);
  if (!props) return cut;
  // A note with no text of its own (a film, a person, a book: properties only) is quoted by all its properties.
  if (!cut) {
    const all = props.split('\n').join(' · ');
    return all.length > max ? `${all.slice(0, max - 1)}…` : all;
  }
  if (terms.length === 0) return cut;
  const want = new Set(terms);
  const asked = props
    .split('\n')
    .filter((line) => t.tokenizer.terms(line).some((x) => want.has(x)))
    .map((line) => (line.length > 120 ? `${line.slice(0, 119)}…` : line));
  const head = asked.slice(0, 3).join(' · ');
  if (!head) return cut;
  const rest = snippetOf(flat, words, Math.max(60, max - head.length - 3), fromStart ? [] : terms);
  return rest ? `${head} · ${rest}` : head;
}
