// Codex runs Engram's hooks only once the user has trusted them (in `codex exec`, never), so its sessions reach
// Engram from disk too: once `engram install --agent codex` has registered Engram's MCP server in
// $CODEX_HOME/config.toml, the host follows $CODEX_HOME/sessions/**/rollout-*.jsonl and spools
// each rollout of this vault the way the Claude Code hooks do: a rollout that grew is queued like a Stop (extracted
// when it grew enough), one that went quiet for `codex.finished_after_seconds` like a SessionEnd (extracted whatever
// is left). The session jobs' coverage and the extraction ledger make each part extracted exactly once.
import { watch, type FSWatcher } from 'chokidar';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../src/core/errors.js';
import { readFormat } from '../../src/core/format-version.js';
import { SPOOL_FORMAT, writeSpoolEntry } from './spool-writer.js';
import { codexHome, type VaultState } from './paths.js';
import { codexRegisteredAt, MCP_NAME } from './install-facts.js';
import type { ConfigReader } from './config-file.js';
import type { CoverageStore } from './coverage.js';
import { homeDir, hostFacts } from './facts.js';
import { findVault } from './resolve.js';
import { jobKey } from '../../src/core/capture/session-jobs.js';
import { isRolloutName } from '../../src/core/transcript/client.js';
import { isEngramOwnTranscript } from './transcript-files.js';
import { atomicWriteFileSync } from './atomic-write.js';

export function codexSessionsDir(env: NodeJS.ProcessEnv): string {
  return path.join(codexHome(env), 'sessions');
}

/** True when `engram install --agent codex` registered Engram with Codex (its `[mcp_servers.engram]` block is there). */
export function codexRegistered(env: NodeJS.ProcessEnv): boolean {
  try {
    const toml = fs.readFileSync(path.join(codexHome(env), 'config.toml'), 'utf8');
    return new RegExp(`^\\s*\\[mcp_servers\\.${MCP_NAME}\\]\\s*$`, 'm').test(toml);
  } catch {
    return false;
  }
}

/** The session id of a rollout: the UUID that ends its name (as the Codex reader takes it), else the name. */
export function rolloutSessionId(file: string): string {
  const name = path.basename(file);
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(name);
  return m?.[1] ?? name.replace(/\.jsonl$/, '');
}

