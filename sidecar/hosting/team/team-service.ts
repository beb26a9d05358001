// What a machine keeps of the team store, in $ENGRAM_HOME/team/: the promotions waiting to be sent (one file each, so a
// promotion queued while the database is unreachable is sent later exactly once: the store keys it by author, vault
// and path, and a file is removed only after the store answered), and a cache of the team's notes that recall reads,
// so nothing that answers a person ever waits on the network.
import fs from 'node:fs';
import path from 'node:path';
import { EngramError, errorMessage } from '../../../src/core/errors.js';
import { sha256Hex } from '../../../src/core/hash.js';
import { chunkBody } from '../../../src/core/index/chunk.js';
import { passageMatch, SEARCH_FLOOR } from '../../../src/core/index/search.js';
import { decodeSnapshot, encodeSnapshot, runSync } from '../../../src/core/index/snapshot.js';
import { TextIndex } from '../../../src/core/index/text-index.js';
import type { TeamPane, TeamRecall } from '../../../src/core/team/recall.js';
import { prepareTeamNote, type PromoteOutcome, type TeamConflict, type TeamHit, type TeamNote, type TeamNoteInput, type TeamPassage, type TeamProposal } from '../../../src/core/team/store.js';
export type { TeamConflict, TeamProposal } from '../../../src/core/team/store.js';
import { atomicWriteFileSync } from '../atomic-write.js';
import { apiKey } from '../backends.js';
import type { ConfigReader } from '../config-file.js';
import { engramHome } from '../paths.js';
import { PgTeamStore, redactUrl } from './pg-store.js';

export interface TeamSettings {
  url: string;
  team: string;
  /** The database user the URL names: the author of what this machine promotes. */
  member: string;
  password?: string;
}

/** Where the password is: this environment variable, or the OS keychain entry of that name (never the configuration). */
export const TEAM_PASSWORD = 'ENGRAM_TEAM_PASSWORD';

/** The team settings from the configuration, or null when no team store is set. */
export function teamSettings(config: { get(key: 'team.url' | 'team.name'): string | null }, env: NodeJS.ProcessEnv): TeamSettings | null {
  const url = config.get('team.url');
  if (!url) return null;
  const team = config.get('team.name');
  if (!team) throw new EngramError('invalid-config', 'team.url is set but team.name is not', 'set it with `engram configure team.name <team>` (or `engram team connect <url> --team <team>`)');
  return { url, team, member: decodeURIComponent(new URL(url).username), password: apiKey(TEAM_PASSWORD, env) };
}

export function openTeamStore(s: Pick<TeamSettings, 'url' | 'password'>): PgTeamStore {
  return new PgTeamStore({ url: s.url, password: s.password });
}

export function teamDir(engramHomeDir: string): string {
  return path.join(engramHomeDir, 'team');
}

interface Queued {
  note: TeamNoteInput;
  passages: TeamPassage[];
  queuedAt: string;
}

const queueDir = (dir: string): string => path.join(dir, 'queue');

/** Queues a promotion; a newer promotion of the same note replaces one still waiting. Returns the queue file. */
export function enqueue(dir: string, note: TeamNoteInput, passages: TeamPassage[], now = new Date()): string {
  const file = path.join(queueDir(dir), `${sha256Hex(JSON.stringify([note.team, note.author, note.vault, note.sourcePath])).slice(0, 24)}.json`);
  fs.mkdirSync(queueDir(dir), { recursive: true });
  atomicWriteFileSync(file, JSON.stringify({ note, passages, queuedAt: now.toISOString() } satisfies Queued));
  return file;
}

/** The promotions waiting, oldest first (a file that is not a whole promotion is named, not sent, never deleted). */
export function queued(dir: string): { file: string; entry?: Queued; problem?: string }[] {
  const q = queueDir(dir);
  if (!fs.existsSync(q)) return [];
  return fs
    .readdirSync(q)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const file = path.join(q, f);
      try {
        const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as Queued;
        if (!entry.note?.sourcePath || !Array.isArray(entry.passages)) return { file, problem: 'not a promotion' };
        return { file, entry };
      } catch (e) {
        return { file, problem: errorMessage(e) };
      }
    })
    .sort((a, b) => (a.entry?.queuedAt ?? '').localeCompare(b.entry?.queuedAt ?? ''));
}

const keyOf = (...parts: string[]): string => sha256Hex(JSON.stringify(parts)).slice(0, 24);

