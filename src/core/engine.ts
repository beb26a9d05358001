// The one object a host creates for a vault: index, job queue, recall, context injection, note writing.
// Hosts (the daemon, the Obsidian plugin) give it Ports; pieces such as the VaultIndex and the extractor plug in.
import { lookUpNote, stripTitlePrefix, titleKey, type LookUp } from './note/lookup.js';
import { EngramError, errorMessage } from './errors.js';
import { readFormat, upgradeFormat } from './format-version.js';
import { parseJsonSteps } from './json-steps.js';
import type { StateStore } from './extract/state-store.js';
import { Curation, describeIndexVectors, type CurationOptions, type ForgetResult } from './curate/service.js';
import { Capture, type CapturePorts } from './capture/capture.js';
import type { Ports, VaultChange } from './ports.js';
import type { SearchHit, SearchOptions } from './index/types.js';
import { SEARCH_FLOOR } from './index/search.js';
import { compactList, passagesUnder, tokens } from './recall/passages.js';
import type { IndexNoteVectors } from './index/note-vectors.js';
import { parseNote } from './note/frontmatter.js';
import { readNoteMeta, type NoteMeta } from './note/meta.js';
import { isConflictCopy, possibleCopy, sameNoteVersions } from './note/conflict-copy.js';
import { VaultIndex } from './index/vault-index.js';
import { TimeSlicer } from './time-slice.js';
import { gateTokenizer, TermStats } from './recall/term-stats.js';
import { DEFAULT_GATE, judge, type GateConfig } from './recall/gate.js';
import { renderContext, renderItem } from './recall/render.js';
import { findDirectives, withholdDirectives } from './recall/directives.js';
import { DEFAULT_TRUST, type TrustConfig } from './recall/trust.js';
import { flaggedNote, heldBack, markHit, vetNote, type FlaggedNote, type MarkedHit, type Vetting } from './recall/vet.js';
import { fenceRecalled } from './transcript/fence.js';
import { withoutPrivate } from './transcript/private.js';
import { NO_PRIVATE_ZONES, privateZoneOf, type PrivateZones } from './note/private-zone.js';
import { extendNote, rememberContentProblem, rememberId, rememberNote, restatedNote, type RememberInput, type RememberResult } from './memory/remember.js';
import type { ContextItem, ContextResult, RecallResult } from './protocol/messages.js';
import type { ActivityRecord } from './activity/record.js';

/** One query's answer: the hits, and what the user should know (BM25 only, a time phrase read as a date…). */
export interface QueryAnswer {
  /** `engram search` and the Search pane get them marked (Engine.mark); the hooks and recall read the marks themselves. */
  hits: MarkedHit[];
  notices: string[];
  mode: string;
  timeFilter?: { phrase: string; since?: number; until?: number };
}

/**
 * The one reading of a query's filters, for `engram search`, `recall`, the hooks and the panes alike: the archive is
 * out unless folders are asked for, and a project means that project plus general notes and notes of no project
 * (docs/configuration.md, which project).
 */
export function recallScope(opts: SearchOptions, ...outFolders: string[]): SearchOptions {
  return {
    ...opts,
    excludeFolders: opts.folders?.length ? opts.excludeFolders : [...(opts.excludeFolders ?? []), ...outFolders],
    generalToo: opts.projects?.length ? true : opts.generalToo,
  };
}

/** Working-memory notes due for review on or before `today` (yyyy-mm-dd), outside the archive folder. */
export function countDue(metas: Iterable<NoteMeta>, today: string, archiveFolder: string): number {
  const archive = `${archiveFolder}/`;
  let n = 0;
  for (const m of metas) if (m.reviewAfter && m.reviewAfter <= today && !m.path.startsWith(archive)) n++;
  return n;
}

/** What the engine needs of a search index (IndexedVault below adapts the VaultIndex for every host). */
export interface EngineIndex {
  readonly mode: string;
  size(): number;
  /** Called with every note's text at start and on each change. */
  upsert(path: string, text: string, meta: NoteMeta): Promise<void>;
  remove(path: string): Promise<void>;
  search(query: string, opts: SearchOptions): Promise<QueryAnswer>;
  /** Persist (snapshot) before exit or handover. */
  save?(): Promise<void>;
  /** An index that loads and syncs itself (snapshot + catch-up) instead of being fed every note at start. */
  open?(): Promise<void>;
  /** Each note's vector (mean of its chunks), when the index has embeddings: curation's "close in meaning". */
  noteVectors?(): IndexNoteVectors | null;
  /** The notes that link to a note (body wikilinks or `related:`), from the index's link graph. */
  linksTo?(path: string): string[];
}

export interface EngineConfig {
  /** `log`: Engram's change log (who moved what); like the archive, never recalled unless asked for by folder. */
  folders: { inbox: string; projects: string; working: string; archive: string; log: string };
  gate: GateConfig;
  /** Folders the engine ignores: the host passes the vault's config folder (Vault#configDir) and trash. */
  ignore: string[];
  /** Which folders hold outside text, which the user's own (recall/trust.ts). */
  trust: TrustConfig;
  /** Folders and tags never injected nor given to agents (note/private-zone.ts). */
  privateZones: PrivateZones;
}

export type { FlaggedNote, Vetting } from './recall/vet.js';


