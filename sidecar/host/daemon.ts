// `engram serve`: hosts the engine for one vault, headless. Wins the election or leaves; serves the socket; drains
// the spool; follows the vault; exits when idle, on --stop, or on handover (host.release).
import fs from 'node:fs';
import path from 'node:path';
import { Engine, type EngineIndex } from '../../src/core/engine.js';
import { systemClock, yieldToEventLoop } from '../../src/core/ports.js';
import { errorMessage } from '../../src/core/errors.js';
import { PROTOCOL_VERSION } from '../../src/core/protocol/index.js';
import { vaultState, type VaultState } from '../node/paths.js';
import { clientSettings } from '../node/settings.js';
import { acquireHostLock, releaseHostLock, type LockInfo } from '../node/election.js';
import { HostServer, ensureToken } from './server.js';
import { hostLogger, type Logger } from './logger.js';
import { NodeVault } from '../node/node-vault.js';
import { NodeStateStore } from '../node/node-state-store.js';
import type { VaultPort } from '../../src/core/ports.js';
import { startVaultWatcher } from './watcher.js';
import { DEFER_AGE_MS, releaseEntries, claimAll, classifyFailure, deferEntries, ensureStateDirs, failEntries, retrySetAside, returnClaimed, returnDeferred, spoolDepth, unclaim } from './spool.js';
import { releaseStartClaim } from '../client/start-host.js';
import { removeTempLeftovers } from '../node/temp-files.js';
import { engramHome as homeOf } from '../node/paths.js';
import { startCodexFollower } from './codex-follow.js';
import { CoverageStore } from './coverage.js';
import type { TranscriptExtractor } from '../../src/core/capture/session-jobs.js';
import { nodeTranscripts } from './session-jobs.js';
import { configuredTranscriptRoots } from '../node/transcript-roots.js';
import { loadConfig } from '../node/config-file.js';
import { hostFacts } from '../node/facts.js';
import { makeHandlers } from './handlers.js';
import type { RunningHost } from './running-host.js';
import { curationSetup } from '../node/curate-host.js';

export interface HostOptions {
  vault: string;
  foreground: boolean;
  env?: NodeJS.ProcessEnv;
  idleMs?: number;
  /** How often the spool is swept (default 30 s). */
  sweepMs?: number;
  /** How long deferred events wait before they are retried (default an hour). */
  deferRetryMs?: number;
  /** Holds each session job open this long before it runs (tests: a job in flight to kill or to race). */
  jobDelayMs?: number;
  /** false: no embedding model is loaded, search stays BM25 (default true). */
  embeddings?: boolean;
  /** Plug-in points: the real index and extractor when available. */
  makeIndex?: (vault: VaultPort, state: VaultState, log: Logger, env: NodeJS.ProcessEnv, opts: { embeddings: boolean }) => Promise<EngineIndex | undefined>;
  makeExtractor?: (engine: Engine, state: VaultState, log: Logger, env: NodeJS.ProcessEnv) => Promise<TranscriptExtractor | undefined>;
}

export type HostOutcome = { kind: 'already-running'; owner?: LockInfo } | { kind: 'exited'; reason: string };

export type { RunningHost } from './running-host.js';

