// The one object a host creates for a vault: index, job queue, recall, context injection, note writing.
// Hosts (the daemon, the Obsidian plugin) give it Ports; pieces such as the VaultIndex and the extractor plug in.
// Its concerns live in engine/: the index port (index-port.ts), what a host gives it (options.ts), the notes read from
// the vault (vault-notes.ts), context injection (inject.ts), recall, read and the marks (answers.ts), and what outlives
// a restart (note-cache.ts).
import { EngramError, errorMessage } from './errors.js';
import { Curation, describeIndexVectors, type ForgetResult } from './curate/service.js';
import { Capture } from './capture/capture.js';
import type { Ports, VaultChange } from './ports.js';
import type { SearchHit, SearchOptions } from './index/types.js';
import type { NoteMeta } from './note/meta.js';
import type { LookUp } from './note/lookup.js';
import { VaultIndex } from './index/vault-index.js';
import { TimeSlicer } from './time-slice.js';
import { vetNote, type FlaggedNote, type Vetting } from './recall/vet.js';
import { privateZoneOf } from './note/private-zone.js';
import { extendNote, rememberContentProblem, rememberId, rememberNote, restatedNote, type RememberInput, type RememberResult } from './memory/remember.js';
import type { ContextResult, RecallResult } from './protocol/messages.js';
import type { ActivityRecord } from './activity/record.js';
import { IndexedVault, recallScope, type EngineIndex, type EngineLog, type QueryAnswer } from './engine/index-port.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig, type EngineOptions } from './engine/options.js';
import { countDue, VaultNotes } from './engine/vault-notes.js';
import { Injection, type ContextRequest } from './engine/inject.js';
import { flaggedNotes, markAnswer, readNote, recallNotes, relatedNotes, type Reader } from './engine/answers.js';
import { encodeInjected, encodeNotes, restoreInjected, restoreNotes, type CachedEntry } from './engine/note-cache.js';

export { IndexedVault, recallScope, type EngineIndex, type EngineLog, type QueryAnswer, type SnapshotStore } from './engine/index-port.js';
export { DEFAULT_ENGINE_CONFIG, type EngineConfig, type EngineOptions, type Withheld } from './engine/options.js';
export { countDue } from './engine/vault-notes.js';
export type { FlaggedNote, Vetting } from './recall/vet.js';

/** How long a restarted host holds its listing of the vault for the context requests that waited for it to serve. */
const FIRST_ANSWERS_WAIT_MS = 2000;