/** A note a hook would have injected but held back, as the activity record shows it. */
export interface Withheld {
  event: 'SessionStart' | 'UserPromptSubmit';
  path: string;
  /** The passage that matched, when the note is held back for that passage only. */
  heading?: string;
  reason: string;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  folders: { inbox: 'Engram/Inbox', projects: 'Engram/Projects', working: 'Engram/Working memory', archive: 'Engram/Archive', log: 'Engram/Log' },
  gate: DEFAULT_GATE,
  ignore: ['.trash', '.git'],
  trust: DEFAULT_TRUST,
  privateZones: NO_PRIVATE_ZONES,
};

export type EngineLog = (level: 'info' | 'warn' | 'error', message: string) => void;


export interface EngineOptions {
  ports: Ports;
  config?: Partial<EngineConfig>;
  index?: EngineIndex;
  log?: EngineLog;
  /** Told of each note a hook held back (outside text, words addressed to an AI): the activity record's feed. */
  onWithheld?: (w: Withheld) => void;
  /**
   * Curation for this vault (review, restructure, maintain, apply, forget): the host's state store, settings and
   * backend; the engine gives it the vault, the clock and its index's vectors. Without it forget is unavailable.
   */
  curation?: Omit<CurationOptions, 'vault' | 'clock' | 'yieldNow' | 'vectors'>;
  /** Capture (spooled hook events to extraction jobs) over the host's spool, transcript and coverage ports. */
  capture?: CapturePorts;
  /**
   * Where the engine keeps what must outlive a restart, in the host's state store under `dir` (the daemon:
   * vaults/<key>): which notes each session was given (injected.json: a restarted host still never injects a note
   * twice), and each note's metadata and terms (notes.json: a restart reads only the notes that changed).
   */
  persist?: { store: StateStore; dir: string };
  /** The activity record (src/core/activity/record.ts): every injection, with what was withheld and why. */
  activity?: ActivityRecord;
}

const INJECTED_FORMAT = { name: 'injected.json', current: 1, field: 'format' as const };
// 2: terms cut by script and stemmed per language (index/language.ts): a cache of older terms is dropped and its notes read again.
// 3: metadata reads `inject: false` (NoteMeta.noInject): an older cache is dropped and its notes read again.
const NOTES_FORMAT = { name: 'notes.json', current: 3, field: 'format' as const, migrations: { 1: () => ({ terms: [], notes: [] }), 2: () => ({ terms: [], notes: [] }) } };

/** A note as the engine last read it: its listing, metadata and terms (indices into the cache's term list). */
type CachedNote = [path: string, mtime: number, size: number, meta: Omit<NoteMeta, 'path'>, terms: number[]];

/** Where an index keeps its snapshot between runs (the daemon: a file under $ENGRAM_HOME, written atomically). */
export interface SnapshotStore {
  read(): Promise<Uint8Array | null>;
  write(bytes: Uint8Array): Promise<void>;
}

/**
 * The one adapter of the VaultIndex to the engine, for every host: with a snapshot store it opens from the snapshot
 * and catches up with the vault; without one (the built-in fallback, tests) it is fed every note at start.
 */
export class IndexedVault implements EngineIndex {
  constructor(
    readonly index: VaultIndex,
    /** `afterOpen`: once the text index is up (the host attaches its embedder then: recall works on BM25 at once). */
    private readonly opts: { snapshot?: SnapshotStore; log?: EngineLog; label?: string; afterOpen?: () => void } = {},
  ) {
    if (opts.snapshot) this.open = () => this.openSnapshot(opts.snapshot!);
  }

  /** Only with a snapshot store (the engine feeds every note otherwise). */
  open?: () => Promise<void>;

  get mode(): string {
    return this.opts.label ?? this.index.stats().mode;
  }
  size(): number {
    return this.index.stats().notes;
  }
  private async openSnapshot(store: SnapshotStore): Promise<void> {
    const report = await this.index.open(await store.read().catch(() => null));
    this.opts.log?.('info', `index open: snapshot ${report.loaded ? 'loaded' : `not used (${report.reason})`}, ${report.indexed} indexed, ${report.unchanged} unchanged, ${report.removed} removed in ${report.ms} ms`);
    this.opts.afterOpen?.();
  }
  upsert(path: string, text: string): Promise<void> {
    this.index.updateText(path, text);
    return Promise.resolve();
  }
  remove(path: string): Promise<void> {
    this.index.remove(path);
    return Promise.resolve();
  }
  async search(query: string, opts: SearchOptions): Promise<QueryAnswer> {
    const { hits, notices, mode, timeFilter } = await this.index.search(query, opts);
    return { hits, notices, mode: this.opts.label ?? mode, timeFilter };
  }
  noteVectors(): IndexNoteVectors | null {
    return this.index.noteVectors();
  }
  linksTo(path: string): string[] {
    return this.index.linksTo(path);
  }
  async save(): Promise<void> {
    if (this.opts.snapshot) await this.opts.snapshot.write(await this.index.snapshotAsync());
  }
}