function readAll<T>(folder: string): { file: string; entry: T }[] {
  if (!fs.existsSync(folder)) return [];
  return fs.readdirSync(folder).filter((f) => f.endsWith('.json')).flatMap((f) => {
    const file = path.join(folder, f);
    try {
      return [{ file, entry: JSON.parse(fs.readFileSync(file, 'utf8')) as T }];
    } catch {
      return [];
    }
  });
}

/** Records an agent's proposal (a newer one for the same note replaces it); nothing leaves the vault. */
export function propose(dir: string, p: TeamProposal): void {
  const folder = path.join(dir, 'proposed');
  fs.mkdirSync(folder, { recursive: true });
  atomicWriteFileSync(path.join(folder, `${keyOf(p.vaultRoot, p.path)}.json`), JSON.stringify(p));
}

/** The proposals waiting for the person, oldest first. */
export function proposals(dir: string): TeamProposal[] {
  return readAll<TeamProposal>(path.join(dir, 'proposed')).map((x) => x.entry).filter((p) => p.path && p.vaultRoot).sort((a, b) => a.at.localeCompare(b.at));
}

/** Removes a proposal once the person approved or dismissed it; false when there was none. */
export function dropProposal(dir: string, vaultRoot: string, notePath: string): boolean {
  const file = path.join(dir, 'proposed', `${keyOf(vaultRoot, notePath)}.json`);
  if (!fs.existsSync(file)) return false;
  fs.rmSync(file, { force: true });
  return true;
}

/** The promotions the store refused as conflicts, still unsettled (a later promotion of the note that goes through settles one). */
export function conflicts(dir: string): TeamConflict[] {
  return readAll<TeamConflict>(path.join(dir, 'conflicts')).map((x) => x.entry).sort((a, b) => a.at.localeCompare(b.at));
}

function noteOutcome(dir: string, note: TeamNoteInput, outcome: PromoteOutcome, now: Date): void {
  const folder = path.join(dir, 'conflicts');
  const file = path.join(folder, `${keyOf(note.vault, note.sourcePath)}.json`);
  if (outcome.status === 'conflict') {
    fs.mkdirSync(folder, { recursive: true });
    atomicWriteFileSync(file, JSON.stringify({ path: note.sourcePath, title: note.title, id: outcome.id, author: outcome.author, at: now.toISOString() } satisfies TeamConflict));
  } else fs.rmSync(file, { force: true });
}

/**
 * The person's approval of one note (`engram team promote`/`approve`, the review pane): checked again (durable, their
 * own, no secret), queued, and an agent's proposal of it settled. Throws, saying why, when it may not go.
 */
export async function queuePromotion(dir: string, s: TeamSettings, vaultRoot: string, notePath: string, text: string): Promise<void> {
  const prepared = await prepareTeamNote(notePath, text, { team: s.team, author: s.member, vault: path.basename(vaultRoot) });
  if (!prepared.ok) throw new EngramError('refused', prepared.reason);
  enqueue(dir, prepared.note, prepared.passages);
  dropProposal(dir, vaultRoot, notePath);
}

/** Sends what waits, then refreshes the cache (when everything went); the store is opened and closed here. */
export async function sendQueued(dir: string, s: TeamSettings): Promise<FlushReport & { cached?: number }> {
  const store = openTeamStore(s);
  try {
    const report = await flushQueue(dir, store);
    if (report.stopped) return report;
    return { ...report, cached: (await refreshCache(dir, s, store).catch(() => undefined))?.notes.length };
  } finally {
    await store.close();
  }
}

/** What the review pane shows and does about the team (the plugin host's; none without a team store). */
export function teamPane(env: NodeJS.ProcessEnv, config: ConfigReader, vaultRoot: string, read: (notePath: string) => Promise<string>): TeamPane {
  const dir = teamDir(engramHome(env));
  const settings = (): TeamSettings => {
    const s = teamSettings(config(), env);
    if (!s) throw new EngramError('invalid-config', 'no team store is set', 'connect one with `engram team connect`');
    return s;
  };
  return {
    pending: async () => ({ proposals: proposals(dir).filter((p) => p.vaultRoot === vaultRoot), conflicts: conflicts(dir) }),
    approve: async (notePath) => {
      const s = settings();
      await queuePromotion(dir, s, vaultRoot, notePath, await read(notePath));
      const r = await sendQueued(dir, s);
      const mine = r.sent.find((x) => x.path === notePath)?.outcome;
      if (!mine) return `waits to be sent: ${r.stopped ?? 'the store did not answer'}`;
      return mine.status === 'conflict' ? `not sent: ${mine.author} shares a note of that title` : `${mine.status} (team note ${mine.id})`;
    },
    dismiss: async (notePath) => void dropProposal(dir, vaultRoot, notePath),
  };
}

