// The engine's reading of the vault: every note's metadata, listing and terms, read once at start (from the index's own
// read, the saved note cache, or the file), then kept in line with the vault's changes in small batches.
import { EngramError, errorMessage } from '../errors.js';
import type { VaultChange, VaultFile, VaultFileInfo, VaultPort } from '../ports.js';
import { parseNote } from '../note/frontmatter.js';
import { readNoteMeta, type NoteMeta } from '../note/meta.js';
import { searchableBody } from '../index/note-doc.js';
import { isContentTerm } from '../index/language.js';
import { lookUpNote, stripTitlePrefix, titleKey, type LookUp } from '../note/lookup.js';
import { isConflictCopy, possibleCopy, sameNoteVersions } from '../note/conflict-copy.js';
import { TermStats } from '../recall/term-stats.js';
import type { TimeSlicer } from '../time-slice.js';
import type { NoteRead } from '../index/vault-index.js';
import type { EngineIndex, EngineLog } from './index-port.js';
import type { CachedEntry } from './note-cache.js';

export interface VaultNotesDeps {
  vault: VaultPort;
  /** The engine's index (a getter: the host may hand it in after the engine is made). */
  index(): EngineIndex;
  /** Folders the engine ignores. */
  ignore: string[];
  log: EngineLog;
  slicer(): TimeSlicer;
}

/** Working-memory notes due for review on or before `today` (yyyy-mm-dd), outside the archive folder. */
export function countDue(metas: Iterable<NoteMeta>, today: string, archiveFolder: string): number {
  const archive = `${archiveFolder}/`;
  let n = 0;
  for (const m of metas) if (m.reviewAfter && m.reviewAfter <= today && !m.path.startsWith(archive)) n++;
  return n;
}

export class VaultNotes {
  readonly stats = new TermStats();
  readonly metas = new Map<string, NoteMeta>();
  /** Each note's listing (mtime, size) as last read: what a rescan and the saved note cache compare. */
  readonly listing = new Map<string, { mtime: number; size: number }>();
  /** Notes named like a sync tool's copy (`Note 2.md`), by the note they would copy: looked at again when it changes. */
  private readonly maybeCopies = new Map<string, Set<string>>();
  private readonly pendingChanges = new Map<string, VaultChange>();
  private catchingUp: Promise<void> | null = null;
  private burstSize = 0;

  constructor(private readonly d: VaultNotesDeps) {}

  isIgnored(path: string): boolean {
    return this.d.ignore.some((f) => path === f || path.startsWith(`${f}/`)) || !path.toLowerCase().endsWith('.md') || isConflictCopy(path);
  }

  /**
   * Reads every note once: an index that loads itself hands on its listing and each note it reads (so the engine
   * lists and reads none of them again), an unchanged note comes from the saved cache, and only the rest is read here.
   */
  async readAll(cached: Map<string, CachedEntry>, serving?: () => Promise<void>): Promise<void> {
    const index = this.d.index();
    const selfLoading = index.open !== undefined;
    // The saved snapshot and note cache answer context at once (the first prompt after an idle exit or a reboot);
    // the vault is listed and what changed meanwhile is read after (once `serving` says the requests waiting for
    // it are answered). Notes changed while no host ran show their saved version for those seconds.
    if (selfLoading && cached.size && (await index.load?.())) {
      const adopted = [...cached].filter(([path]) => !this.isIgnored(path));
      for (const [path, c] of adopted) this.adoptListing(path, c);
      // The terms counted at once (as `adopt` would a note at a time).
      this.stats.setMany(adopted);
      await serving?.();
    }
    const heard = new Map<string, NoteRead | null>();
    let files: VaultFileInfo[] | undefined;
    // A note named like a sync tool's copy is kept with its text: whether it is one is judged below, with the listing.
    if (index.open) await index.open({ listed: (l) => (files = l), read: (f) => heard.set(f.path, this.heard(f) ? null : f) });
    files ??= await this.d.vault.list();
    const listed = new Map(files.map((f) => [f.path, f]));
    const unchanged = (path: string) => {
      const c = cached.get(path);
      const f = listed.get(path);
      return c !== undefined && f !== undefined && c.mtime === f.mtime && c.size === f.size;
    };
    let n = 0;
    let reused = 0;
    const slicer = this.d.slicer();
    for (const f of files) {
      if (this.isIgnored(f.path)) continue;
      const c = cached.get(f.path);
      const read = heard.get(f.path);
      const copy = possibleCopy(f.path);
      // Read by the index on its way up (and taken then, unless named like a copy).
      if (read !== undefined) {
        if (read) await this.load(f.path, false, (p) => listed.has(p), read);
      } else if (selfLoading && c && unchanged(f.path) && (!copy || !listed.has(copy.original) || unchanged(copy.original))) {
        // An index that loads itself needs no text from here: an unchanged note comes from the saved cache. A note
        // named like a copy (`Note-2.md`) keeps its verdict while it and the note it would copy are both unchanged.
        // Adopted already when the engine began serving from the cache: not counted a second time.
        if (this.metas.get(f.path) !== c.meta) this.adopt(f.path, c);
        if (copy) this.trackCopy(f.path, copy.original);
        reused++;
      } else await this.load(f.path, !selfLoading, (p) => listed.has(p));
      if (++n % 200 === 0 || slicer.due()) await slicer.yield();
    }
    // Notes adopted from the cache that are gone from the vault.
    for (const path of [...this.metas.keys()]) if (!listed.has(path)) await this.drop(path);
    if (reused || heard.size) this.d.log('info', `engine: ${reused} unchanged notes from its saved cache, ${heard.size} read with the index, ${n - reused - heard.size} read`);
  }

