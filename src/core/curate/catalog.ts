// A read of the whole vault for curation: every note's text, metadata, links and the link graph.
// Curation needs exact texts (for hashes, diffs and link rewrites), so it reads files rather than the index.
import { parseNote } from '../note/frontmatter';
import { readNoteMeta, type NoteMeta } from '../note/meta';
import { sha256Hex } from '../hash';
import { isEngramError } from '../errors';
import { possibleCopy, sameNoteVersions } from '../note/conflict-copy';
import type { VaultPort, Yield } from '../ports';
import { bodyTags, parseLinks, type NoteLink } from './links';
import { LinkResolver } from './link-resolver';

export interface CatalogNote {
  path: string;
  text: string;
  /** Null when the frontmatter is invalid: such notes are never rewritten by curation. */
  meta: NoteMeta | null;
  body: string;
  links: NoteLink[];
  /** Frontmatter tags plus `#tags` in the body, lower case. */
  tags: string[];
}

export class NoteCatalog {
  readonly notes = new Map<string, CatalogNote>();
  readonly resolver: LinkResolver;
  private out?: Map<string, Set<string>>;
  private inc?: Map<string, Set<string>>;
  private hashes = new Map<string, string>();

  constructor(notes: Iterable<CatalogNote>) {
    for (const n of notes) this.notes.set(n.path, n);
    this.resolver = new LinkResolver(this.notes.keys());
  }

  get(path: string): CatalogNote | undefined {
    return this.notes.get(path);
  }

  /** Content hash, computed on demand (hashing the whole vault is wasted work for most runs). */
  hash(path: string): string {
    let h = this.hashes.get(path);
    if (h === undefined) {
      const n = this.notes.get(path);
      if (!n) throw new Error(`not in catalog: ${path}`);
      h = sha256Hex(n.text);
      this.hashes.set(path, h);
    }
    return h;
  }

  private buildGraph(): void {
    const out = new Map<string, Set<string>>();
    const inc = new Map<string, Set<string>>();
    for (const n of this.notes.values()) {
      const targets = new Set<string>();
      for (const l of n.links) {
        const t = this.resolver.resolve(l.linkpath, n.path);
        if (t !== null && t !== n.path) targets.add(t);
      }
      out.set(n.path, targets);
      for (const t of targets) {
        let s = inc.get(t);
        if (!s) inc.set(t, (s = new Set()));
        s.add(n.path);
      }
    }
    this.out = out;
    this.inc = inc;
  }

  /** Notes this note links to (resolved, existing, not itself). */
  outgoing(path: string): ReadonlySet<string> {
    if (!this.out) this.buildGraph();
    return this.out!.get(path) ?? new Set();
  }

  /** The backlink map: notes that link to this one. */
  backlinks(path: string): ReadonlySet<string> {
    if (!this.inc) this.buildGraph();
    return this.inc!.get(path) ?? new Set();
  }
}

/** A note read for curation. Frontmatter is parsed on first use: applying a proposal needs only the links. */
class LazyNote implements CatalogNote {
  readonly links: NoteLink[];
  private parsed?: { meta: NoteMeta | null; body: string; tags: string[] };

  constructor(
    readonly path: string,
    readonly text: string,
  ) {
    this.links = parseLinks(text);
  }

  private parse(): { meta: NoteMeta | null; body: string; tags: string[] } {
    if (!this.parsed) {
      const parsed = parseNote(this.text);
      const meta = parsed.data ? readNoteMeta(this.path, parsed.data) : null;
      const bodyStart = parsed.block ? parsed.block.bodyStart : 0;
      const tags = new Set((meta?.tags ?? []).map((t) => t.toLowerCase()));
      for (const t of bodyTags(this.text, bodyStart)) tags.add(t);
      this.parsed = { meta, body: parsed.body, tags: [...tags] };
    }
    return this.parsed;
  }

  get meta(): NoteMeta | null {
    return this.parse().meta;
  }
  get body(): string {
    return this.parse().body;
  }
  get tags(): string[] {
    return this.parse().tags;
  }
}

export function catalogNote(path: string, text: string): CatalogNote {
  return new LazyNote(path, text);
}

function isSyncCopyIn(texts: Map<string, string>, path: string, text: string): boolean {
  const original = possibleCopy(path)?.original;
  const theirs = original === undefined ? undefined : texts.get(original);
  return theirs !== undefined && sameNoteVersions(theirs, text);
}

/** Reads every note of the vault (a few at a time, yielding now and then so a UI host stays responsive). */
export async function loadCatalog(vault: VaultPort, options: { yieldNow?: Yield; concurrency?: number } = {}): Promise<NoteCatalog> {
  const files = await vault.list();
  const notes: CatalogNote[] = new Array<CatalogNote>(files.length);
  const concurrency = options.concurrency ?? 16;
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const i = next++;
      try {
        const f = await vault.read(files[i].path);
        notes[i] = catalogNote(f.path, f.text);
      } catch (e) {
        // A note deleted between listing and reading is simply gone.
        if (!isEngramError(e, 'not-found')) throw e;
      }
      if (++done % 500 === 0 && options.yieldNow) await options.yieldNow();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  // A sync tool's copy named like a note (`Note 2.md` beside a near-identical `Note.md`) is a conflict, not a note.
  const texts = new Map(notes.filter(Boolean).map((n) => [n.path, n.text]));
  return new NoteCatalog(notes.filter((n) => n && !isSyncCopyIn(texts, n.path, n.text)));
}
