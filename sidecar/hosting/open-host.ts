// Hosting one vault's engine in a Node process, for either host: the daemon (`engram serve`) or the Obsidian plugin.
// Wins the election or reports the owner; hands the engine its ports; serves the socket; drains the spool; follows the
// vault and Codex's rollouts; on shutdown finishes (or returns) the running job, saves, and releases the lock.
import path from 'node:path';
import type { Engine, EngineIndex } from '../../src/core/engine.js';
import type { VaultChange, VaultPort, Yield } from '../../src/core/ports.js';
import { errorMessage } from '../../src/core/errors.js';
import { foldersFromConfig } from '../../src/core/note/route.js';
import { PROTOCOL_VERSION, WRITE_METHODS } from '../../src/core/protocol/index.js';
import { isHookClient } from '../../src/core/transcript/client.js';
import type { TranscriptExtractor } from '../../src/core/capture/session-jobs.js';
import { engramHome, type VaultState } from './paths.js';
import { acquireHostLock, releaseHostLock, type LockInfo } from './election.js';
import { NodeVault } from './node-vault.js';
import { NodeStateStore } from './node-state-store.js';
import type { ConfigReader } from './config-file.js';
import { removeTempLeftovers } from './temp-files.js';
import { composeEngine } from './compose.js';
import { faultFromEnv, faultTrigger, type FaultHit } from './fault.js';
import { startTeamSync } from './team/team-service.js';
import { thisDevice, type Device } from './device.js';
import { describeLease, describeUnseen, LEASE_RENEW_MS, recordDevice, releaseLease, takeLease, unseenDevices, type Lease, type LeaseResult } from './vault-lease.js';
import { releaseStartClaim } from './start-host.js';
import { startHeartbeat } from './hung-host.js';
import { setAsideDamagedLedger } from './ledger-repair.js';
import { HostServer, ensureToken } from './server.js';
import type { Logger } from './logger.js';
import { ensureStateDirs, retrySetAside, returnClaimed, unclaim } from './spool.js';
import { startCodexFollower, type CodexFollower } from './codex-follow.js';
import { makeHandlers } from './handlers.js';
import { claudeMemoryFiles } from './claude-memory.js';
import { importClaudeMemory } from '../../src/core/memory/claude-memory.js';
import type { HostKind, RunningHost } from './running-host.js';

/** Follows changes anyone makes to the vault (chokidar for the daemon, Obsidian's vault events for the plugin). */
export type VaultFollower = (onChange: (c: VaultChange) => void) => { close(): Promise<void> | void };

export interface OpenHostOptions {
  kind: HostKind;
  state: VaultState;
  env: NodeJS.ProcessEnv;
  /**
   * The configuration as it is now, from the entry that opens the host (the daemon's main, the plugin): read at each
   * use, so an edit (read-only mode, Claude Code's memory, the backend for the next job) applies without a restart.
   */
  config: ConfigReader;
  log: Logger;
  /** The vault as this host writes it: the fs adapter (default) or Obsidian's API. */
  vault?: VaultPort;
  follow: VaultFollower;
  /** Lets long work give the event loop a turn (Obsidian's UI). */
  yieldNow?: Yield;
  /** How often the spool is swept (default 30 s). */
  sweepMs?: number;
  /** How long deferred events wait before they are retried (default an hour). */
  deferRetryMs?: number;
  /** Holds each session job open this long before it runs (tests: a job in flight to kill or to race). */
  jobDelayMs?: number;
  /** Any authenticated request (the daemon's idle timer). */
  onActivity?: () => void;
  /** The real index and extractor when this build has them; the engine's built-in BM25 otherwise. */
  makeIndex?: (vault: VaultPort, log: Logger, fault: FaultHit) => Promise<EngineIndex | undefined>;
  makeExtractor?: (engine: Engine, vault: VaultPort, fault: FaultHit) => Promise<TranscriptExtractor | undefined>;
}

/** Not hosting: a host on this machine holds host.lock (`owner`), or another device holds the vault's lease (`lease`). */
export type OpenedHost = { kind: 'already-running'; owner?: LockInfo; lease?: Lease } | { kind: 'hosting'; host: RunningHost; closed: Promise<string> };