/** The working directory Codex recorded in the rollout's first record (`session_meta`), if any. */
export function rolloutCwd(file: string): string | undefined {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      for (const line of buf.subarray(0, n).toString('utf8').split('\n').slice(0, 5)) {
        try {
          const r = JSON.parse(line) as { type?: string; payload?: { cwd?: unknown } };
          if (r.type === 'session_meta' && typeof r.payload?.cwd === 'string') return r.payload.cwd;
        } catch {
          // a partial or damaged line: try the next
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // unreadable: no cwd
  }
  return undefined;
}

interface Followed {
  sessionId: string;
  cwd?: string;
  /** Whether the rollout belongs to this host's vault (decided once, from its cwd). */
  ours: boolean;
  lastChange: number;
  /** Size when last spooled as grown / as finished. */
  grownBytes: number;
  finishedBytes: number;
}

export interface CodexFollowerOptions {
  state: VaultState;
  env: NodeJS.ProcessEnv;
  coverage: CoverageStore;
  /** The configuration as it is now (`codex.finished_after_seconds`, the vault a rollout's folder resolves to). */
  config: ConfigReader;
  log: (level: 'info' | 'warn' | 'error', msg: string) => void;
  /** Tells the host to pick up new spool entries. */
  notify: () => void;
  now?: () => number;
}

export interface CodexFollower {
  /** Resolves once the first look at the sessions folder is done. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * The time from which rollouts are followed: when `engram install --agent codex` registered Engram, so a session run
 * right after the install is followed even when the running host notices the registration only at its next look;
 * else when a host first saw Codex registered (kept in the vault's state).
 */
function followSince(state: VaultState, env: NodeJS.ProcessEnv, now: number): number {
  const file = path.join(state.dir, 'codex-follow.json');
  const installed = codexRegisteredAt(env);
  try {
    const saved = readFormat({ name: file, current: 1, field: 'format' }, fs.readFileSync(file, 'utf8'))?.data;
    const t = typeof saved?.since === 'string' ? Date.parse(saved.since) : NaN;
    if (Number.isFinite(t)) return installed === undefined ? t : Math.min(t, installed);
  } catch {
    // first time
  }
  const since = installed ?? now;
  atomicWriteFileSync(file, JSON.stringify({ format: 1, since: new Date(since).toISOString() }), { mode: 0o600 });
  return since;
}

function listRollouts(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && isRolloutName(e.name))
      .map((e) => path.join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

/** Following one vault's Codex rollouts: a look every few seconds (registered or not), a watcher while registered. */
class CodexFollowing implements CodexFollower {
  readonly ready: Promise<void>;
  private readonly now: () => number;
  private readonly dir: string;
  private readonly vault: string;
  private readonly followed = new Map<string, Followed>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private watcher: FSWatcher | undefined;
  private since: number | undefined;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: CodexFollowerOptions) {
    this.now = o.now ?? Date.now;
    this.dir = codexSessionsDir(o.env);
    this.vault = realOrAsIs(o.state.vault);
    this.ready = this.tick();
  }

  /** `codex.finished_after_seconds`, read at each use (an edit applies to the next look). */
  private finishedAfterMs(): number {
    try {
      return this.o.config().get('codex.finished_after_seconds') * 1000;
    } catch {
      return 300_000;
    }
  }

  private belongsHere(cwd: string | undefined): boolean {
    try {
      const found = findVault(hostFacts(this.o.env), cwd ?? homeDir(this.o.env), undefined, this.o.config);
      if (!found) return false;
      return fs.realpathSync.native(found.path) === this.vault;
    } catch {
      return false;
    }
  }

  private async track(file: string, mtime: number): Promise<Followed | undefined> {
    let f = this.followed.get(file);
    if (!f) {
      if (await isEngramOwnTranscript(file)) return undefined;
      const sessionId = rolloutSessionId(file);
      const cwd = rolloutCwd(file);
      const covered = (await this.o.coverage.get(jobKey(sessionId)))?.bytes ?? 0;
      f = { sessionId, cwd, ours: this.belongsHere(cwd), lastChange: mtime, grownBytes: covered, finishedBytes: covered };
      this.followed.set(file, f);
      if (f.ours) this.o.log('info', `codex: following ${file}`);
    }
    return f;
  }

  private spool(file: string, f: Followed, size: number, event: 'Stop' | 'SessionEnd'): void {
    writeSpoolEntry(this.o.state.spool, {
      format: SPOOL_FORMAT,
      event,
      sessionId: f.sessionId,
      transcriptPath: file,
      transcriptBytes: size,
      cwd: f.cwd,
      spooledAt: new Date(this.now()).toISOString(),
      payload: { session_id: f.sessionId, transcript_path: file, hook_event_name: event, source: 'codex' },
    });
    this.o.notify();
  }

  /** A rollout was written to: queue it like a Stop when it grew since it was last queued. */
  private async changed(file: string): Promise<void> {
    if (this.closed || this.since === undefined || !isRolloutName(path.basename(file))) return;
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) return;
    const f = await this.track(file, st.mtimeMs);
    if (!f?.ours) return;
    f.lastChange = Math.max(f.lastChange, st.mtimeMs);
    if (st.size > f.grownBytes) {
      f.grownBytes = st.size;
      this.spool(file, f, st.size, 'Stop');
    }
  }

  private readonly debounced = (file: string): void => {
    clearTimeout(this.pending.get(file));
    this.pending.set(
      file,
      setTimeout(() => {
        this.pending.delete(file);
        void this.changed(file).catch((e) => this.o.log('warn', `codex: ${file}: ${errorMessage(e)}`));
      }, 2000),
    );
  };

  /** Rollouts quiet for long enough are finished: queue what is left of them (forced, like a SessionEnd). */
  private async finishQuiet(): Promise<void> {
    const quiet = this.finishedAfterMs();
    for (const [file, f] of this.followed) {
      if (!f.ours) continue;
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st) {
        this.followed.delete(file);
        continue;
      }
      f.lastChange = Math.max(f.lastChange, st.mtimeMs);
      if (this.now() - f.lastChange < quiet || st.size <= f.finishedBytes) continue;
      if (st.size <= ((await this.o.coverage.get(jobKey(f.sessionId)))?.bytes ?? 0)) {
        f.finishedBytes = st.size;
        continue;
      }
      f.finishedBytes = st.size;
      f.grownBytes = Math.max(f.grownBytes, st.size);
      this.spool(file, f, st.size, 'SessionEnd');
    }
  }

  private async start(): Promise<void> {
    if (this.watcher || this.closed) return;
    // From the moment Codex is registered, even before its sessions folder exists: a first rollout written before the
    // watcher is ready is then still picked up by the listing below.
    const since = (this.since ??= followSince(this.o.state, this.o.env, this.now()));
    const dir = this.dir;
    if (!fs.existsSync(dir)) return;
    const w = watch(dir, { ignoreInitial: true, persistent: true, depth: 5 });
    this.watcher = w;
    w.on('add', this.debounced);
    w.on('change', this.debounced);
    w.on('error', (e) => this.o.log('warn', `codex: watching ${dir}: ${errorMessage(e)}`));
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    // Rollouts written since following began, while no host ran: their quiet ones are queued by the next tick.
    for (const file of listRollouts(dir)) {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (st && st.mtimeMs >= since) await this.track(file, st.mtimeMs);
    }
    this.o.log('info', `codex: following ${dir}`);
  }

  private async stop(): Promise<void> {
    const w = this.watcher;
    this.watcher = undefined;
    this.followed.clear();
    if (w) await w.close();
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    try {
      if (!codexRegistered(this.o.env)) {
        await this.stop();
      } else {
        await this.start();
        await this.finishQuiet();
      }
    } catch (e) {
      this.o.log('warn', `codex: ${errorMessage(e)}`);
    }
    if (!this.closed) {
      this.timer = setTimeout(() => void this.tick(), Math.min(15_000, Math.max(250, this.finishedAfterMs() / 4)));
      this.timer.unref?.();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
    await this.stop();
  }
}

function realOrAsIs(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

export function startCodexFollower(o: CodexFollowerOptions): CodexFollower {
  return new CodexFollowing(o);
}
