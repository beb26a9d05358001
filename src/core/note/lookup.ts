// The one note resolver: how `read`, `forget`, the MCP tools and the panes turn what a user or agent says ("Go JSON
// Parsing", `[[Go JSON Parsing|x]]`, `Notes/Go JSON Parsing.md`) into one note. The rules, in order (docs/commands.md, "Naming a
// note"): a link's brackets, alias and heading are dropped; an exact vault path (with or without `.md`) wins; then a
// path in any case; then a title or alias compared as a person reads it (case, punctuation and spacing aside); then a
// title without its Zettelkasten id or date prefix. Several notes matching at the first tier that matches is
// ambiguous: `candidates` lists them and `path` is unset.

/** What the resolver needs of each note: its title (the file name when it has none) and its aliases. */
export interface NoteNames {
  title: string;
  aliases: readonly string[];
}

export interface LookUp {
  path?: string;
  /** The user gave the note's exact vault path. */
  exact: boolean;
  candidates: string[];
}

/** A title compared as a person reads it: case, punctuation and spacing aside. */
export function titleKey(t: string): string {
  return t.normalize('NFC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** A title without a leading Zettelkasten id or date (`202211141287 - `, `2024-03-01 `). */
export function stripTitlePrefix(t: string): string {
  return t.replace(/^(?:\d{8,14}|\d{4}-\d{2}-\d{2}(?:[ T_]\d{2}[-:.]?\d{2}(?:[-:.]?\d{2})?)?)\s*(?:[-–—_:]\s*)?/, '') || t;
}

export function lookUpNote(ref: string, notes: { has(path: string): boolean; entries(): Iterable<[string, NoteNames]> }): LookUp {
  let r = ref.trim().replace(/^\[\[|\]\]$/g, '').split('|')[0].split('#')[0].trim().replace(/\\/g, '/');
  if (r.startsWith('/')) r = r.slice(1);
  if (notes.has(r)) return { path: r, exact: true, candidates: [r] };
  if (notes.has(`${r}.md`)) return { path: `${r}.md`, exact: true, candidates: [`${r}.md`] };
  const wanted = titleKey(r.replace(/\.md$/i, ''));
  if (!wanted) return { exact: false, candidates: [] };
  const lower = `${r.toLowerCase().replace(/\.md$/, '')}.md`;
  const tiers: string[][] = [[], [], []];
  for (const [path, meta] of notes.entries()) {
    if (path.toLowerCase() === lower) tiers[0].push(path);
    else if (titleKey(meta.title) === wanted || meta.aliases.some((a) => titleKey(a) === wanted)) tiers[1].push(path);
    else if (titleKey(stripTitlePrefix(meta.title)) === wanted) tiers[2].push(path);
  }
  const hit = tiers.find((t) => t.length > 0) ?? [];
  hit.sort();
  return hit.length === 1 ? { path: hit[0], exact: false, candidates: hit } : { exact: false, candidates: hit };
}