  /** A note named like a copy of `original`: judged again whenever that note changes. */
  private trackCopy(path: string, original: string): void {
    let set = this.maybeCopies.get(original);
    if (!set) this.maybeCopies.set(original, (set = new Set()));
    set.add(path);
  }

  /** A note as the saved cache has it (its listing, metadata and terms). */
  private adopt(path: string, c: CachedEntry): void {
    this.adoptListing(path, c);
    this.stats.setMany([[path, c]]);
  }

  /** A cached note's metadata and listing (its terms are counted by the caller). */
  private adoptListing(path: string, c: CachedEntry): void {
    this.metas.set(path, c.meta);
    this.listing.set(path, { mtime: c.mtime, size: c.size });
  }

  /** A note the index read on its way up, taken as the engine's own read; false for one named like a sync tool's copy. */
  private heard(f: NoteRead): boolean {
    if (this.isIgnored(f.path) || possibleCopy(f.path)) return false;
    this.take(f.path, f, f.parsed);
    return true;
  }

  /**
   * A note's metadata, listing and terms from its file (parsed here unless the index parsed it already). The terms are
   * read from the body as the index searches it: an Excalidraw drawing's scene data (60% of the 13,415-note vault's
   * characters) is no words of the note, and reading it doubled the cost of a first start.
   */
  private take(path: string, file: Pick<VaultFile, 'text' | 'mtime' | 'size'>, given?: NoteRead['parsed']): { meta: NoteMeta } {
    let parsed = given;
    if (!parsed) {
      const note = parseNote(file.text);
      parsed = { meta: readNoteMeta(path, note.data ?? {}), body: searchableBody(note.data, note.body) };
    }
    const { meta, body } = parsed;
    this.metas.set(path, meta);
    this.listing.set(path, { mtime: file.mtime, size: file.size });
    // Cut by the index as it added the note (a first start): not tokenized a second time here.
    if (parsed.terms) this.stats.setTerms(path, parsed.terms.filter(isContentTerm));
    else this.stats.set(path, `${meta.title}\n${meta.summary ?? ''}\n${meta.tags.join(' ')}\n${body}`);
    return { meta };
  }

  /**
   * Whether a note named like a copy (`Note 2.md`, `Note (1).md`) is a sync tool's copy of a note that exists
   * (`exists`: the listing being read, or the notes known): then it is kept out of the index like any conflict copy.
   */
  private async isSyncCopy(path: string, text: string, exists: (p: string) => boolean): Promise<boolean> {
    const copy = possibleCopy(path);
    if (!copy) return false;
    this.trackCopy(path, copy.original);
    if (!exists(copy.original)) return false;
    try {
      return sameNoteVersions((await this.d.vault.read(copy.original)).text, text);
    } catch {
      return false;
    }
  }

  /** Reads one note (or takes `read`, its file as the index read it) and, with `feedIndex`, indexes it. */
  async load(path: string, feedIndex = true, exists: (p: string) => boolean = (p) => this.metas.has(p), read?: NoteRead): Promise<void> {
    try {
      const file = read ?? (await this.d.vault.read(path));
      if (await this.isSyncCopy(path, file.text, exists)) return await this.drop(path);
      const { meta } = this.take(path, file, read?.parsed);
      if (feedIndex) await this.d.index().upsert(path, file.text, meta);
    } catch (e) {
      if ((e as EngramError).code === 'not-found') await this.drop(path);
      else this.d.log('warn', `could not index ${path}: ${errorMessage(e)}`);
    }
  }

