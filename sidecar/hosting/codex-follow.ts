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
import { loadConfig } from './config-file.js';
import type { CoverageStore } from './coverage.js';
import { homeDir, hostFacts } from './facts.js';
import { findVault } from './resolve.js';
import { jobKey } from '../../src/core/capture/session-jobs.js';
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

const ROLLOUT_RE = /^rollout-.*\.jsonl$/;

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
      .filter((e) => e.isFile() && ROLLOUT_RE.test(e.name))
      .map((e) => path.join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

export function startCodexFollower(o: CodexFollowerOptions): CodexFollower {
  const now = o.now ?? Date.now;
  const dir = codexSessionsDir(o.env);
  const followed = new Map<string, Followed>();
  const vault = (() => {
    try {
      return fs.realpathSync.native(o.state.vault);
    } catch {
      return o.state.vault;
    }
  })();
  let watcher: FSWatcher | undefined;
  let since: number | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const pending = new Map<string, NodeJS.Timeout>();

  const finishedAfterMs = (): number => {
    try {
      return loadConfig(hostFacts(o.env)).config.get('codex.finished_after_seconds') * 1000;
    } catch {
      return 300_000;
    }
  };

  const belongsHere = (cwd: string | undefined): boolean => {
    try {
      const found = findVault(hostFacts(o.env), cwd ?? homeDir(o.env));
      if (!found) return false;
      return fs.realpathSync.native(found.path) === vault;
    } catch {
      return false;
    }
  };

  const track = async (file: string, mtime: number): Promise<Followed | undefined> => {
    let f = followed.get(file);
    if (!f) {
      if (await isEngramOwnTranscript(file)) return undefined;
      const sessionId = rolloutSessionId(file);
      const cwd = rolloutCwd(file);
      const covered = (await o.coverage.get(jobKey(sessionId)))?.bytes ?? 0;
      f = { sessionId, cwd, ours: belongsHere(cwd), lastChange: mtime, grownBytes: covered, finishedBytes: covered };
      followed.set(file, f);
      if (f.ours) o.log('info', `codex: following ${file}`);
    }
    return f;
  };

  const spool = (file: string, f: Followed, size: number, event: 'Stop' | 'SessionEnd') => {
    writeSpoolEntry(o.state.spool, {
      format: SPOOL_FORMAT,
      event,
      sessionId: f.sessionId,
      transcriptPath: file,
      transcriptBytes: size,
      cwd: f.cwd,
      spooledAt: new Date(now()).toISOString(),
      payload: { session_id: f.sessionId, transcript_path: file, hook_event_name: event, source: 'codex' },
    });
    o.notify();
  };

  /** A rollout was written to: queue it like a Stop when it grew since it was last queued. */
  const changed = async (file: string) => {
    if (closed || since === undefined || !ROLLOUT_RE.test(path.basename(file))) return;
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) return;
    const f = await track(file, st.mtimeMs);
    if (!f?.ours) return;
    f.lastChange = Math.max(f.lastChange, st.mtimeMs);
    if (st.size > f.grownBytes) {
      f.grownBytes = st.size;
      spool(file, f, st.size, 'Stop');
    }
  };

  const debounced = (file: string) => {
    clearTimeout(pending.get(file));
    pending.set(
      file,
      setTimeout(() => {
        pending.delete(file);
        void changed(file).catch((e) => o.log('warn', `codex: ${file}: ${errorMessage(e)}`));
      }, 2000),
    );
  };

  /** Rollouts quiet for long enough are finished: queue what is left of them (forced, like a SessionEnd). */
  const finishQuiet = async () => {
    const quiet = finishedAfterMs();
    for (const [file, f] of followed) {
      if (!f.ours) continue;
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st) {
        followed.delete(file);
        continue;
      }
      f.lastChange = Math.max(f.lastChange, st.mtimeMs);
      if (now() - f.lastChange < quiet || st.size <= f.finishedBytes) continue;
      if (st.size <= ((await o.coverage.get(jobKey(f.sessionId)))?.bytes ?? 0)) {
        f.finishedBytes = st.size;
        continue;
      }
      f.finishedBytes = st.size;
      f.grownBytes = Math.max(f.grownBytes, st.size);
      spool(file, f, st.size, 'SessionEnd');
    }
  };

  const start = async () => {
    if (watcher || closed) return;
    // From the moment Codex is registered, even before its sessions folder exists: a first rollout written before the
    // watcher is ready is then still picked up by the listing below.
    since ??= followSince(o.state, o.env, now());
    if (!fs.existsSync(dir)) return;
    const w = watch(dir, { ignoreInitial: true, persistent: true, depth: 5 });
    watcher = w;
    w.on('add', debounced);
    w.on('change', debounced);
    w.on('error', (e) => o.log('warn', `codex: watching ${dir}: ${errorMessage(e)}`));
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    // Rollouts written since following began, while no host ran: their quiet ones are queued by the next tick.
    for (const file of listRollouts(dir)) {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (st && st.mtimeMs >= since) await track(file, st.mtimeMs);
    }
    o.log('info', `codex: following ${dir}`);
  };

  const stop = async () => {
    const w = watcher;
    watcher = undefined;
    followed.clear();
    if (w) await w.close();
  };

  const tick = async () => {
    if (closed) return;
    try {
      if (!codexRegistered(o.env)) {
        await stop();
      } else {
        await start();
        await finishQuiet();
      }
    } catch (e) {
      o.log('warn', `codex: ${errorMessage(e)}`);
    }
    if (!closed) {
      timer = setTimeout(() => void tick(), Math.min(15_000, Math.max(250, finishedAfterMs() / 4)));
      timer.unref?.();
    }
  };

  const ready = tick();
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      for (const t of pending.values()) clearTimeout(t);
      pending.clear();
      await stop();
    },
  };
}
