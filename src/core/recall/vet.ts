// What Engram may show of a note (issue 32): its provenance (trust.ts) and the directive-shaped text it holds, passage by
// passage (directives.ts), read from the note's file; and the marks a search hit carries for people (outside text, text
// addressed to an AI), the same in the hooks, `engram search`, MCP recall and the Search pane.
import { chunkBody } from '../index/chunk.js';
import type { SearchHit } from '../index/types.js';
import { parseNote } from '../note/frontmatter.js';
import { DIRECTIVE_KINDS, findDirectives, flagPassages, type Directive, type PassageFlags } from './directives.js';
import { noteTrust, type Trust, type TrustConfig, type TrustLevel } from './trust.js';

/** What a hook may inject of a note: its provenance and the directive-shaped text it holds. */
export interface Vetting {
  trust: Trust;
  directives: Directive[];
  /** Which of its passages hold that text (absent when none does): a clean passage of the note may still go out. */
  passages?: PassageFlags;
}

/** A search hit with what its note is: `trust` its level; `flagged`, it holds text addressed to an AI. */
export type MarkedHit = SearchHit & { trust?: TrustLevel; flagged?: true };

/** Vets the note at `path` whose file reads `text`. */
export function vetNote(path: string, text: string, cfg: TrustConfig): Vetting {
  const parsed = parseNote(text);
  const directives = findDirectives(text);
  // Read passage by passage, as the index cuts the note: one poisoned section does not silence the others.
  const passages = directives.length ? flagPassages(text, chunkBody(parsed.body), directives) : undefined;
  return { trust: noteTrust(path, parsed.data, cfg), directives, ...(passages ? { passages } : {}) };
}

/**
 * The directive-shaped text that keeps `passage` of a vetted note from being shown (its heading path, '' before the
 * first heading; null: only the note's title and summary are shown), or null when nothing does. A note the user raised
 * (`engram_trust: user`) is shown as written.
 */
export function heldBack(v: Vetting, passage: string | null): Directive | null {
  if (!v.directives.length || v.trust.byUser) return null;
  if (!v.passages || v.passages.whole) return v.directives[0];
  if (passage === null) return null;
  return v.passages.passages.find((p) => p.heading === passage)?.directives[0] ?? null;
}

/** Marks `hit` with its note's vetting: outside text first in why, text addressed to an AI last. */
export function markHit<H extends SearchHit>(hit: H, v: Vetting): H & { trust: TrustLevel; flagged?: true } {
  const why = [...hit.why];
  if (v.trust.level === 'outside') why.unshift(`outside text, not the user's words (${v.trust.why})`);
  const held = heldBack(v, hit.heading ?? '');
  const flagged = v.directives.length > 0 && !v.trust.byUser;
  if (flagged) why.push(held ? `this passage holds text addressed to an AI (${DIRECTIVE_KINDS[held.kind]}): never injected` : 'another passage holds text addressed to an AI: that one is never injected');
  return { ...hit, why, trust: v.trust.level, ...(flagged ? { flagged: true as const } : {}) };
}

/** A note holding text addressed to an AI, for the review pane, `engram flagged` and the activity record. */
export interface FlaggedNote {
  path: string;
  title: string;
  trust: TrustLevel;
  /** What was found and where: `heading` is the passage's heading path ('' before the first heading); absent: the frontmatter, or across passages. */
  found: { kind: Directive['kind']; excerpt: string; heading?: string }[];
  /** Nothing of the note is injected (the text is in its frontmatter or across passages, or the note is one passage); else only the flagged passages are held back. */
  whole: boolean;
}

/** The note as the flagged list shows it, or null when it holds nothing addressed to an AI (or the user raised it). */
export function flaggedNote(path: string, title: string, v: Vetting): FlaggedNote | null {
  if (!v.directives.length || v.trust.byUser) return null;
  const loose = v.passages ? v.passages.loose : v.directives;
  const found: FlaggedNote['found'] = loose.slice(0, 1).map((d) => ({ kind: d.kind, excerpt: d.excerpt }));
  for (const p of v.passages?.passages ?? []) found.push({ kind: p.directives[0].kind, excerpt: p.directives[0].excerpt, heading: p.heading });
  return { path, title, trust: v.trust.level, found, whole: !v.passages || v.passages.whole };
}