  async drop(path: string): Promise<void> {
    this.metas.delete(path);
    this.listing.delete(path);
    this.stats.remove(path);
    await this.d.index().remove(path);
  }

  /** Vault changes are coalesced per path and applied in small batches, so queries stay fast during a burst. */
  applyChange(change: VaultChange): void {
    if (change.kind === 'rename') {
      this.pendingChanges.set(change.oldPath, { kind: 'delete', path: change.oldPath });
      this.pendingChanges.set(change.path, { kind: 'modify', path: change.path });
    } else this.pendingChanges.set(change.path, change);
    this.burstSize++;
    if (!this.catchingUp) {
      this.catchingUp = this.catchUp().finally(() => {
        this.catchingUp = null;
        // After a burst (a git checkout, a sync) a watcher can miss events: rescan once it has been absorbed.
        if (this.burstSize >= 200) {
          this.burstSize = 0;
          void this.reconcile().catch((e) => this.d.log('warn', `rescan failed: ${errorMessage(e)}`));
        }
      });
    }
  }

  /** Resolves when every change seen so far is in the index. */
  async settled(): Promise<void> {
    while (this.catchingUp) await this.catchingUp;
  }

  private async catchUp(): Promise<void> {
    let n = 0;
    const slicer = this.d.slicer();
    while (this.pendingChanges.size) {
      const [path, change] = this.pendingChanges.entries().next().value as [string, VaultChange];
      this.pendingChanges.delete(path);
      if (this.isIgnored(path)) continue;
      if (change.kind === 'delete') {
        await this.drop(path);
        const original = possibleCopy(path)?.original;
        if (original !== undefined) this.maybeCopies.get(original)?.delete(path);
      } else await this.load(path);
      // A note that arrived or changed: the notes named like its copies are judged again.
      for (const copy of this.maybeCopies.get(path) ?? []) if (copy !== path && !this.pendingChanges.has(copy)) this.pendingChanges.set(copy, { kind: 'modify', path: copy });
      if (++n % 5 === 0 || slicer.due()) await slicer.yield();
    }
  }

  /** Brings the notes in line with the vault's listing: new or changed files loaded, vanished ones dropped. */
  async reconcile(): Promise<{ loaded: number; dropped: number }> {
    await this.settled();
    const files = (await this.d.vault.list()).filter((f) => !this.isIgnored(f.path));
    const present = new Set(files.map((f) => f.path));
    let loaded = 0;
    let dropped = 0;
    for (const f of files) {
      if (this.listing.get(f.path)?.mtime !== f.mtime && !this.pendingChanges.has(f.path)) {
        this.pendingChanges.set(f.path, { kind: 'modify', path: f.path });
        loaded++;
      }
    }
    for (const path of [...this.metas.keys()]) {
      if (!present.has(path)) {
        this.pendingChanges.set(path, { kind: 'delete', path });
        dropped++;
      }
    }
    if ((loaded || dropped) && !this.catchingUp) this.catchingUp = this.catchUp().finally(() => (this.catchingUp = null));
    if (loaded || dropped) this.d.log('info', `rescan: ${loaded} notes loaded, ${dropped} dropped that the watcher had missed`);
    await this.settled();
    return { loaded, dropped };
  }

  get backlog(): number {
    return this.pendingChanges.size;
  }

  /** Whether any note belongs to `project` (case aside). */
  hasProject(project: string): boolean {
    const p = project.toLowerCase();
    for (const m of this.metas.values()) if (m.project?.toLowerCase() === p) return true;
    return false;
  }

  /**
   * A note reference as a user would say it: an exact vault path (`exact`), a [[wikilink]], a title in any case, an
   * alias, or a title without its Zettelkasten or date prefix ("Go JSON Parsing" for `202211141287 - Go JSON
   * Parsing.md`). Several notes matching equally is ambiguous: `candidates` lists them and `path` is unset.
   */
  lookUp(ref: string): LookUp {
    return lookUpNote(ref, this.metas);
  }

  /** The titles closest to `ref`, for a "did you mean" (shared words first, then shared prefix). */
  closestTitles(ref: string, n = 5): string[] {
    const words = new Set(titleKey(ref).split(' ').filter((w) => w.length > 1));
    if (words.size === 0) return [];
    const scored: { path: string; score: number }[] = [];
    for (const [path, meta] of this.metas) {
      const t = titleKey(stripTitlePrefix(meta.title)).split(' ');
      const shared = t.filter((w) => words.has(w)).length;
      if (shared > 0) scored.push({ path, score: shared / Math.max(words.size, t.length) });
    }
    return scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, n).map((s) => s.path);
  }
}