export interface FlushReport {
  sent: { path: string; outcome: PromoteOutcome }[];
  waiting: number;
  /** Why the rest is still waiting (the store unreachable, a login refused). */
  stopped?: string;
}

/** Sends what waits, in order; stops at the first failure (the rest waits for the next try). */
export async function flushQueue(dir: string, store: Pick<PgTeamStore, 'promote'>): Promise<FlushReport> {
  const all = queued(dir).filter((q) => q.entry);
  const sent: FlushReport['sent'] = [];
  for (const [i, q] of all.entries()) {
    try {
      const outcome = await store.promote(q.entry!.note, q.entry!.passages);
      // Removed only once the store answered: a crash between the two sends it again, and the store keys it (unchanged).
      fs.rmSync(q.file, { force: true });
      // A conflict is kept for the person to settle (never overwritten); a promotion that went through settles it.
      noteOutcome(dir, q.entry!.note, outcome, new Date());
      sent.push({ path: q.entry!.note.sourcePath, outcome });
    } catch (e) {
      return { sent, waiting: all.length - i, stopped: errorMessage(e) };
    }
  }
  return { sent, waiting: 0 };
}

export interface TeamCache {
  url: string;
  team: string;
  refreshedAt: string;
  notes: TeamNote[];
}

const cacheFile = (dir: string): string => path.join(dir, 'cache.json');

/** Replaces the cache with the store's live notes of the team (what this member may read). */
export async function refreshCache(dir: string, s: TeamSettings, store: Pick<PgTeamStore, 'listLive'>, now = new Date()): Promise<TeamCache> {
  const notes = await store.listLive(s.team, 20_000);
  const cache: TeamCache = { url: redactUrl(s.url), team: s.team, refreshedAt: now.toISOString(), notes };
  fs.mkdirSync(dir, { recursive: true });
  atomicWriteFileSync(cacheFile(dir), JSON.stringify(cache));
  return cache;
}

export function readCache(dir: string): TeamCache | null {
  try {
    return JSON.parse(fs.readFileSync(cacheFile(dir), 'utf8')) as TeamCache;
  } catch {
    return null;
  }
}

/** The cached notes as the vault's own keyword index holds notes (BM25 over title and passages). */
function indexOf(cache: TeamCache, index = new TextIndex()): TextIndex {
  for (const n of cache.notes) {
    const time = Date.parse(n.updatedAt) || 0;
    index.add(
      { path: n.id, title: n.title, folder: '', hash: n.sourceHash, mtime: time, size: n.body.length, project: n.project || undefined, working: false, tags: [], time, superseded: false, links: [], dupKey: n.sourceHash, beat: false },
      chunkBody(n.body),
    );
  }
  return index;
}

/** Searches the cached team notes with the vault's own keyword ranking; `index` is the cache's, when already built. */
export function searchCache(cache: TeamCache, query: string, limit = 10, index = indexOf(cache)): TeamHit[] {
  const terms = index.queryTerms(query);
  if (!terms.length) return [];
  const byId = new Map(cache.notes.map((n) => [n.id, n]));
  return index.score(terms, null, undefined, limit).flatMap((c) => {
    const rec = index.notes[c.slot];
    const n = rec ? byId.get(rec.path) : undefined;
    if (!rec || !n) return [];
    // The vault's own floor, read as the vault reads it (the query's weight in the title and the best passage): a
    // team note below it is no close match, left out rather than shown beside the vault's.
    const m = passageMatch(index, c.slot, c.bestChunk, terms);
    if (m.coverage < SEARCH_FLOOR) return [];
    const text = index.chunkText[c.bestChunk] ?? n.body;
    return [{ id: n.id, team: n.team, project: n.project, title: n.title, author: n.author, heading: index.chunkHeading[c.bestChunk] ?? '', snippet: text.replace(/\s+/g, ' ').slice(0, 200), score: c.score, promotedAt: n.promotedAt, why: ['words'], coverage: m.coverage, terms: [...m.found] }];
  });
}

const snapshotFile = (dir: string): string => path.join(dir, 'cache-index.bin');

/**
 * The team cache as recall reads it, in one process (a host, a CLI run): the cache file and its index are read again
 * only when the file changed (its size and time), and the index is kept beside it (cache-index.bin, keyed by the
 * same), so a CLI search does not build it again either. Never the network; nothing when no cache is there.
 */
