// Ranking knobs and the pieces of hybrid ranking that do not touch the index: fusion, priors, snippets.
import { isCjkTerm } from './language.js';
import { DEFAULT_BM25, type Bm25Params, type IndexedNote } from './text-index.js';

export interface RankingConfig {
  bm25: Bm25Params;
  /** Reciprocal-rank fusion constant. */
  rrfK: number;
  /** How many candidates each side contributes to fusion. */
  depth: number;
  /** A vector-only candidate below this cosine is noise, not a match. */
  minCosine: number;
  recency: { halfLifeDays: number; floor: number; weight: number };
  /** Share of the score that depends on `confidence` (notes without one are not penalised). */
  confidenceWeight: number;
  typeBoost: Record<string, number>;
  supersededFactor: number;
  /** Cosine between two hits' vectors above which the lower one is collapsed into the higher. */
  duplicateCosine: number;
}

export const DEFAULT_RANKING: RankingConfig = {
  bm25: DEFAULT_BM25,
  rrfK: 60,
  depth: 100,
  minCosine: 0.2,
  recency: { halfLifeDays: 90, floor: 0.3, weight: 0.15 },
  confidenceWeight: 0.1,
  typeBoost: { decision: 1.05, correction: 1.05 },
  supersededFactor: 0.7,
  duplicateCosine: 0.97,
};

const DAY = 86_400_000;

/** Gentle multipliers in (0, ~1.05]: they reorder near-ties, never bury a strong match. */
export function priorFactor(n: IndexedNote, now: number, cfg: RankingConfig): { factor: number; why: string[] } {
  const why: string[] = [];
  const age = Math.max(0, now - n.time) / DAY;
  const r = Math.max(cfg.recency.floor, Math.pow(0.5, age / cfg.recency.halfLifeDays));
  let factor = 1 - cfg.recency.weight * (1 - r);
  if (age < 7 && n.time > 0) why.push('recent');
  if (n.confidence !== undefined) factor *= 1 - cfg.confidenceWeight * (1 - n.confidence);
  const tb = n.type ? cfg.typeBoost[n.type] : undefined;
  if (tb) factor *= tb;
  if (n.superseded) {
    factor *= cfg.supersededFactor;
    why.push('superseded');
  }
  return { factor, why };
}

export function rrf(rank: number, k: number): number {
  return 1 / (k + rank + 1);
}

// HTML an editor leaves in notes (not `<T>` of code): removed from snippets with its attributes.
const HTML_TAG =
  /<\/?(?:a|img|br|hr|div|span|p|b|i|u|s|em|strong|small|sup|sub|mark|kbd|font|center|iframe|video|audio|source|picture|figure|figcaption|details|summary|table|thead|tbody|tfoot|tr|td|th|ul|ol|li|dl|dt|dd|h[1-6]|blockquote|pre|code|style|script|button|input|label|form|select|option|textarea|svg|path|nav|section|article|header|footer|aside|main|abbr|cite|time|ins|del|caption|wbr)\b[^>]*>/gi;