/** Why a host stopped when a client with a newer protocol major asked it to go. */
export const NEWER_CLIENT = 'a newer client took over';

/** This host holds host.lock and the vault's lease (or hosts without a lease it cannot write). */
interface Elected {
  device: Device;
  /** When this device's lease began (kept on each renewal). */
  since: string;
  stopHeartbeat: () => void;
}

/** host.lock on this machine, then the vault's lease among devices; or who hosts instead. */
function elect(opts: OpenHostOptions): Elected | OpenedHost {
  const { state, env, log } = opts;
  ensureStateDirs(state);
  const election = acquireHostLock(state.lock, opts.kind);
  if (!election.won) return { kind: 'already-running', owner: election.owner };
  releaseStartClaim(state.dir);
  // One machine per vault: another device's lease, not yet expired, means that device hosts this vault (a synced folder).
  const device = thisDevice(engramHome(env));
  let leased: LeaseResult | undefined;
  try {
    leased = takeLease(state.vault, device, opts.kind);
  } catch (e) {
    // A vault this host cannot write (read-only, a full disk): it still serves recall; only other devices cannot see it.
    log('warn', `cannot write the vault's lease (${errorMessage(e)}); hosting without it, unseen by other devices`);
  }
  if (leased && !leased.ok) {
    log('warn', `not hosting ${state.vault}: ${describeLease(leased.holder)} hosts it; this device (${device.name}) waits until that lease expires`);
    releaseHostLock(state.lock);
    return { kind: 'already-running', lease: leased.holder };
  }
  log('info', `${opts.kind} host starting for ${state.vault} (key ${state.key}, protocol ${PROTOCOL_VERSION})`);
  // While the event loop runs, the heartbeat moves: a client that gets no answer tells a stuck host from a busy one.
  const stopHeartbeat = startHeartbeat(state.dir);
  try {
    recordDevice(state.vault, device);
  } catch {
    // Not writable: warned about with the lease above.
  }
  return { device, since: leased?.ok ? leased.lease.since : new Date().toISOString(), stopHeartbeat };
}

/** The engine composed over the host's ports, with the real index and extractor when this build has them. */
async function composeHost(opts: OpenHostOptions, device: Device) {
  const { state, log } = opts;
  // The crash switch (ENGRAM_FAULT), read once: what this host writes takes it as a port.
  const fault = faultTrigger(faultFromEnv(opts.env));
  const vault = opts.vault ?? new NodeVault(state.vault);
  const index = await opts.makeIndex?.(vault, log, fault).catch((e) => {
    log('warn', `index unavailable, using the built-in BM25: ${errorMessage(e)}`);
    return undefined;
  });
  const composed = composeEngine({ state, env: opts.env, config: opts.config, log, fault, vault, index, yieldNow: opts.yieldNow, deferRetryMs: opts.deferRetryMs, jobDelayMs: opts.jobDelayMs });
  // A config.json broken by hand (the last good copy is in use), invalid values, mistyped keys: in the host log too.
  for (const p of composed.config.problems) log('warn', `configuration: ${p}`);
  // A device whose lease cannot reach this machine (a sync without dot folders): say so, since both may host.
  const unseen = describeUnseen(unseenDevices(state.vault, device, foldersFromConfig(composed.config).log));
  if (unseen) log('warn', `${unseen}; run Engram's host on one machine at a time (engram serve --stop on the other), or sync with a tool that carries dot folders`);
  const made = await opts.makeExtractor?.(composed.engine, vault, fault).catch((e) => {
    log('warn', `extraction unavailable: ${errorMessage(e)}`);
    return undefined;
  });
  if (made) composed.setExtractor(made);
  return { ...composed, vault, fault };
}

/** What runs beside the socket while the host lives; each is stopped at shutdown. */
interface Background {
  watcher?: ReturnType<VaultFollower>;
  codex?: CodexFollower;
  team?: { tick(): void; close(): Promise<void> };
  timers: ReturnType<typeof setInterval>[];
  /** The save right after the first start (awaited before the last save at shutdown). */
  firstSave: Promise<void>;
  shuttingDown: Promise<void> | null;
}