export class Engine {
  readonly ports: Ports;
  readonly config: EngineConfig;
  index: EngineIndex;
  private readonly stats = new TermStats();
  private readonly metas = new Map<string, NoteMeta>();
  /** Each note's listing (mtime, size) as last read: what a rescan and the saved note cache compare. */
  private readonly listing = new Map<string, { mtime: number; size: number }>();
  /** Notes as a previous run saved them (notes.json), used at start for the ones whose listing is unchanged. */
  private cached = new Map<string, { mtime: number; size: number; meta: NoteMeta; terms: string[] }>();
  private burstSize = 0;
  private readonly injected = new Map<string, Set<string>>();
  /** Characters injected so far per session (the per-session budget; afresh after /compact or /clear). */
  private readonly injectedChars = new Map<string, number>();
  /** Each vetted note's verdict, kept while its file is unchanged (same mtime and size). */
  private readonly vetted = new Map<string, { mtime: number; size: number; v: Vetting }>();
  private readonly log: EngineLog;
  /** Curation for this vault, when the host gave it what it needs. */
  readonly curation?: Curation;
  /** Capture for this vault, when the host gave it its ports. */
  readonly capture?: Capture;
  /** What the engine saw, captured and injected, when the host keeps a record. */
  readonly activity?: ActivityRecord;
  private readonly pendingChanges = new Map<string, VaultChange>();
  private catchingUp: Promise<void> | null = null;
  /** Recall statistics are written one after another (read-modify-write of one file), off the answer's path. */
  private recording: Promise<void> = Promise.resolve();
  ready = false;
  private readyResolve!: () => void;
  private readonly readyPromise = new Promise<void>((resolve) => (this.readyResolve = resolve));

  constructor(private readonly opts: EngineOptions) {
    this.ports = opts.ports;
    this.config = { ...DEFAULT_ENGINE_CONFIG, ...opts.config };
    this.index = opts.index ?? new IndexedVault(new VaultIndex({ vault: opts.ports.vault, clock: opts.ports.clock, yieldNow: opts.ports.yieldNow, autoEmbed: false }), { label: 'bm25 (built-in fallback)' });
    this.log = opts.log ?? (() => {});
    if (opts.curation) {
      // Curation compares notes by the live index's vectors when it has embeddings, and finds due notes in the
      // metadata read here (once the first full read is done).
      this.curation = new Curation({
        ...opts.curation,
        vault: opts.ports.vault,
        clock: opts.ports.clock,
        yieldNow: opts.ports.yieldNow,
        vectors: () => describeIndexVectors(this.index.noteVectors?.()),
        metas: () => (this.ready ? this.metas : undefined),
        // Private notes never reach review's or restructure's model calls (note/private-zone.ts).
        privateZones: this.config.privateZones,
      });
    }
    if (opts.capture) this.capture = new Capture(opts.capture);
    this.activity = opts.activity;
  }

  isIgnored(path: string): boolean {
    return this.config.ignore.some((f) => path === f || path.startsWith(`${f}/`)) || !path.toLowerCase().endsWith('.md') || isConflictCopy(path);
  }

  /** Resolves once the first full read of the vault is done (requests that need every note's metadata wait). */
  whenReady(): Promise<void> {
    return this.readyPromise;
  }

  /** Reads every note once (term statistics, metadata and, for the fallback, the index). */
  async start(): Promise<void> {
    await this.restorePersisted();
    const selfLoading = this.index.open !== undefined;
    if (this.index.open) await this.index.open();
    const files = await this.ports.vault.list();
    const listed = new Set(files.map((f) => f.path));
    let n = 0;
    let reused = 0;
    const slicer = this.slicer();
    for (const f of files) {
      if (this.isIgnored(f.path)) continue;
      const c = this.cached.get(f.path);
      // An index that loads itself needs no text from here: an unchanged note comes from the saved cache.
      if (selfLoading && c && c.mtime === f.mtime && c.size === f.size && !possibleCopy(f.path)) {
        this.metas.set(f.path, c.meta);
        this.listing.set(f.path, { mtime: f.mtime, size: f.size });
        this.stats.setTerms(f.path, c.terms);
        reused++;
      } else await this.load(f.path, !selfLoading, (p) => listed.has(p));
      if (++n % 200 === 0 || slicer.due()) await slicer.yield();
    }
    this.cached = new Map();
    if (reused) this.log('info', `engine: ${reused} unchanged notes from its saved cache, ${n - reused} read`);
    this.ready = true;
    this.readyResolve();
    this.log('info', `engine ready: ${this.stats.size} notes, index ${this.index.mode}`);
  }

  /** Notes named like a sync tool's copy (`Note 2.md`), by the note they would copy: looked at again when it changes. */
  private readonly maybeCopies = new Map<string, Set<string>>();

  /**
   * Whether a note named like a copy (`Note 2.md`, `Note (1).md`) is a sync tool's copy of a note that exists
   * (`exists`: the listing being read, or the notes known): then it is kept out of the index like any conflict copy.
   */
  private async isSyncCopy(path: string, text: string, exists: (p: string) => boolean): Promise<boolean> {
    const copy = possibleCopy(path);
    if (!copy) return false;
    let set = this.maybeCopies.get(copy.original);
    if (!set) this.maybeCopies.set(copy.original, (set = new Set()));
    set.add(path);
    if (!exists(copy.original)) return false;
    try {
      return sameNoteVersions((await this.ports.vault.read(copy.original)).text, text);
    } catch {
      return false;
    }
  }

  private async load(path: string, feedIndex = true, exists: (p: string) => boolean = (p) => this.metas.has(p)): Promise<void> {
    try {
      const file = await this.ports.vault.read(path);
      if (await this.isSyncCopy(path, file.text, exists)) return await this.drop(path);
      const parsed = parseNote(file.text);
      const meta = readNoteMeta(path, parsed.data ?? {});
      this.metas.set(path, meta);
      this.listing.set(path, { mtime: file.mtime, size: file.size });
      this.stats.set(path, `${meta.title}\n${meta.summary ?? ''}\n${meta.tags.join(' ')}\n${parsed.body}`);
      if (feedIndex) await this.index.upsert(path, file.text, meta);
    } catch (e) {
      if ((e as EngramError).code === 'not-found') await this.drop(path);
      else this.log('warn', `could not index ${path}: ${errorMessage(e)}`);
    }
  }

