// Turns a note file into what the index stores: normalised metadata, chunks, link targets, hashes, embedding texts.
import { readNoteData } from '../note/frontmatter.js';
import { DEFAULT_TYPES, readNoteMeta, titleFromPath, type NoteMeta } from '../note/meta.js';
import { chunkBody, type Chunk } from './chunk.js';
import type { IndexedNote } from './text-index.js';

export type NoteDoc = Omit<IndexedNote, 'firstChunk' | 'chunkCount'>;

export interface ParsedDoc {
  note: NoteDoc;
  chunks: Chunk[];
  /** The frontmatter's other values as words ("[[Kevin Kelly]]" of `author:`), indexed with the tags. */
  properties: string;
  /** Set when the frontmatter is invalid: the note is still indexed by its text, and the problem reported. */
  problem?: string;
  /**
   * The note's metadata and its body as searched (an Excalidraw drawing without its scene data, no block ids), handed
   * on to the engine's term statistics, so the note is not parsed twice nor its drawing data read for words.
   */
  meta: NoteMeta;
  body: string;
  /** Set by whoever wants them (the engine's term statistics): filled with the note's distinct terms as it is indexed. */
  terms?: Set<string>;
}

/** 64-bit (two 32-bit lanes) hash of a string, as 16 hex digits: change detection, not security. */
export function textHash(s: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

/** What a wikilink target or a note title is matched on: the lower-case base name without `.md`, `#heading` or `|alias`. */
export function linkKey(target: string): string {
  let t = target.split('|')[0].split('#')[0].trim();
  t = t.slice(t.lastIndexOf('/') + 1);
  if (t.toLowerCase().endsWith('.md')) t = t.slice(0, -3);
  return t.toLowerCase();
}

const WIKILINK = /!?\[\[([^\]\n]{1,300})\]\]/g;

export function wikilinks(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(WIKILINK)) {
    const k = linkKey(m[1]);
    if (k) out.add(k);
  }
  return [...out];
}

const H1 = /^#[ \t]+(.+?)[ \t#]*$/;
const FENCE_LINE = /^\s{0,3}(?:```|~~~)/;

/**
 * Display title: frontmatter `title`, else an H1 that opens the body and is its only H1 (a note of several H1s, as many
 * Zettelkasten notes are written, uses them as section labels: "# Law", "# Example"), else the file name.
 */
export function displayName(data: Record<string, unknown> | null, body: string, fileName: string): string {
  const t = data?.title;
  if (typeof t === 'string' && t.trim()) return t.trim().slice(0, 200);
  const lines = body.split(/\r?\n/);
  const first = lines.findIndex((l) => l.trim() !== '');
  const m = first >= 0 ? H1.exec(lines[first]) : null;
  if (!m) return fileName;
  let fence = false;
  for (let i = first + 1; i < lines.length; i++) {
    if (FENCE_LINE.test(lines[i])) fence = !fence;
    else if (!fence && H1.test(lines[i])) return fileName;
  }
  const h = m[1].replace(/[*_`]+/g, '').replace(/\[\[(?:[^\]|]*\|)?([^\]]*)\]\]/g, '$1').trim();
  return h ? h.slice(0, 200) : fileName;
}

const BEAT_TYPES = new Set<string>(DEFAULT_TYPES);

const BLOCK_ID = /[ \t]+\^[A-Za-z0-9-]{1,40}[ \t]*$/gm;
/** The Excalidraw plugin's scene data in a drawing note: a JSON block under "# Drawing" (often 200 KB). */
const DRAWING_DATA = /^#{1,6}[ \t]+Drawing[ \t]*\r?\n+(`{3,})(?:compressed-)?json[ \t]*\r?\n[\s\S]*?\r?\n\1[ \t]*$/gm;

/**
 * The part of a body worth searching: an Excalidraw drawing keeps its text elements and loses its scene data, whose
 * keys ("roundness", "strokeColor") would otherwise be common words of the vault and half of its bytes.
 */
export function searchableBody(data: Record<string, unknown> | null, body: string): string {
  const b = data && 'excalidraw-plugin' in data ? body.replace(DRAWING_DATA, '') : body;
  // Block ids ("… the cache. ^QrZc2aSE") are link anchors, not words.
  return b.replace(BLOCK_ID, '');
}

/** Keys read elsewhere (title, aliases, tags, summary, `related` links) or bookkeeping (ids, dates, scores, display options). */
const UNSEARCHED_KEY = /^(?:title|aliases|alias|tags|tag|summary|description|id|type|scope|confidence|created|updated|modified|date(?:_\w+)?|review_after|forget_after|superseded_by|related|locked|published|last|rating|cssclass(?:es)?|publish|permalink|excalidraw-[\w-]+|(?:engram|cb)_\w+)$/i;
/**
 * An address, or a date or time (2023-09-12, 2023-09-12T10:00Z, 12/09/2023, 10:30): bookkeeping, left out. A number
 * is kept, decimals and phone numbers too (`coordinates: 34.9689499`, `price: 12.50`, `version: 1.2.3`,
 * `phone: +1 555-0100`): it is what is asked.
 */