/** Stops the host: the socket, the running job (or gives it back), the followers, the last save, the lock. */
async function stopHost(host: RunningHost, bg: Background, server: HostServer, el: Elected, reason: string): Promise<void> {
  const { state, log, capture, engine } = host;
  log('info', `host stopping: ${reason}`);
  for (const t of bg.timers) clearInterval(t);
  el.stopHeartbeat();
  await server.close();
  // Finish the running job (or give up after a while: its entries go back to the spool).
  const current = capture.queue.currentData();
  let giveUp: ReturnType<typeof setTimeout> | undefined;
  const finished = await Promise.race([capture.queue.stop().then(() => true), new Promise<boolean>((r) => (giveUp = setTimeout(() => r(false), 20_000)))]);
  clearTimeout(giveUp);
  if (!finished && current) unclaim(state, current.files);
  returnClaimed(state);
  await Promise.resolve(bg.watcher?.close()).catch(() => {});
  await bg.codex?.close().catch(() => {});
  await bg.team?.close();
  // The save after start first: left running, it wrote notes.json after the host had released and exited.
  await bg.firstSave;
  // The snapshot, recall statistics and which notes each session was given.
  await engine.save().catch((e) => log('warn', `saving the engine's state failed: ${errorMessage(e)}`));
  await engine.activity!.written();
  releaseLease(state.vault, el.device);
  releaseHostLock(state.lock);
}

/** The socket: the handler table, read-only mode for agents (read at each request), an agent's calls recorded. */
function hostServer(opts: OpenHostOptions, host: RunningHost): HostServer {
  const { state } = opts;
  return new HostServer({
    socket: state.socket,
    token: ensureToken(opts.env),
    hello: () => ({ host: opts.kind, pid: process.pid, vault: state.vault }),
    handlers: makeHandlers(host, opts.env),
    onActivity: () => opts.onActivity?.(),
    onTakeover: () => void host.shutdown(NEWER_CLIENT),
    refuse: (client, method) => (client === 'mcp' && WRITE_METHODS.has(method) && opts.config().get('recall.read_only')
      ? `Engram is read-only for agents (recall.read_only): ${method} is refused; the user can turn it off with \`engram configure recall.read_only false\``
      : undefined),
    // An agent's MCP requests and the size of each answer, in the activity record.
    onCall: (c) => {
      if (c.client !== 'mcp') return;
      // The note a `read` answered with: the dashboard counts an injected note read afterwards as used (usage.ts).
      const read = c.method === 'read' && typeof (c.result as { path?: unknown } | undefined)?.path === 'string' ? [(c.result as { path: string }).path] : undefined;
      // The MCP client that asked (1.7: Claude Code, Codex), so the Activity pane's and `engram activity`'s client filter keeps it.
      const agent = (c.params as { agent?: unknown } | undefined)?.agent;
      host.engine.activity!.add({ kind: 'mcp', method: c.method, ...(isHookClient(agent) ? { agent } : {}), answerChars: c.answerChars, ms: c.ms, ...(c.error ? { error: c.error } : {}), ...(read ? { notes: read } : {}) });
    },
    log: opts.log,
  });
}

/** What a previous host left: a damaged ledger set aside, claimed entries returned, set-aside events retried. */
function recoverLeftovers(state: VaultState, log: Logger): void {
  const damaged = setAsideDamagedLedger(state);
  if (damaged) log('warn', `the ledger was damaged: set aside as ${damaged}; a new one starts (notes already written stay, dedup skips beats extracted before)`);
  const returned = returnClaimed(state);
  if (returned) log('info', `returned ${returned} entries claimed by a previous host`);
  // Set-aside events whose cause is gone (or whose wait is over) come back now and on every sweep.
  const retried = retrySetAside(state);
  if (retried) log('info', `retrying ${retried} events set aside in spool/failed/`);
}

