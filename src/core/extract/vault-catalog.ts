// What extraction needs to know about the vault, read once per run: which engram_ids exist (exactly once),
// titles (links only to notes that exist), tags (vocabulary), the `## Engram preferences` section, and
// each note's text for duplicate detection.
import { parseNote } from '../note/frontmatter.js';
import { readNoteMeta, type NoteMeta } from '../note/meta.js';
import { stripProvenance } from '../note/provenance.js';
import type { VaultPort } from '../ports.js';
import { normaliseForMatch } from './grounding.js';

export interface CatalogNote {
  meta: NoteMeta;
  /** Normalised summary + body, for exact-duplicate checks. */
  contentKey: string;
  /** Title, summary and body as plain text, for similarity. */
  text: string;
  /** The frontmatter parsed; false when invalid (such a note is never touched). */
  valid: boolean;
}

/** The marker an extension section carries, so a rerun sees that this beat was already written. */
export function extensionMarker(engramId: string): string {
  return `<!-- engram:${engramId} -->`;
}
const EXTENSION_RE = /<!-- engram:([0-9a-f]{8,64}) -->/g;

export const PREFERENCES_HEADING = /^##\s+Engram preferences\s*$/im;

export function contentKey(summary: string, body: string): string {
  return normaliseForMatch(`${summary}\n${body}`);
}

export class VaultCatalog {
  readonly notes = new Map<string, CatalogNote>();
  /** engram_id → path (frontmatter ids and extension markers). */
  readonly ids = new Map<string, string>();
  private readonly byTitle = new Map<string, string>();
  private readonly byContent = new Map<string, string>();
  private readonly lowerPaths = new Set<string>();
  preferences?: string;

  static async load(vault: VaultPort): Promise<VaultCatalog> {
    const cat = new VaultCatalog();
    const files = await vault.list();
    // Read in small batches: a large vault should not open thousands of files at once.
    for (let i = 0; i < files.length; i += 64) {
      const batch = await Promise.all(files.slice(i, i + 64).map((f) => vault.read(f.path).catch(() => undefined)));
      for (const file of batch) if (file) cat.add(file.path, file.text);
    }
    return cat;
  }

  add(path: string, text: string): void {
    const parsed = parseNote(text);
    const meta = readNoteMeta(path, parsed.data ?? {});
    const body = parsed.body;
    const note: CatalogNote = {
      meta,
      contentKey: contentKey(meta.summary ?? '', stripProvenance(body)),
      text: `${meta.title}\n${meta.summary ?? ''}\n${stripProvenance(body)}`,
      valid: parsed.data !== null,
    };
    this.notes.set(path, note);
    this.lowerPaths.add(path.toLowerCase());
    if (meta.engramId) this.ids.set(meta.engramId, path);
    for (const m of body.matchAll(EXTENSION_RE)) this.ids.set(m[1], path);
    this.byTitle.set(meta.title.toLowerCase(), meta.title);
    for (const alias of meta.aliases) this.byTitle.set(alias.toLowerCase(), meta.title);
    this.byContent.set(note.contentKey, path);
    if (this.preferences === undefined && PREFERENCES_HEADING.test(body)) this.preferences = preferencesSection(body);
  }

  hasId(id: string): boolean {
    return this.ids.has(id);
  }

  /** The exact title of an existing note (case-insensitive match, aliases too), or undefined. */
  resolveTitle(title: string): string | undefined {
    return this.byTitle.get(title.trim().toLowerCase());
  }

  hasPath(path: string): boolean {
    // Case-insensitive: on macOS and Windows `Note.md` and `note.md` are the same file.
    return this.lowerPaths.has(path.toLowerCase());
  }

  /** Path of a note with exactly this content, if any. */
  sameContent(key: string): string | undefined {
    return this.byContent.get(key);
  }

  /** `shown`: which notes may be named to the model (private zones are not). */
  tags(limit = 80, shown: (m: NoteMeta) => boolean = () => true): string[] {
    const counts = new Map<string, number>();
    for (const n of this.notes.values()) if (shown(n.meta)) for (const t of n.meta.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit).map(([t]) => t);
  }

  /** Titles of Engram's notes first (most recently updated), then the rest. */
  titles(limit = 200, shown: (m: NoteMeta) => boolean = () => true): string[] {
    const notes = [...this.notes.values()].filter((n) => shown(n.meta)).sort((a, b) => Number(Boolean(b.meta.engramId)) - Number(Boolean(a.meta.engramId)) || (b.meta.updated ?? 0) - (a.meta.updated ?? 0));
    return notes.slice(0, limit).map((n) => n.meta.title);
  }
}

/** The text under `## Engram preferences`, up to the next heading of the same or higher level. */
export function preferencesSection(body: string): string {
  const m = PREFERENCES_HEADING.exec(body);
  if (!m) return '';
  const rest = body.slice(m.index + m[0].length);
  const next = /^#{1,2}\s/m.exec(rest);
  return (next ? rest.slice(0, next.index) : rest).trim().slice(0, 4000);
}