const URL_OR_DATE = /^(?:[a-z][\w+.-]*:\/\/\S*|\d{4}-\d\d-\d\d(?:[T ][\d:.]+(?:Z|[+-]\d\d:?\d\d)?)?|(?:\d{1,2}|\d{4})[/.-]\d{1,2}[/.-](?:\d{2}|\d{4})|\d{1,2}:\d\d(?::\d\d)?(?:\.\d+)?)$/i;
/** A value naming an image or other file (a `banner:` picture): its name repeats the note's, and says nothing. */
const FILE_VALUE = /\.(?:png|jpe?g|gif|webp|svg|bmp|avif|pdf|mp[34]|webm|mov|excalidraw)(?:\]\])?$/i;
/** The properties text of a note is bounded: a frontmatter holding a pasted document is not a note's name. */
const MAX_PROPERTIES = 1000;

/**
 * A note's other frontmatter keys and values, as words: who a clipping is by (`author: [[Kevin Kelly]]`), who was at
 * a meeting, a film's director, an album's year. What people ask by ("the podcast with Kevin Kelly") often lives there
 * and nowhere in the body. Links by their text; addresses and dates left out, and a key with nothing kept.
 */
export function propertyText(data: Record<string, unknown> | null): string {
  if (!data) return '';
  const out: string[] = [];
  let size = 0;
  const add = (v: unknown, depth: number, into: string[]): void => {
    if (size > MAX_PROPERTIES || depth > 2) return;
    if (typeof v === 'string' || typeof v === 'number') {
      const t = String(v).trim();
      if (!t || URL_OR_DATE.test(t) || FILE_VALUE.test(t)) return;
      const w = t.replace(/\[\[([^\]|]*)(?:\|([^\]]*))?\]\]/g, (_m, a: string, b?: string) => b ?? a.slice(a.lastIndexOf('/') + 1));
      into.push(w);
      size += w.length + 2;
    } else if (Array.isArray(v)) {
      for (const x of v) add(x, depth + 1, into);
    } else if (v && typeof v === 'object' && !(v instanceof Date)) {
      for (const x of Object.values(v as Record<string, unknown>)) add(x, depth + 1, into);
    }
  };
  for (const [k, v] of Object.entries(data)) {
    // A `type` that is a list (`type: [[Cities]]`) is no Engram note type (meta.ts reads a word): it names what the
    // note is, as a category does, and is searched.
    if (UNSEARCHED_KEY.test(k) && !(/^type$/i.test(k) && Array.isArray(v) && !isEmptyValue(v))) continue;
    const values: string[] = [];
    add(v, 0, values);
    const key = k.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
    // The key names what the value is ("director", "year"): one line a key, "year: 1957". A key declared empty is
    // what a template is about (`price:`, `sqft:`, `phone:`): its name alone. A value left out (an address) says nothing.
    if (values.length) out.push(`${key}: ${values.join(', ')}`);
    else if (isEmptyValue(v)) {
      out.push(key);
      size += key.length + 1;
    }
  }
  return out.join('\n').slice(0, MAX_PROPERTIES);
}

/** Keys holding a date that is not when the note's subject happened: a reminder's, an expiry's. */
const NOT_WHEN_KEY = /(?:^|_)(?:review|forget|due|expires?|deadline)(?:_|$)|_after$/i;
const ISO_DAY = /^(\d{4}-\d\d-\d\d)(?:[T ][\d:.]+Z?)?$/;

/**
 * The latest date among a note's other properties, for a note without `created`, `updated` or `date` (meta.ts): when
 * a reference was last visited, played or watched (`last: 2023-09-01`) dates it better than its file's time, which a
 * synced or copied vault makes today. Epoch ms.
 */
export function propertyDate(data: Record<string, unknown> | null): number | undefined {
  let best: number | undefined;
  for (const [k, v] of Object.entries(data ?? {})) {
    if (NOT_WHEN_KEY.test(k)) continue;
    const m = v instanceof Date ? [v.toISOString()] : typeof v === 'string' ? ISO_DAY.exec(v.trim()) : null;
    const t = m ? Date.parse(m[0].slice(0, 10)) : NaN;
    if (!Number.isNaN(t) && (best === undefined || t > best)) best = t;
  }
  return best;
}

/** A property declared with nothing in it: `phone:`, `loc: []`, `status: ""`. */
function isEmptyValue(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.every(isEmptyValue);
  return false;
}