/** Claude Code's own memory files, as notes (read only; at start and whenever a memory folder changed). */
function memoryImporter(host: RunningHost, env: NodeJS.ProcessEnv, stopping: () => boolean): () => Promise<void> {
  const { engine, log, state } = host;
  let memorySeen: string | undefined;
  let importing = false;
  return async () => {
    if (importing || stopping() || !engine.ready) return;
    const c = host.config();
    if (!c.get('capture.claude_memory')) return;
    importing = true;
    try {
      const found = claudeMemoryFiles(env, memorySeen);
      if (!found.files) return;
      const done = await importClaudeMemory({ vault: host.vault, state: new NodeStateStore(engramHome(env)), dir: `vaults/${state.key}`, folder: c.get('folders.claude_memory'), files: found.files });
      memorySeen = found.signature;
      for (const d of done) if (d.action !== 'unchanged') engine.activity!.add({ kind: 'memory', project: found.files.find((f) => f.source === d.source)?.project, source: d.source, path: d.path, action: d.action, ...(d.why ? { why: d.why } : {}) });
      if (done.some((d) => d.action === 'created' || d.action === 'updated')) await engine.reconcile();
    } catch (e) {
      log('warn', `Claude Code memory not imported: ${errorMessage(e)}`);
    } finally {
      importing = false;
    }
  };
}

/** The sweep (spool, memory, team, rescan) and the lease's renewal, on timers the host clears at shutdown. */
function startTimers(opts: OpenHostOptions, host: RunningHost, bg: Background, el: Elected, importMemory: () => Promise<void>): void {
  const { engine, log } = host;
  let sweeps = 0;
  const sweep = setInterval(() => {
    host.capture.sweep();
    void importMemory();
    sweeps++;
    // Every 5 minutes the team store (its first run was at start, not on the first sweep).
    if (sweeps % 10 === 0) bg.team?.tick();
    // Every 10 minutes, a rescan catches anything the watcher missed.
    if (sweeps % 20 === 0 && engine.ready) void engine.reconcile().catch((e) => log('warn', `rescan failed: ${errorMessage(e)}`));
  }, opts.sweepMs ?? 30_000);
  sweep.unref?.();
  // The lease is renewed while this host runs; a device that took it meanwhile (ours expired: a sleep, a stall) keeps it.
  const renew = setInterval(() => {
    try {
      const r = takeLease(host.state.vault, el.device, opts.kind, el.since);
      if (!r.ok) void host.shutdown(`${describeLease(r.holder)} took over this vault`);
    } catch (e) {
      log('warn', `renewing the vault's lease failed: ${errorMessage(e)}`);
    }
  }, LEASE_RENEW_MS);
  renew.unref?.();
  bg.timers.push(sweep, renew);
}

/** Once the engine has started: finish a curation apply a crash interrupted, drain the spool, save the first snapshot. */
function afterStart(host: RunningHost, bg: Background, kind: HostKind, importMemory: () => Promise<void>): void {
  const { engine, log } = host;
  // A host told to stop while it was starting has released the vault (or is releasing it): it writes nothing more.
  if (bg.shuttingDown) return;
  // A curation apply a crash interrupted (this host's, or a CLI's): finished now, or rolled back.
  const curation = engine.curation;
  if (curation) void curation.exclusive(() => curation.resumeInterrupted({ actor: kind })).then(
    async (done) => {
      for (const o of done) log(o.ok ? 'info' : 'warn', o.ok ? `finished proposal ${o.id}, whose apply a crash interrupted` : `proposal ${o.id}, interrupted by a crash: ${o.error}`);
      if (done.length) await engine.reconcile();
    },
    (e) => log('warn', `resuming interrupted applies failed: ${errorMessage(e)}`),
  );
  host.drain();
  void importMemory();
  // Save the freshly built index at once: a crash later must not cost a full rebuild.
  bg.firstSave = engine.save().catch((e) => log('warn', `snapshot failed: ${errorMessage(e)}`));
}