export class CachedTeam implements TeamRecall {
  private memo: { key: string; cache: TeamCache; index: TextIndex } | undefined;

  constructor(private readonly dir: string) {}

  private current(): { cache: TeamCache; index: TextIndex } | undefined {
    let key: string;
    try {
      const st = fs.statSync(cacheFile(this.dir));
      key = `${st.size}:${st.mtimeMs}`;
    } catch {
      this.memo = undefined;
      return undefined;
    }
    if (this.memo?.key === key) return this.memo;
    const cache = readCache(this.dir);
    if (!cache) return undefined;
    this.memo = { key, cache, index: this.loadIndex(key) ?? this.saveIndex(key, indexOf(cache)) };
    return this.memo;
  }

  private loadIndex(key: string): TextIndex | undefined {
    try {
      const bytes = fs.readFileSync(snapshotFile(this.dir));
      const nl = bytes.indexOf(10);
      if (nl < 0 || bytes.subarray(0, nl).toString('utf8') !== key) return undefined;
      const index = new TextIndex();
      runSync(decodeSnapshot(new Uint8Array(bytes.subarray(nl + 1)), index));
      return index;
    } catch {
      return undefined;
    }
  }

  private saveIndex(key: string, index: TextIndex): TextIndex {
    try {
      const body = runSync(encodeSnapshot(index, null, null));
      atomicWriteFileSync(snapshotFile(this.dir), Buffer.concat([Buffer.from(`${key}\n`), Buffer.from(body)]));
    } catch {
      // only a speed-up: the next run builds it again
    }
    return index;
  }

  search(query: string, limit: number): TeamHit[] {
    const c = this.current();
    return c ? searchCache(c.cache, query, limit, c.index) : [];
  }

  /** A cached team note by its id (what `engram team copy` writes into the vault). */
  note(id: string): TeamNote | undefined {
    return this.current()?.cache.notes.find((n) => n.id === id);
  }
}

/**
 * The team notes a host's recall, search and hooks read: the cache of $ENGRAM_HOME/team, while a team store is set
 * (whether one is set is read again whenever the configuration file changes: a team disconnected is out at once; a
 * hook's request does not parse the file again for it).
 */
export function hostTeam(env: NodeJS.ProcessEnv, config: ConfigReader): TeamRecall & { note(id: string): TeamNote | undefined } {
  const cached = new CachedTeam(teamDir(engramHome(env)));
  const set = (): boolean => Boolean(config().get('team.url'));
  return {
    search: (query, limit) => (set() ? cached.search(query, limit) : []),
    note: (id) => (set() ? cached.note(id) : undefined),
  };
}

/**
 * The host's part: sends the queue and refreshes the cache at start and on each tick, one run at a time, in the
 * background; a store that does not answer is logged once per change of reason, and tried again next tick.
 */
export function startTeamSync(config: { get(key: 'team.url' | 'team.name'): string | null }, env: NodeJS.ProcessEnv, log: (level: 'info' | 'warn', message: string) => void): { tick(): void; close(): Promise<void> } {
  let settings: TeamSettings | null;
  try {
    settings = teamSettings(config, env);
  } catch (e) {
    log('warn', `team store: ${errorMessage(e)}`);
    settings = null;
  }
  if (!settings) return { tick: () => undefined, close: async () => undefined };
  const s = settings;
  const dir = teamDir(engramHome(env));
  let running: Promise<void> | undefined;
  let lastProblem = '';
  const once = async (): Promise<void> => {
    const store = openTeamStore(s);
    try {
      const report = await flushQueue(dir, store);
      if (report.sent.length) log('info', `team store: sent ${report.sent.length} promotions (${report.sent.map((x) => `${x.path}: ${x.outcome.status}`).join(', ')})`);
      if (report.stopped) throw new Error(`${report.waiting} promotions wait: ${report.stopped}`);
      const cache = await refreshCache(dir, s, store);
      if (lastProblem) log('info', `team store answers again; ${cache.notes.length} team notes cached`);
      lastProblem = '';
    } catch (e) {
      const why = errorMessage(e);
      if (why !== lastProblem) log('warn', `team store: ${why}`);
      lastProblem = why;
    } finally {
      await store.close();
    }
  };
  const tick = (): void => {
    if (!running) running = once().finally(() => (running = undefined));
  };
  tick();
  return { tick, close: async () => void (await running) };
}