/** The words of a frontmatter block that does not parse: keys and values, without template fields and YAML marks. */
function brokenProperties(yaml: string): string {
  return yaml
    .split(/\r?\n/)
    .map((line) =>
      line
        .replace(/\{\{[^}\n]*\}\}/g, ' ')
        .replace(/\[\[([^\]|\n]*)(?:\|([^\]\n]*))?\]\]/g, (_m, a: string, b?: string) => b ?? a.slice(a.lastIndexOf('/') + 1))
        .replace(/^[ \t]*-[ \t]*|["'[\]{}]/g, ' ')
        .replace(/:\s*$/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((line) => /[\p{L}\p{N}]/u.test(line))
    .join('\n')
    .slice(0, MAX_PROPERTIES);
}

/** `title` replaces the file name as the note's title (a document without a name, such as a BEIR passage, has ''). */
export function parseDoc(path: string, text: string, mtime: number, size: number, title = titleFromPath(path)): ParsedDoc {
  const parsed = readNoteData(text);
  const meta = readNoteMeta(path, parsed.data ?? {});
  // Frontmatter that does not parse (an unfilled template's `date: {{date}}`) is still frontmatter: out of the
  // passages and excerpts, its keys and values searched as the note's properties.
  const broken = parsed.data === null && parsed.block !== null;
  const body = parsed.data === null && !broken ? text : parsed.body;
  const name = displayName(parsed.data, body, title);
  // A display name that is the file name in other dress ("dora-metrics", "Dora Metrics") is indexed once: twice would
  // count each of its words twice.
  const same = (a: string, b: string): boolean => a.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim() === b.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const names = same(name, title) ? [title] : [title, name];
  const aliases = meta.aliases.filter((a) => !names.some((n) => n.toLowerCase() === a.toLowerCase()));
  const links = new Set(wikilinks(broken ? text : body));
  for (const r of meta.related) for (const k of wikilinks(r.includes('[[') ? r : `[[${r}]]`)) links.add(k);
  const searched = searchableBody(parsed.data, parsed.body);
  const slash = path.lastIndexOf('/');
  const note: NoteDoc = {
    path,
    // Aliases are names of the note too: a search for one should find it by title.
    title: [...names, ...aliases].join(' ').trim(),
    ...(name !== title ? { name } : {}),
    folder: slash >= 0 ? path.slice(0, slash) : '',
    hash: textHash(text),
    mtime,
    size,
    type: meta.type,
    scope: meta.scope,
    project: meta.project,
    working: meta.reviewAfter !== undefined,
    tags: meta.tags,
    time: meta.updated ?? meta.created ?? mtime,
    confidence: meta.confidence,
    summary: meta.summary,
    superseded: meta.supersededBy !== undefined,
    links: [...links],
    dupKey: '',
    beat: meta.engramId !== undefined || (meta.type !== undefined && BEAT_TYPES.has(meta.type)),
  };
  const properties = broken && parsed.block ? brokenProperties(text.slice(parsed.block.yamlStart, parsed.block.yamlEnd)) : propertyText(parsed.data);
  // Notes of the same text are one result. A note without body text (a template, a reference made of properties)
  // is told apart by its whole text: by its body alone every such note would collapse into the best ranked one. A
  // note made from a template shares the template's body and differs by its properties (Kyoto and the City Template):
  // those count too, dates and ids left out (propertyText), so two copies of one note still collapse.
  note.dupKey = textHash((/\S/.test(searched) ? `${body}\n${properties}` : text).toLowerCase().replace(/\s+/g, ' ').trim());
  if (properties) note.props = properties;
  // A note dated only by its file may be dated by another property for a question's time phrase (filters.ts): ranked
  // up when that date is within it, never left out for it (the property may tell something else than when).
  const dated = note.time === mtime ? propertyDate(parsed.data) : undefined;
  if (dated !== undefined) note.dated = dated;
  const problem = parsed.problem ? `line ${parsed.problem.line}: ${parsed.problem.message}` : undefined;
  const chunks = chunkBody(body === parsed.body ? searched : searchableBody(parsed.data, body));
  return { note, chunks, properties, problem, meta, body: searched };
}

/** The text a chunk is embedded by; null when the chunk gets no vector (a beat has one vector, on its first chunk). */
export function embeddingText(note: IndexedNote | NoteDoc, chunk: Chunk, index: number): string | null {
  const title = note.title;
  if (note.beat) {
    if (index > 0) return null;
    const about = note.summary ?? chunk.text.slice(0, 600);
    return `${title}. ${about}${note.tags.length ? ` (${note.tags.join(', ')})` : ''}`;
  }
  // The title is kept with each chunk's heading and text: a section rarely names what the note is about.
  return `${title}\n${chunk.heading ? `${chunk.heading}\n` : ''}${chunk.text}`.slice(0, 2000);
}