/** What follows the socket: the vault watcher, Codex's rollouts, the team store, the timers, the engine's start. */
function startBackground(opts: OpenHostOptions, host: RunningHost, bg: Background, el: Elected): void {
  const { engine, log } = host;
  // The watcher starts once the engine has answered the context requests waiting for it: its first walk of a large
  // vault (seconds of stat calls on this thread) must not delay the context a hook that started this host is waiting
  // for. From a saved index it starts before the engine lists the vault; without one, after the first full read, and
  // a rescan catches what changed in between.
  void engine.whenFirstAnswered().then(() => {
    if (bg.shuttingDown) return;
    bg.watcher = opts.follow((c) => engine.applyChange(c));
    if (engine.ready) void engine.reconcile().catch((e) => log('warn', `rescan failed: ${errorMessage(e)}`));
  });
  // Codex runs no hooks: once registered (`engram install --agent codex`), its rollouts are followed from disk.
  bg.codex = startCodexFollower({ state: host.state, env: opts.env, config: opts.config, coverage: host.coverage, log, notify: () => host.drain() });
  const importMemory = memoryImporter(host, opts.env, () => bg.shuttingDown !== null);
  // A team store (docs/team.md): promotions waiting are sent and the team's notes cached for recall, in the
  // background, at start and every 5 minutes; nothing that answers a person waits on it.
  bg.team = startTeamSync(opts.config(), opts.env, log);
  startTimers(opts, host, bg, el, importMemory);
  const started = engine.start();
  void started.then(
    () => afterStart(host, bg, opts.kind, importMemory),
    (e) => log('error', `engine start failed: ${errorMessage(e)}`),
  );
  // Temp files a crash left: a walk of the vault's folders, after the first answers like the listing (or a failed start).
  void Promise.race([engine.whenFirstAnswered(), started.catch(() => undefined)]).then(() => cleanCrashLeftovers(host.state, opts.env, log));
}

export async function openHost(opts: OpenHostOptions): Promise<OpenedHost> {
  const { state, log } = opts;
  const el = elect(opts);
  if (!('device' in el)) return el;
  let closedResolve!: (reason: string) => void;
  const closed = new Promise<string>((r) => (closedResolve = r));
  try {
    const { engine, coverage, vault, fault } = await composeHost(opts, el.device);
    const capture = engine.capture!;
    const bg: Background = { timers: [], firstSave: Promise.resolve(), shuttingDown: null };
    const host: RunningHost = {
      kind: opts.kind, state, vault, engine, capture, coverage, curation: engine.curation!, startedAt: Date.now(), log, fault, config: opts.config,
      drain: () => capture.drain(),
      shutdown(reason: string) {
        bg.shuttingDown ??= stopHost(host, bg, server, el, reason).then(() => closedResolve(reason));
        return bg.shuttingDown;
      },
    };
    const server = hostServer(opts, host);
    await server.listen();
    log('info', `listening on ${state.socket}`);
    recoverLeftovers(state, log);
    startBackground(opts, host, bg, el);
    return { kind: 'hosting', host, closed };
  } catch (e) {
    log('error', `host failed: ${(e as Error)?.stack ?? String(e)}`);
    el.stopHeartbeat();
    releaseLease(state.vault, el.device);
    releaseHostLock(state.lock);
    throw e;
  }
}

/** Temp files a killed writer left, in $ENGRAM_HOME and in the vault's folders. */
async function cleanCrashLeftovers(state: VaultState, env: NodeJS.ProcessEnv, log: Logger): Promise<void> {
  const home = engramHome(env);
  try {
    const gone = await removeTempLeftovers([
      { dir: home, legacy: 'state', maxDepth: 0 },
      { dir: path.join(home, 'vaults'), legacy: 'state' },
      { dir: path.join(home, 'logs'), legacy: 'state' },
      { dir: state.vault, legacy: 'vault' },
    ]);
    if (gone.length) log('info', `removed ${gone.length} temp files left by a crash: ${gone.slice(0, 5).join(', ')}${gone.length > 5 ? ', …' : ''}`);
  } catch (e) {
    log('warn', `crash cleanup: ${errorMessage(e)}`);
  }
}