/** An embed of a file that is not a note (an image, a PDF, a drawing): nothing a reader of text can use. */
const FILE_EMBED = /!\[\[[^\]\n]*\.(?:png|jpe?g|gif|webp|svg|bmp|avif|pdf|mp[34]|webm|mov|ogg|wav|m4a|excalidraw|canvas)(?:[#|][^\]\n]*)?\]\]/gi;

/** `re` replaced in `s` when `s` holds one of `needles` (without them it cannot match: the scan is skipped). */
function when(s: string, needles: readonly string[], re: RegExp, by: string): string {
  for (const n of needles) if (s.includes(n)) return s.replace(re, by);
  return s;
}

/**
 * A note's text as a reader sees it: no image or file embeds, no HTML or comments, wikilinks and Markdown links by
 * their text, no heading, quote, list or emphasis markers. For snippets and injected context. Each rewrite runs only
 * on a text holding the characters it needs (most passages have no HTML or embeds): the excerpt is most of a query.
 */
export function readableText(md: string): string {
  let s = when(md, ['%%'], /%%[\s\S]*?%%/g, ' ');
  s = when(s, ['<!--'], /<!--[\s\S]*?-->/g, ' ');
  if (s.includes('![[')) {
    s = s.replace(FILE_EMBED, ' ');
    // A note embed shows what it embeds by name: "(embeds Setup > Linux)".
    s = s.replace(/!\[\[([^\]|\n]*)(?:\|[^\]\n]*)?\]\]/g, (_m, t: string) => ` (embeds ${t.replace(/#\^?/, ' > ').trim()}) `);
  }
  s = when(s, ['!['], /!\[[^\]\n]*\]\([^)\n]*\)/g, ' ');
  if (s.includes('<')) {
    // A button's label ("Open in Obsidian") is a page's controls, not what the note says.
    s = s.replace(/<(style|script|button)\b[\s\S]*?<\/\1>/gi, ' ').replace(HTML_TAG, ' ');
  }
  if (s.includes('[[')) {
    s = s.replace(/\[\[([^\]|\n]*)\|([^\]\n]*)\]\]/g, '$2').replace(/\[\[([^\]\n]*)\]\]/g, (_m, t: string) => t.replace(/#\^?/, ' > '));
  }
  s = when(s, [']('], /\[([^\]\n]*)\]\((?:[^)\s]*)(?:\s+"[^"]*")?\)/g, '$1');
  s = when(s, ['#', '>', '[', '```', '~~~'], /^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+\[[ xX]\]\s+|```.*$|~~~.*$)/gm, '');
  s = when(s, ['**', '__', '~~', '=='], /(\*\*|__|~~|==)(?=\S)([\s\S]*?\S)\1/g, '$2');
  return when(s, ['#'], /(^|\s)#(?=[\p{L}_][\p{L}\p{N}_/-]*)/gmu, '$1');
}

/** A passage as a snippet reads it: readable, whitespace collapsed (made once for an excerpt cut twice). */
export function flatText(text: string): string {
  // Each run of white space as one space: a run of two or more, or one that is not a space (a lone space stays).
  return readableText(text).replace(/\s{2,}|(?! )\s/g, ' ').trim();
}

/**
 * A window of a passage (made flat by `flatText`) where the query's words are densest (the most distinct terms within
 * `max` characters). `terms` are the index's stems ("materi" finds "materials"); `words` the query's words.
 */
export function snippetOf(flat: string, words: string[], max = 240, terms: string[] = []): string {
  if (flat.length <= max) return flat;
  const lower = flat.toLowerCase();
  const keys = [...new Set([...words.map((w) => w.toLowerCase()), ...terms].filter((w) => w.length >= 3 || isCjkTerm(w)))];
  const hits: { at: number; key: number }[] = [];
  keys.forEach((k, key) => {
    for (let i = lower.indexOf(k); i >= 0 && hits.length < 2000; i = lower.indexOf(k, i + k.length)) hits.push({ at: i, key });
  });
  hits.sort((a, b) => a.at - b.at);
  const at = densest(hits, keys.length, (max * 2) / 3);
  let start = at < 0 ? 0 : Math.max(0, at - Math.floor(max / 4));
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space > 0 && space - start < 20) start = space + 1;
  }
  const end = Math.min(flat.length, start + max);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

/**
 * Where the most distinct keys fall within [hit, hit + span), earliest on ties (-1: no hit): one pass of a sliding
 * window that counts each key in it.
 */
function densest(hits: readonly { at: number; key: number }[], keys: number, span: number): number {
  const inWindow = new Int32Array(keys);
  let distinct = 0;
  let at = -1;
  let bestCount = 0;
  for (let i = 0, j = 0; i < hits.length; i++) {
    while (j < hits.length && hits[j].at < hits[i].at + span) if (inWindow[hits[j++].key]++ === 0) distinct++;
    if (distinct > bestCount) {
      bestCount = distinct;
      at = hits[i].at;
    }
    if (--inWindow[hits[i].key] === 0) distinct--;
  }
  return at;
}
