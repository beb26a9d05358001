// The vault's vocabulary from its ENGRAM.md: the `## Types` list, and the free text of `## Engram preferences`
// that extraction prompts include. Without the file (or the section), the defaults apply.
import { isEngramError } from '../errors.js';
import type { VaultPort } from '../ports.js';
import { parseNote } from './frontmatter.js';
import { DEFAULT_TYPES } from './meta.js';

export const VOCABULARY_NOTE = 'ENGRAM.md';

export interface BeatType {
  name: string;
  description?: string;
}

export interface Vocabulary {
  types: BeatType[];
  /** The `## Engram preferences` section, trimmed ('' when absent). */
  preferences: string;
  /** Where the types came from. */
  source: 'ENGRAM.md' | 'defaults';
}

export const DEFAULT_VOCABULARY: Vocabulary = { types: DEFAULT_TYPES.map((name) => ({ name })), preferences: '', source: 'defaults' };

/** The text under a `## <title>` heading (case-insensitive), up to the next heading of level 1 or 2. */
function section(body: string, title: string): string | null {
  const lines = body.split(/\r?\n/);
  const want = title.toLowerCase();
  let start = -1;
  let fence = false;
  const out: string[] = [];
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const h = fence ? null : /^(#{1,2})\s+(.+?)\s*#*\s*$/.exec(line);
    if (start >= 0) {
      if (h) break;
      out.push(line);
    } else if (h && h[1] === '##' && h[2].toLowerCase() === want) start = 0;
  }
  return start < 0 ? null : out.join('\n').trim();
}

/** One list item: `- decision: why`, `- **decision** — why`, `* \`decision\` - why`, `1. decision`. */
function typeFromItem(line: string): BeatType | null {
  const m = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
  if (!m) return null;
  const item = m[1].trim();
  const named = /^(?:\*\*|__|`)?([\p{L}\p{N}][\p{L}\p{N}_-]*)(?:\*\*|__|`)?\s*(?:[:—–-]\s*(.*))?$/u.exec(item);
  if (!named) return null;
  const description = named[2]?.trim();
  return description ? { name: named[1].toLowerCase(), description } : { name: named[1].toLowerCase() };
}

export function parseVocabulary(text: string): Vocabulary {
  const { body } = parseNote(text);
  const typesText = section(body, 'Types');
  const preferences = section(body, 'Engram preferences') ?? '';
  const types: BeatType[] = [];
  const seen = new Set<string>();
  for (const line of (typesText ?? '').split('\n')) {
    const t = typeFromItem(line);
    if (t && !seen.has(t.name)) {
      seen.add(t.name);
      types.push(t);
    }
  }
  if (types.length === 0) return { ...DEFAULT_VOCABULARY, preferences };
  return { types, preferences, source: 'ENGRAM.md' };
}

/** Reads ENGRAM.md at the vault root; the defaults when it does not exist. */
export async function loadVocabulary(vault: VaultPort): Promise<Vocabulary> {
  try {
    return parseVocabulary((await vault.read(VOCABULARY_NOTE)).text);
  } catch (e) {
    if (isEngramError(e, 'not-found')) return DEFAULT_VOCABULARY;
    throw e;
  }
}