  private async drop(path: string): Promise<void> {
    this.metas.delete(path);
    this.listing.delete(path);
    this.stats.remove(path);
    await this.index.remove(path);
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
          void this.reconcile().catch((e) => this.log('warn', `rescan failed: ${errorMessage(e)}`));
        }
      });
    }
  }

  /** Resolves when every change seen so far is in the index. */
  async settled(): Promise<void> {
    while (this.catchingUp) await this.catchingUp;
  }

  /** Yields to the host by time, not by a count of notes (a large note costs as much as a hundred small ones). */
  private slicer(): TimeSlicer {
    return new TimeSlicer(this.ports.clock, this.ports.yieldNow);
  }

  private async catchUp(): Promise<void> {
    let n = 0;
    const slicer = this.slicer();
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

  /** Brings the engine in line with the vault's listing: new or changed files loaded, vanished ones dropped. */
  async reconcile(): Promise<{ loaded: number; dropped: number }> {
    await this.settled();
    const files = (await this.ports.vault.list()).filter((f) => !this.isIgnored(f.path));
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
    if (loaded || dropped) this.log('info', `rescan: ${loaded} notes loaded, ${dropped} dropped that the watcher had missed`);
    await this.settled();
    return { loaded, dropped };
  }

  get backlog(): number {
    return this.pendingChanges.size;
  }

  noteCount(): number {
    return this.metas.size;
  }

  /** Working-memory notes due for review on or before `today` (yyyy-mm-dd), outside the archive. */
  dueCount(today: string): number {
    return countDue(this.metas.values(), today, this.config.folders.archive);
  }

  meta(path: string): NoteMeta | undefined {
    return this.metas.get(path);
  }

  /** Every note's metadata as last read (the dashboard counts them). */
  notes(): Iterable<NoteMeta> {
    return this.metas.values();
  }

  /** Whether any note belongs to `project` (case aside). */
  hasProject(project: string): boolean {
    const p = project.toLowerCase();
    for (const m of this.metas.values()) if (m.project?.toLowerCase() === p) return true;
    return false;
  }

  /** Resolves a title, a path or a [[wikilink]] to one note of the vault; undefined when none or several match. */
  resolveRef(ref: string): string | undefined {
    const r = this.lookUp(ref);
    return r.path;
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

  /** The one note `ref` names, or a not-found / ambiguous error that lists what the user may have meant. */
  private noteFor(ref: string, verb: string): { path: string; exact: boolean } {
    const r = this.lookUp(ref);
    if (r.path) return { path: r.path, exact: r.exact };
    if (r.candidates.length > 1) {
      throw new EngramError('conflict', `"${ref}" matches ${r.candidates.length} notes: ${r.candidates.slice(0, 10).join(', ')}${r.candidates.length > 10 ? ', …' : ''}`, `${verb} one of them by its vault path`);
    }
    const close = this.closestTitles(ref);
    throw new EngramError('not-found', `no note matches "${ref}"`, close.length ? `closest: ${close.join(', ')}` : 'check the title, or give the vault path');
  }

  /**
   * The one road for a query (`engram search`, recall, the hooks): the index under `recallScope`. Archived notes
   * (forgotten, or past forget_after) are out; asked for with a folder filter, they come back. A project filter means
   * "this project plus general notes": notes with scope general or no project at all (the user's own) stay.
   */
  async query(query: string, opts: SearchOptions = {}): Promise<QueryAnswer> {
    return this.index.search(query, recallScope(opts, this.config.folders.archive, this.config.folders.log));
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    return (await this.query(query, opts)).hits;
  }

  /**
   * The notes closest to `path` and the notes that cite it (the "related to this note" pane). Closest goes through the
   * one search road: the note's rarest shared words for BM25 and, where the index has embeddings, the note's own vector
   * for meaning (an index that does not take `queryVector` embeds the words instead). Citing: notes linking to it,
   * Engram's own notes first.
   */
  async related(path: string, limit = 10): Promise<{ similar: SearchHit[]; citing: string[] }> {
    const meta = this.metas.get(path);
    if (!meta) throw new EngramError('not-found', `no indexed note at ${path}`, 'give the vault path of a Markdown note outside the ignored folders');
    const body = parseNote((await this.ports.vault.read(path)).text).body;
    const said = gateTokenizer.wordsByTerm(`${meta.title}\n${meta.summary ?? ''}\n${meta.tags.join(' ')}\n${body}`);
    // Words another note shares (document frequency of two or more), rarest first: what makes this note itself.
    const terms = (this.stats.termsOf(path) ?? []).filter((t) => said.has(t) && this.stats.docFreq(t) >= 2);
    terms.sort((a, b) => this.stats.idf(b) - this.stats.idf(a) || (a < b ? -1 : 1));
    const words = terms.slice(0, 12).map((t) => said.get(t)!.toLowerCase()).join(' ');
    const queryVector = this.index.noteVectors?.()?.vector(path);
    const opts: SearchOptions & { queryVector?: Float32Array } = { limit: limit + 1, timePhrases: false, ...(queryVector ? { queryVector } : {}) };
    const similar = words || queryVector ? (await this.query(words || meta.title, opts)).hits.filter((h) => h.path !== path).slice(0, limit) : [];
    const out = new Set([`${this.config.folders.archive}/`, `${this.config.folders.log}/`]);
    const engram = (p: string): number => (this.metas.get(p)?.engramId ?? this.metas.get(p)?.engramSource ? 0 : 1);
    const citing = (this.index.linksTo?.(path) ?? []).filter((p) => ![...out].some((f) => p.startsWith(f)));
    citing.sort((a, b) => engram(a) - engram(b) || (a < b ? -1 : a > b ? 1 : 0));
    return { similar, citing };
  }

  /**
   * A note's provenance and the directive-shaped text it holds (frontmatter included: a summary is injected too), read
   * when a hook or recall is about to show it; kept until the file changes. Null when the note cannot be read.
   */
  async vet(path: string): Promise<Vetting | null> {
    const listed = this.listing.get(path);
    const cached = this.vetted.get(path);
    if (cached && listed && cached.mtime === listed.mtime && cached.size === listed.size) return cached.v;
    try {
      const file = await this.ports.vault.read(path);
      const v = vetNote(path, file.text, this.config.trust);
      this.vetted.set(path, { mtime: file.mtime, size: file.size, v });
      if (this.vetted.size > 50_000) this.vetted.delete(this.vetted.keys().next().value as string);
      return v;
    } catch {
      return null;
    }
  }

  /** Why a note is private (a private folder or tag), or undefined: never injected, never given to an agent. */
  privateZone(path: string): string | undefined {
    const m = this.metas.get(path);
    return privateZoneOf({ path, tags: m?.tags, project: m?.project }, this.config.privateZones);
  }

  /** The answer's hits marked for people: outside text, text addressed to an AI (`engram search`, the Search pane). */
  async mark(answer: QueryAnswer): Promise<QueryAnswer> {
    const hits: MarkedHit[] = [];
    for (const h of answer.hits) {
      const v = await this.vet(h.path);
      hits.push(v ? markHit(h, v) : h);
    }
    return { ...answer, hits };
  }

  /** Why a hook must not inject this note's `passage` (see heldBack), or null when it may (the user's or Engram's words, nothing addressed to an AI). */
  private async notInjected(path: string, passage: string | null): Promise<string | null> {
    const zone = this.privateZone(path);
    if (zone) return zone;
    if (this.metas.get(path)?.noInject) return 'inject: false in its frontmatter';
    const v = await this.vet(path);
    if (!v) return 'unreadable';
    const d = heldBack(v, passage);
    if (d) return `${d.kind}: "${d.excerpt}"`;
    if (v.trust.level === 'outside') return `outside text (${v.trust.why})`;
    return null;
  }

  /**
   * Every note holding text addressed to an AI (the user's own raised notes aside), for the review pane, `engram
   * flagged` and the activity record; read once per file version (vet's cache).
   */
  async flagged(): Promise<FlaggedNote[]> {
    await this.whenReady();
    const out: FlaggedNote[] = [];
    const slicer = this.slicer();
    const skip = [`${this.config.folders.archive}/`, `${this.config.folders.log}/`];
    for (const [path, meta] of [...this.metas].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (skip.some((f) => path.startsWith(f))) continue;
      if (slicer.due()) await slicer.yield();
      const v = await this.vet(path);
      const f = v && flaggedNote(path, meta.title, v);
      if (f) out.push(f);
    }
    return out;
  }

  async recall(query: string, opts: SearchOptions & { full?: number } = {}): Promise<RecallResult> {
    // What an agent asks for: private notes are not among the answers (the person's own search still finds them).
    const hits = (await this.search(query, { limit: 8, ...opts })).filter((h) => !this.privateZone(h.path));
    const full = opts.full ?? 3;
    const out: RecallResult['hits'] = [];
    for (const [i, hit] of hits.entries()) {
      if (i < full) {
        try {
          out.push({ ...hit, body: parseNote((await this.ports.vault.read(hit.path)).text).body.slice(0, 6000) });
          continue;
        } catch {
          // fall through to the snippet
        }
      }
      out.push(hit);
    }
    // Outside text is marked as such; words addressed to an AI are withheld, in the body and in the snippet alike.
    for (const [i, h] of out.entries()) {
      const v = await this.vet(h.path);
      if (!v) continue;
      out[i] = markHit(h, v);
      if (!v.directives.length || v.trust.byUser) continue;
      const m = out[i];
      if (m.body) m.body = withholdDirectives(m.body, m.path);
      // A snippet is cut from its passage: a flagged passage is withheld whole, whatever part of it the cut kept.
      m.snippet = heldBack(v, m.heading ?? '') ? `[text addressed to AI assistants withheld: ${m.path}${m.heading ? `#${m.heading}` : ''}]` : withholdDirectives(m.snippet, m.path);
      if (m.summary) m.summary = withholdDirectives(m.summary, m.path);
    }
    const lines = full === 0 ? compactList(out) : out.map((h) => `${renderItem({ ...h, why: h.why }, 300)}${h.body ? `\n\n${h.body.trim()}\n` : ''}`);
    this.noteRecalled(out.map((h) => h.path));
    // A project with no notes of its own gets general notes at most, and is told so (never other projects' notes).
    const unknown = (opts.projects ?? []).filter((p) => !this.hasProject(p));
    let preface = unknown.length ? `No notes are filed under project ${unknown.map((p) => `"${p}"`).join(', ')} yet${out.length ? '; these are general notes' : ''}. Search every project with all_projects.\n` : '';
    // The floor: weak hits are shown, but said to be weak first (the best passage shares little of the query).
    if (out.length && (out[0].coverage ?? 1) < SEARCH_FLOOR && !out[0].why.some((w) => w.startsWith('meaning'))) preface += 'No close match: the nearest notes share little of the query.\n';
    const head = full === 0 ? `Notes from the user's vault (${out.length}; read one with the read tool, by path, or path#heading for the passage):` : `Notes from the user's vault (${out.length}):`;
    const text = out.length ? `${preface}${fenceRecalled(`${head}\n${lines.join('\n')}`)}` : `${preface}No notes matched.`;
    return { hits: out, text, mode: this.index.mode };
  }

  /**
   * Context for a hook: only notes that clear the relevance bar, never one already in this session's context. A
   * SessionStart after `/compact` or `/clear` (`source`) starts that context afresh: what was injected before is gone
   * from the model's view, so the project's notes come back.
   */
  async context(p: {
    event: 'SessionStart' | 'UserPromptSubmit';
    source?: string;
    prompt?: string;
    sessionId?: string;
    project?: string;
    maxChars: number;
    maxItems: number;
    /** Most characters injected over the session, all events together (0 or absent: no limit). */
    sessionChars?: number;
  }): Promise<ContextResult> {
    if (p.event === 'SessionStart' && p.sessionId && (p.source === 'compact' || p.source === 'clear')) {
      this.injected.delete(p.sessionId);
      this.injectedChars.delete(p.sessionId);
    }
    if (p.sessionId && p.sessionChars) {
      // The per-session budget: what is left of it caps this event's budget; nothing fits, nothing is injected.
      const left = p.sessionChars - (this.injectedChars.get(p.sessionId) ?? 0);
      if (left < 200) return { items: [] };
      p = { ...p, maxChars: Math.min(p.maxChars, left) };
    }
    const seen = p.sessionId ? (this.injected.get(p.sessionId) ?? new Set<string>()) : new Set<string>();
    const items: (ContextItem & { summary?: string; snippet?: string; heading?: string; type?: string })[] = [];
    // Notes a hook would have injected but must not (outside text, words addressed to an AI): said in the activity record.
    const withheld: Withheld[] = [];
    if (p.event === 'SessionStart') {
      // At session start the bar is the project itself: the project's own notes, newest first.
      for (const meta of this.projectNotes(p.project)) {
        if (items.length >= p.maxItems) break;
        if (seen.has(meta.path)) continue;
        // Only the title and summary go out at session start.
        const no = await this.notInjected(meta.path, null);
        if (no) {
          withheld.push({ event: p.event, path: meta.path, reason: no });
          continue;
        }
        const when = meta.updated ?? meta.created;
        const why = [`note of project ${meta.project}`, ...(when ? [`updated ${new Date(when).toISOString().slice(0, 10)}`] : [])];
        items.push({ path: meta.path, title: meta.title, why, score: when ?? 0, summary: meta.summary, type: meta.type });
      }
      return this.finishContext(p, items, seen, withheld);
    }
    // A private span in the prompt is not even searched for.
    const query = withoutPrivate(p.prompt ?? '').text;
    if (!query.trim()) return { items: [] };
    // Automatic injection reads the prompt as a topic: "last week" in a question must not filter notes by date.
    const hits = await this.search(query, { limit: 12, projects: p.project ? [p.project] : undefined, timePhrases: false });
    const said = gateTokenizer.wordsByTerm(query);
    for (const hit of hits) {
      if (items.length >= p.maxItems) break;
      if (seen.has(hit.path)) continue;
      // The bar is read on the passage that matched (with the note's title, summary and tags), not the whole note: a
      // long list note holds every word of any prompt somewhere.
      const terms = hit.terms ?? this.stats.termsOf(hit.path);
      if (!terms) continue;
      const verdict = judge(query, terms, this.stats, this.config.gate);
      if (!verdict.pass) continue;
      // The passage that matched is what goes out (its heading and a snippet of it): only it must be clean. The text
      // itself is read too, in case the index's passage is older than the file vet read.
      const shown = findDirectives([hit.title, hit.summary ?? '', hit.heading ?? '', hit.snippet].join('\n'))[0];
      const no = (await this.notInjected(hit.path, hit.heading ?? '')) ?? (shown && !(await this.vet(hit.path))?.trust.byUser ? `${shown.kind}: "${shown.excerpt}"` : null);
      if (no) {
        withheld.push({ event: 'UserPromptSubmit', path: hit.path, ...(hit.heading ? { heading: hit.heading } : {}), reason: no });
        continue;
      }
      const why = [...hit.why.filter((w) => !w.startsWith('words:')), `shares: ${verdict.matched.slice(0, 6).map((t) => said.get(t) ?? t).join(', ')}`];
      items.push({ path: hit.path, title: hit.title, why, score: hit.score, summary: hit.summary, snippet: hit.snippet, heading: hit.heading, type: hit.type });
    }
    return this.finishContext(p, items, seen, withheld);
  }

  /** A project's notes that are current (not superseded, not archived), newest first. */
  private projectNotes(project: string | undefined): NoteMeta[] {
    if (!project) return [];
    const archive = `${this.config.folders.archive}/`;
    return [...this.metas.values()]
      .filter((m) => m.project === project && !m.supersededBy && !m.path.startsWith(archive))
      .sort((a, b) => (b.updated ?? b.created ?? 0) - (a.updated ?? a.created ?? 0));
  }

  private finishContext(
    p: { event: 'SessionStart' | 'UserPromptSubmit'; sessionId?: string; project?: string; maxChars: number },
    items: (ContextItem & { summary?: string; snippet?: string; heading?: string; type?: string })[],
    seen: Set<string>,
    withheld: Withheld[] = [],
  ): ContextResult {
    if (withheld.length) this.log('info', `withheld from ${p.event} injection: ${withheld.map((w) => `${w.path}${w.heading ? `#${w.heading}` : ''} (${w.reason})`).join(', ')}`);
    for (const w of withheld) this.opts.onWithheld?.(w);
    const heading = p.event === 'SessionStart' ? 'Notes from the user\'s Obsidian vault about this project (reference data):' : 'Possibly relevant notes from the user\'s Obsidian vault (reference data):';
    const { text, used } = renderContext(items, p.maxChars, heading);
    const kept = items.slice(0, used);
    this.noteRecalled(kept.map((k) => k.path));
    if (p.sessionId && kept.length) {
      for (const k of kept) seen.add(k.path);
      this.injected.set(p.sessionId, seen);
      this.injectedChars.set(p.sessionId, (this.injectedChars.get(p.sessionId) ?? 0) + (text?.length ?? 0));
      if (this.injectedChars.size > 500) this.injectedChars.delete(this.injectedChars.keys().next().value as string);
    }
    // What went out and its size, for the activity record.
    if (kept.length) this.log('info', `injected ${p.event}: ${kept.length} notes, ${text?.length ?? 0} chars (${kept.map((k) => k.path).join(', ')})`);
    const chars = text?.length ?? 0;
    this.activity?.add({
      kind: 'inject',
      event: p.event,
      session: p.sessionId,
      project: p.project,
      notes: kept.map((k) => ({ path: k.path, title: k.title, why: k.why, ...(k.heading ? { heading: k.heading } : {}) })),
      chars,
      tokens: chars ? tokens(chars) : 0,
      withheld: withheld.map((w) => ({ path: w.path, why: w.reason, ...(w.heading ? { heading: w.heading } : {}) })),
    });
    return { text, items: kept.map(({ path, title, why, score }) => ({ path, title, why, score })) };
  }

  /**
   * A note in full, or one passage of it: `path#Heading` (or `#Parent > Heading`, as recall lists it) returns the
   * passages under that heading, with the heading path; a heading the note lacks is a not-found error naming those it has.
   */
  async read(ref: string): Promise<{ path: string; title: string; text: string; heading?: string }> {
    const { path } = this.noteFor(ref, 'read');
    const zone = this.privateZone(path);
    if (zone) throw new EngramError('refused', `${path} is in a ${zone}: it is not given to agents`, 'the user can read it in Obsidian');
    const file = await this.ports.vault.read(path);
    const title = this.metas.get(path)?.title ?? path;
    const hash = ref.replace(/\]\]$/, '').split('|')[0].indexOf('#');
    const wanted = hash >= 0 ? ref.replace(/\]\]$/, '').split('|')[0].slice(hash + 1).trim() : '';
    // Words addressed to an AI are withheld from what an agent reads, as from recall, unless the user raised the note.
    const byUser = (await this.vet(path))?.trust.byUser === true;
    const directives = byUser ? [] : findDirectives(file.text);
    if (!wanted) return { path, title, text: directives.length ? withholdDirectives(file.text, path, directives) : file.text };
    const found = passagesUnder(parseNote(file.text).body, wanted);
    if (!found.text) {
      throw new EngramError('not-found', `no heading "${wanted}" in ${path}`, found.headings.length ? `headings: ${found.headings.slice(0, 12).join('; ')}` : 'the note has no headings: read it whole');
    }
    return { path, title, text: byUser ? found.text : withholdDirectives(found.text, path), heading: found.heading };
  }

  /** Files a note (or finds the one this text already made: then nothing is written and `existed` is true). */
  async remember(input: RememberInput): Promise<RememberResult> {
    const byId = (id: string) => [...this.metas.values()].find((m) => m.engramId === id)?.path;
    const body = input.text.trim();
    if (body && !rememberContentProblem(body) && !byId(rememberId(body.replace(/\r\n/g, '\n'), input.scope === 'general' ? undefined : input.project)) && input.onDuplicate !== 'new') {
      // A paraphrase of a note: name it and offer to extend it, rather than file a second copy.
      const hits = (await this.query(body.slice(0, 500), { limit: 8, mode: 'bm25' })).hits;
      const candidates: { path: string; title: string; text: string }[] = [];
      for (const h of hits) {
        const text = await this.ports.vault.read(h.path).then((f) => f.text, () => undefined);
        if (text !== undefined) candidates.push({ path: h.path, title: this.metas.get(h.path)?.title ?? h.path, text });
      }
      const dup = await restatedNote(body, candidates);
      if (dup && input.onDuplicate === 'extend') {
        if (this.metas.get(dup.path)?.locked) throw new EngramError('refused', `${dup.path} is locked: it cannot be extended`, 'remember with onDuplicate "new" to file a note of its own');
        await extendNote(this.ports.vault, dup.path, body, this.ports.clock.now());
        await this.load(dup.path);
        return { path: dup.path, existed: false, duplicateOf: dup, extended: true };
      }
      if (dup) return { path: dup.path, existed: false, duplicateOf: dup };
    }
    const r = await rememberNote(this.ports.vault, this.config.folders, input, this.ports.clock.now(), byId);
    if (!r.existed) await this.load(r.path);
    return r;
  }

  /**
   * Forget (docs/curation.md): the note moves into the archive folder through curation, which logs it in the vault;
   * it leaves recall at once (the archive is never recalled) and can be moved back by hand.
   */
  async forget(ref: string, opts: { byUser?: boolean; actor?: string } = {}): Promise<ForgetResult> {
    if (!this.curation) throw new EngramError('refused', 'forget needs the curation service, which this host did not start');
    const r = await this.curation.forget(ref, opts);
    // Applied now rather than when the watcher reports it: the next recall must already miss the note.
    for (const [from, to] of r.moved) this.applyChange({ kind: 'rename', oldPath: from, path: to });
    for (const p of r.relinked) this.applyChange({ kind: 'modify', path: p });
    await this.settled();
    return { path: r.path, archivedTo: r.archivedTo, relinked: r.relinked, log: r.log };
  }

  /** Tells curation which notes a recall returned (so `engram maintain` can list the stale ones); never blocks the answer. */
  private noteRecalled(paths: string[]): void {
    const curation = this.curation;
    if (!curation || paths.length === 0) return;
    this.recording = this.recording
      .then(() => curation.recordRecall(paths))
      .catch((e) => this.log('warn', `could not record recall statistics: ${errorMessage(e)}`));
  }

  /** Resolves when the recall statistics of every recall so far are written (before exit or handover). */
  recallStatsWritten(): Promise<void> {
    return this.recording;
  }

  async reindex(): Promise<{ notes: number }> {
    const slicer = this.slicer();
    for (const path of [...this.metas.keys()]) {
      await this.drop(path);
      await slicer.pause();
    }
    await this.start();
    return { notes: this.metas.size };
  }

  /** Saves the index snapshot and what must outlive a restart (before exit or handover). */
  async save(): Promise<void> {
    await this.index.save?.();
    await this.recallStatsWritten();
    const persist = this.opts.persist;
    if (!persist) return;
    // The 500 most recent sessions: what was injected, so a restarted host never injects a note twice in a session.
    const sessions = Object.fromEntries([...this.injected.entries()].slice(-500).map(([k, v]) => [k, [...v]]));
    await persist.store.write(`${persist.dir}/injected.json`, JSON.stringify({ format: INJECTED_FORMAT.current, sessions }));
    if (this.ready) await persist.store.write(`${persist.dir}/notes.json`, await this.notesCache());
  }

  /**
   * Every note's listing, metadata and terms, with the terms written once (indices into one list). The JSON of
   * `{ format, terms, notes }`, built a note at a time so the host gets turns (megabytes for a large vault).
   */
  private async notesCache(): Promise<string> {
    const ids = new Map<string, number>();
    const notes: string[] = [];
    const slicer = this.slicer();
    for (const [path, m] of this.metas) {
      const seen = this.listing.get(path);
      const terms = this.stats.termsOf(path);
      if (!seen || !terms) continue;
      const { path: _p, ...meta } = m;
      const note: CachedNote = [path, seen.mtime, seen.size, meta, terms.map((t) => ids.get(t) ?? (ids.set(t, ids.size), ids.size - 1))];
      notes.push(JSON.stringify(note));
      if (slicer.due()) await slicer.yield();
    }
    return `{"format":${JSON.stringify(NOTES_FORMAT.current)},"terms":${JSON.stringify([...ids.keys()])},"notes":[${notes.join(',')}]}`;
  }

  private async restorePersisted(): Promise<void> {
    const persist = this.opts.persist;
    if (!persist) return;
    try {
      const saved = readFormat(INJECTED_FORMAT, await persist.store.read(`${persist.dir}/injected.json`));
      const sessions = (saved?.data.sessions ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(sessions)) if (Array.isArray(v)) this.injected.set(k, new Set(v.filter((x): x is string => typeof x === 'string')));
    } catch (e) {
      // Damaged or newer: start empty (at worst a note is injected once more), and say so.
      this.log('warn', `injected-notes state not restored: ${errorMessage(e)}`);
    }
    try {
      const text = await persist.store.read(`${persist.dir}/notes.json`);
      const slicer = this.slicer();
      // Megabytes of JSON for a large vault: parsed in slices; text that is not JSON gets readFormat's own message.
      const parsed = text?.trim() ? await slicer.run(parseJsonSteps(text, 'notes')).catch(() => undefined) : undefined;
      const saved = parsed === undefined ? readFormat(NOTES_FORMAT, text) : upgradeFormat(NOTES_FORMAT, parsed);
      const terms = (saved?.data.terms ?? []) as string[];
      for (const [path, mtime, size, meta, ids] of (saved?.data.notes ?? []) as CachedNote[]) {
        this.cached.set(path, { mtime, size, meta: { ...meta, path }, terms: ids.map((i) => terms[i]) });
        if (slicer.due()) await slicer.yield();
      }
    } catch (e) {
      // Damaged or newer: every note is read again, as on a first start.
      this.log('warn', `note cache not used: ${errorMessage(e)}`);
    }
  }
}