export async function runHost(opts: HostOptions): Promise<HostOutcome> {
  const env = opts.env ?? process.env;
  const state = vaultState(opts.vault, env);
  if (!fs.existsSync(state.vault) || !fs.statSync(state.vault).isDirectory()) {
    throw new Error(`vault path does not exist: ${state.vault}`);
  }
  ensureStateDirs(state);
  const election = acquireHostLock(state.lock, 'daemon');
  if (!election.won) return { kind: 'already-running', owner: election.owner };
  releaseStartClaim(state.dir);

  const { log } = hostLogger(state.key, opts.foreground, env);
  const settings = clientSettings(env);
  const idleMs = opts.idleMs ?? settings.idle_minutes * 60_000;
  log('info', `host starting for ${state.vault} (key ${state.key}, protocol ${PROTOCOL_VERSION})`);

  let exitResolve!: (reason: string) => void;
  const exited = new Promise<string>((r) => (exitResolve = r));
  try {
    const token = ensureToken(env);
    const vault = new NodeVault(state.vault);
    const ports = { vault, clock: systemClock, yieldNow: yieldToEventLoop };
    const index = (await opts.makeIndex?.(vault, state, log, env, { embeddings: opts.embeddings ?? true }).catch((e) => {
      log('warn', `index unavailable, using the built-in BM25: ${errorMessage(e)}`);
      return undefined;
    })) ?? undefined;
    const facts = hostFacts(env);
    const { config } = loadConfig(facts);
    const coverage = new CoverageStore(`${state.dir}/sessions.json`);
    const deferAge = opts.deferRetryMs ?? DEFER_AGE_MS;
    // The extractor dedups through the engine's index, so it is made once the engine exists (below).
    let extractor: TranscriptExtractor = async () => ({ notes: 0, outcome: 'no extractor available in this build' });
    // The one object this host creates: the engine, with this host's ports for its index, curation and capture.
    const engine = new Engine({
      ports,
      index,
      log,
      // Agents reach curation through MCP: the vault's Engram log names `mcp` unless a request says who.
      curation: curationSetup(facts, state.key, config, 'mcp'),
      // Capture: spooled events become one job per session; the ports are this host's disk.
      capture: {
        coverage,
        transcripts: nodeTranscripts(() => configuredTranscriptRoots(env)),
        spool: {
          claim: () => claimAll(state, (m) => log('warn', m)).map((c) => ({ file: c.file, event: c.entry })),
          release: releaseEntries,
          defer: (files, retryAt) => deferEntries(state, files, retryAt, deferAge),
          unclaim: (files) => unclaim(state, files),
          setAside: (files, e) => {
            const cause = classifyFailure(errorMessage(e), homeOf(env), state.vault);
            failEntries(state, files, cause);
            return `its events are in ${state.spool}/failed/ (${cause.kind}; fix: ${cause.fix})`;
          },
          // Deferred events (budget spent, session busy elsewhere) come back hourly, a failed LLM call's session at
          // its backoff time (deferEntries stamps it so); set-aside events once their cause looks gone.
          restore: () => {
            returnDeferred(state, deferAge);
            const again = retrySetAside(state);
            return again ? [`retrying ${again} events set aside in spool/failed/ (their cause looks gone, or their wait is over)`] : [];
          },
          depth: () => spoolDepth(state),
        },
        extractor: (req) => extractor(req),
        thresholds: () => {
          const s = clientSettings(env);
          return { turns: s.stop_min_new_turns, bytes: s.stop_min_new_bytes };
        },
        log,
        hold: opts.jobDelayMs ? () => new Promise((r) => setTimeout(r, opts.jobDelayMs)) : undefined,
      },
      persist: { store: new NodeStateStore(homeOf(env)), dir: `vaults/${state.key}` },
      config: {
        ignore: ['.obsidian', '.trash', '.git', 'node_modules'],
        folders: {
          inbox: config.get('folders.inbox'),
          projects: config.get('folders.projects'),
          working: config.get('folders.working_memory'),
          archive: config.get('folders.archive'),
          log: config.get('folders.log'),
        },
      },
    });
    const made = await opts.makeExtractor?.(engine, state, log, env).catch((e) => {
      log('warn', `extraction unavailable: ${errorMessage(e)}`);
      return undefined;
    });
    if (made) extractor = made;
    const capture = engine.capture!;
    const curation = engine.curation!;
    const queue = capture.queue;

    let idleTimer: NodeJS.Timeout | undefined;
    const touch = () => {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        if (capture.busy) touch();
        else void host.shutdown('idle');
      }, idleMs);
      idleTimer.unref?.();
    };

    const drain = () => capture.drain();

    let shuttingDown: Promise<void> | null = null;
    const host: RunningHost = {
      state, engine, capture, coverage, curation, startedAt: Date.now(), idleMs, log, drain,
      shutdown(reason: string) {
        shuttingDown ??= (async () => {
          log('info', `host stopping: ${reason}`);
          if (idleTimer) clearTimeout(idleTimer);
          clearInterval(sweep);
          await server.close();
          // Finish the running job (or give up after a while: its entries go back to the spool).
          const current = queue.currentData();
          const finished = await Promise.race([queue.stop().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
          if (!finished && current) unclaim(state, current.files);
          returnClaimed(state);
          await watcher.close().catch(() => {});
          await codex.close().catch(() => {});
          // The snapshot, recall statistics and which notes each session was given.
          await engine.save().catch((e) => log('warn', `saving the engine's state failed: ${errorMessage(e)}`));
          releaseHostLock(state.lock);
          exitResolve(reason);
        })();
        return shuttingDown;
      },
    };

    const server = new HostServer({
      socket: state.socket,
      token,
      hello: () => ({ host: 'daemon', pid: process.pid, vault: state.vault }),
      handlers: makeHandlers(host, env),
      onActivity: touch,
      onTakeover: () => void host.shutdown('a newer client took over'),
      log,
    });
    await server.listen();
    log('info', `listening on ${state.socket}`);
    touch();

    const returned = returnClaimed(state);
    if (returned) log('info', `returned ${returned} entries claimed by a previous host`);
    // Set-aside events whose cause is gone (or whose wait is over) come back now and on every sweep.
    const retried = retrySetAside(state);
    if (retried) log('info', `retrying ${retried} events set aside in spool/failed/`);
    // Crash cleanup: temp files a killed writer left, in $ENGRAM_HOME and in the vault's folders.
    void removeTempLeftovers([
      { dir: homeOf(env), legacy: 'state', maxDepth: 0 },
      { dir: path.join(homeOf(env), 'vaults'), legacy: 'state' },
      { dir: path.join(homeOf(env), 'logs'), legacy: 'state' },
      { dir: state.vault, legacy: 'vault' },
    ]).then(
      (gone) => {
        if (gone.length) log('info', `removed ${gone.length} temp files left by a crash: ${gone.slice(0, 5).join(', ')}${gone.length > 5 ? ', …' : ''}`);
      },
      (e) => log('warn', `crash cleanup: ${errorMessage(e)}`),
    );
    const watcher = startVaultWatcher(state.vault, (c) => engine.applyChange(c), (e) => log('warn', `vault watcher: ${errorMessage(e)}${(e as NodeJS.ErrnoException).code === 'ENOSPC' ? ' (out of inotify watches: raise fs.inotify.max_user_watches)' : ''}`));
    // Codex runs no hooks: once registered (`engram install --agent codex`), its rollouts are followed from disk.
    const codex = startCodexFollower({ state, env, coverage, log, notify: () => drain() });
    let sweeps = 0;
    const sweep = setInterval(() => {
      capture.sweep();
      // Every 10 minutes, a rescan catches anything the watcher missed.
      if (++sweeps % 20 === 0 && engine.ready) void engine.reconcile().catch((e) => log('warn', `rescan failed: ${errorMessage(e)}`));
    }, opts.sweepMs ?? 30_000);
    sweep.unref?.();
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void host.shutdown(sig));
    process.on('uncaughtException', (e) => {
      log('error', `uncaught: ${e.stack ?? String(e)}`);
      void host.shutdown('internal error');
    });

    void engine.start().then(
      () => {
        drain();
        // Save the freshly built index at once: a crash later must not cost a full rebuild.
        void engine.save().catch((e) => log('warn', `snapshot failed: ${errorMessage(e)}`));
      },
      (e) => log('error', `engine start failed: ${errorMessage(e)}`),
    );
    const reason = await exited;
    return { kind: 'exited', reason };
  } catch (e) {
    log('error', `host failed: ${(e as Error)?.stack ?? String(e)}`);
    releaseHostLock(state.lock);
    throw e;
  }
}