export class Engine {
  readonly ports: Ports;
  readonly config: EngineConfig;
  index: EngineIndex;
  /** Each vetted note's verdict, kept while its file is unchanged (same mtime and size). */
  private readonly vetted = new Map<string, { mtime: number; size: number; v: Vetting }>();
  private readonly log: EngineLog;
  private readonly vaultNotes: VaultNotes;
  private readonly injection: Injection;
  private readonly reader: Reader;
  /** Curation for this vault, when the host gave it what it needs. */
  readonly curation?: Curation;
  /** Capture for this vault, when the host gave it its ports. */
  readonly capture?: Capture;
  /** What the engine saw, captured and injected, when the host keeps a record. */
  readonly activity?: ActivityRecord;
  /** Recall statistics are written one after another (read-modify-write of one file), off the answer's path. */
  private recording: Promise<void> = Promise.resolve();
  ready = false;
  private readyResolve!: () => void;
  private readonly readyPromise = new Promise<void>((resolve) => (this.readyResolve = resolve));
  /** Context can be answered: from what the last run saved (before the vault is listed), or once ready. */
  serving = false;
  private servingResolve!: () => void;
  private readonly servingPromise = new Promise<void>((resolve) => (this.servingResolve = resolve));
  /** Context requests being answered now, and who waits for their count to fall to zero. */
  private answering = 0;
  private allAnswered?: () => void;
  private firstAnsweredResolve!: () => void;
  private readonly firstAnsweredPromise = new Promise<void>((resolve) => (this.firstAnsweredResolve = resolve));

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
        metas: () => (this.ready ? this.vaultNotes.metas : undefined),
        // Private notes never reach review's or restructure's model calls (note/private-zone.ts).
        privateZones: this.config.privateZones,
      });
    }
    if (opts.capture) this.capture = new Capture(opts.capture);
    this.activity = opts.activity;
    const slicer = () => this.slicer();
    this.vaultNotes = new VaultNotes({ vault: opts.ports.vault, index: () => this.index, ignore: this.config.ignore, log: this.log, slicer });
    const stats = this.vaultNotes.stats;
    const noteRecalled = (paths: string[]) => this.noteRecalled(paths);
    this.injection = new Injection({
      config: this.config, stats, log: this.log, onWithheld: opts.onWithheld, activity: opts.activity, noteRecalled,
      notes: () => this.notes(), meta: (p) => this.meta(p), search: (q, o) => this.search(q, o), vet: (p) => this.vet(p), privateZone: (p) => this.privateZone(p),
    });
    this.reader = {
      config: this.config, stats, vault: opts.ports.vault, slicer, noteRecalled, index: () => this.index,
      meta: (p) => this.meta(p), notes: () => this.notes(), lookUp: (r) => this.lookUp(r), closestTitles: (r) => this.closestTitles(r), hasProject: (p) => this.hasProject(p),
      query: (q, o) => this.query(q, o), search: (q, o) => this.search(q, o), vet: (p) => this.vet(p), privateZone: (p) => this.privateZone(p), whenReady: () => this.whenReady(),
    };
  }

  isIgnored(path: string): boolean {
    return this.vaultNotes.isIgnored(path);
  }

  /** Resolves once the first full read of the vault is done (requests that need every note's metadata wait). */
  whenReady(): Promise<void> {
    return this.readyPromise;
  }

  /** Resolves once context can be answered (`serving`): a hook that started this host waits for this, not `ready`. */
  whenServing(): Promise<void> {
    return this.servingPromise;
  }

  /**
   * Resolves once context can be answered and the requests that waited for that have their answers (at most
   * FIRST_ANSWERS_WAIT_MS later): what a restarted host does next (its listing of the vault, the watcher's first walk,
   * the crash cleanup) would otherwise take the CPU from the hooks that started it and wait for their context.
   */
  whenFirstAnswered(): Promise<void> {
    return this.firstAnsweredPromise;
  }

  private markServing(): void {
    if (this.serving) return;
    this.serving = true;
    this.servingResolve();
  }

  /** Serving now: the requests that waited for it start (the loop's pending I/O too) and are answered, then the rest. */
  private async serveFirstAnswers(): Promise<void> {
    this.markServing();
    await this.ports.yieldNow();
    if (this.answering > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([new Promise<void>((r) => (this.allAnswered = r)), new Promise<void>((r) => (timer = setTimeout(r, FIRST_ANSWERS_WAIT_MS)))]);
      clearTimeout(timer);
      this.allAnswered = undefined;
    }
    this.firstAnsweredResolve();
  }

  /**
   * Reads every note once (term statistics, metadata and, for the fallback, the index). From a saved snapshot and
   * note cache it serves context at once, and lists the vault once the requests waiting for that are answered
   * (VaultNotes.readAll).
   */
  async start(): Promise<void> {
    await this.vaultNotes.readAll(await this.restorePersisted(), () => this.serveFirstAnswers());
    this.ready = true;
    this.readyResolve();
    this.markServing();
    this.firstAnsweredResolve();
    this.log('info', `engine ready: ${this.vaultNotes.stats.size} notes, index ${this.index.mode}`);
  }

  /** Vault changes are coalesced per path and applied in small batches, so queries stay fast during a burst. */
  applyChange(change: VaultChange): void {
    this.vaultNotes.applyChange(change);
  }

  /** Resolves when every change seen so far is in the index. */
  settled(): Promise<void> {
    return this.vaultNotes.settled();
  }

  /** Yields to the host by time, not by a count of notes (a large note costs as much as a hundred small ones). */
  private slicer(): TimeSlicer {
    return new TimeSlicer(this.ports.clock, this.ports.yieldNow);
  }

  /** Brings the engine in line with the vault's listing: new or changed files loaded, vanished ones dropped. */
  reconcile(): Promise<{ loaded: number; dropped: number }> {
    return this.vaultNotes.reconcile();
  }

  get backlog(): number {
    return this.vaultNotes.backlog;
  }

  noteCount(): number {
    return this.vaultNotes.metas.size;
  }

  /** Working-memory notes due for review on or before `today` (yyyy-mm-dd), outside the archive. */
  dueCount(today: string): number {
    return countDue(this.vaultNotes.metas.values(), today, this.config.folders.archive);
  }

  meta(path: string): NoteMeta | undefined {
    return this.vaultNotes.metas.get(path);
  }

  /** Every note's metadata as last read (the dashboard counts them). */
  notes(): Iterable<NoteMeta> {
    return this.vaultNotes.metas.values();
  }

  /** Whether any note belongs to `project` (case aside). */
  hasProject(project: string): boolean {
    return this.vaultNotes.hasProject(project);
  }

  /** Resolves a title, a path or a [[wikilink]] to one note of the vault; undefined when none or several match. */
  resolveRef(ref: string): string | undefined {
    return this.lookUp(ref).path;
  }

  /** A note reference as a user would say it (VaultNotes.lookUp): several equal matches are ambiguous. */
  lookUp(ref: string): LookUp {
    return this.vaultNotes.lookUp(ref);
  }

  /** The titles closest to `ref`, for a "did you mean" (shared words first, then shared prefix). */
  closestTitles(ref: string, n = 5): string[] {
    return this.vaultNotes.closestTitles(ref, n);
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

  /** The notes closest to `path` and the notes that cite it (the "related to this note" pane; answers.ts). */
  related(path: string, limit = 10): Promise<{ similar: SearchHit[]; citing: string[] }> {
    return relatedNotes(this.reader, path, limit);
  }

  /**
   * A note's provenance and the directive-shaped text it holds (frontmatter included: a summary is injected too), read
   * when a hook or recall is about to show it; kept until the file changes. Null when the note cannot be read.
   */
  async vet(path: string): Promise<Vetting | null> {
    const listed = this.vaultNotes.listing.get(path);
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
    const m = this.meta(path);
    return privateZoneOf({ path, tags: m?.tags, project: m?.project }, this.config.privateZones);
  }

  /** The answer's hits marked for people: outside text, text addressed to an AI (`engram search`, the Search pane). */
  mark(answer: QueryAnswer): Promise<QueryAnswer> {
    return markAnswer(this.reader, answer);
  }

  /** Every note holding text addressed to an AI (the user's own raised notes aside): the review pane, `engram flagged`. */
  flagged(): Promise<FlaggedNote[]> {
    return flaggedNotes(this.reader);
  }

  recall(query: string, opts: SearchOptions & { full?: number } = {}): Promise<RecallResult> {
    return recallNotes(this.reader, query, opts);
  }

  /** Context for a hook: only notes that clear the relevance bar, never one already in this session's context (inject.ts). */
  async context(p: ContextRequest): Promise<ContextResult> {
    this.answering++;
    try {
      return await this.injection.context(p);
    } finally {
      if (--this.answering === 0) this.allAnswered?.();
    }
  }

  /** A note in full, or one passage of it (`path#Heading`; answers.ts). */
  read(ref: string): Promise<{ path: string; title: string; text: string; heading?: string }> {
    return readNote(this.reader, ref);
  }

  /** Files a note (or finds the one this text already made: then nothing is written and `existed` is true). */
  async remember(input: RememberInput): Promise<RememberResult> {
    const byId = (id: string) => [...this.notes()].find((m) => m.engramId === id)?.path;
    const body = input.text.trim();
    if (body && !rememberContentProblem(body) && !byId(rememberId(body.replace(/\r\n/g, '\n'), input.scope === 'general' ? undefined : input.project)) && input.onDuplicate !== 'new') {
      // A paraphrase of a note: name it and offer to extend it, rather than file a second copy.
      const hits = (await this.query(body.slice(0, 500), { limit: 8, mode: 'bm25' })).hits;
      const candidates: { path: string; title: string; text: string }[] = [];
      for (const h of hits) {
        const text = await this.ports.vault.read(h.path).then((f) => f.text, () => undefined);
        if (text !== undefined) candidates.push({ path: h.path, title: this.meta(h.path)?.title ?? h.path, text });
      }
      const dup = await restatedNote(body, candidates);
      if (dup && input.onDuplicate === 'extend') {
        if (this.meta(dup.path)?.locked) throw new EngramError('refused', `${dup.path} is locked: it cannot be extended`, 'remember with onDuplicate "new" to file a note of its own');
        await extendNote(this.ports.vault, dup.path, body, this.ports.clock.now());
        await this.vaultNotes.load(dup.path);
        return { path: dup.path, existed: false, duplicateOf: dup, extended: true };
      }
      if (dup) return { path: dup.path, existed: false, duplicateOf: dup };
    }
    const r = await rememberNote(this.ports.vault, this.config.folders, input, this.ports.clock.now(), byId);
    if (!r.existed) await this.vaultNotes.load(r.path);
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
    for (const path of [...this.vaultNotes.metas.keys()]) {
      await this.vaultNotes.drop(path);
      await slicer.pause();
    }
    await this.start();
    return { notes: this.noteCount() };
  }

  /** Saves the index snapshot and what must outlive a restart (before exit or handover). */
  async save(): Promise<void> {
    await this.index.save?.();
    await this.recallStatsWritten();
    const persist = this.opts.persist;
    if (!persist) return;
    // What was injected in the latest sessions, so a restarted host never injects a note twice in a session.
    await persist.store.write(`${persist.dir}/injected.json`, encodeInjected(this.injection.injected));
    if (!this.ready) return;
    const { metas, listing, stats } = this.vaultNotes;
    await persist.store.write(`${persist.dir}/notes.json`, await encodeNotes(metas, listing, (p) => stats.termsOf(p), this.slicer()));
  }

  /** What a previous run saved: the sessions' injected notes (restored here) and the note cache (returned). */
  private async restorePersisted(): Promise<Map<string, CachedEntry>> {
    const persist = this.opts.persist;
    if (!persist) return new Map();
    try {
      for (const [k, v] of await restoreInjected(persist)) this.injection.injected.set(k, v);
    } catch (e) {
      // Damaged or newer: start empty (at worst a note is injected once more), and say so.
      this.log('warn', `injected-notes state not restored: ${errorMessage(e)}`);
    }
    try {
      return await restoreNotes(persist, this.slicer());
    } catch (e) {
      // Damaged or newer: every note is read again, as on a first start.
      this.log('warn', `note cache not used: ${errorMessage(e)}`);
      return new Map();
    }
  }
}
