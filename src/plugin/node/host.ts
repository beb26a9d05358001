// The plugin as the vault's host (desktop only, loaded lazily): the same Node-side composition the daemon runs
// (sidecar/hosting/open-host.ts) over Obsidian's vault port and vault events, embeddings from a supervised
// `engram embed-server` child. A daemon that hosts the vault is asked to hand over; on unload the plugin saves and
// releases, and the next hook starts a daemon again.
import { NEWER_CLIENT, openHost, type VaultFollower } from '../../../sidecar/hosting/open-host';
import { extractorMaker, indexMaker } from '../../../sidecar/hosting/wiring';
import { hostLogger, type Logger } from '../../../sidecar/hosting/logger';
import type { RunningHost } from '../../../sidecar/hosting/running-host';
import { releaseHost } from '../../../sidecar/hosting/release';
import { hostTeam, teamPane } from '../../../sidecar/hosting/team/team-service';
import { engramHome, vaultState, type VaultState } from '../../../sidecar/hosting/paths';
import { clientSettings } from '../../../sidecar/hosting/settings';
import { isoDate } from '../../core/day';
import { errorMessage } from '../../core/errors';
import type { VaultPort } from '../../core/ports';
import type { EngramSettings, EngineConfigAccess } from '../settings';
import type { HostState } from '../status-bar';
import { openEmbedChild } from './embed-child';
import type { EmbedChild, EmbedChildStatus } from './embed-child';
import { nodeConfigAccess, pluginConfig } from './config-access';
import { yieldToUi } from './yield';
import { coreOperations } from '../../core/operations';
import { operationsApi, type EngramApi } from '../views/api';
import type { ConfigReader } from '../../../sidecar/hosting/config-file';

export interface PluginHostInput {
  /** The vault's folder on disk (FileSystemAdapter's base path). */
  vaultPath: string;
  vault: VaultPort;
  follow: VaultFollower;
  settings: Pick<EngramSettings, 'engramHome' | 'nodePath' | 'cliPath'>;
  onState: (s: HostState) => void;
  /** Says once what is missing (a notice). */
  tell: (message: string) => void;
  /** The process environment (read once, here, for the plugin). */
  env?: NodeJS.ProcessEnv;
  /** After the host was released by someone else, how long before the plugin hosts again (default a minute). */
  rehostMs?: number;
}



export class PluginHost {
  private running?: RunningHost;
  private embedder?: EmbedChild;
  private stopping = false;
  private rehostTimer?: ReturnType<typeof setTimeout>;
  private dueTimer?: ReturnType<typeof setInterval>;
  private current: HostState = { kind: 'starting' };
  private indexing?: { phase: string; done: number; total: number };
  private problems = new Set<string>();
  private apiFor?: { host: RunningHost; api: EngramApi };
  readonly env: NodeJS.ProcessEnv;
  readonly state: VaultState;
  readonly log: Logger;
  /** config.json as it is at each use (the plugin's entry reads it; the host and the panes are handed this). */
  private readonly readConfig: ConfigReader;
  /** Settles when the host has stopped and released everything (after stop()). */
  stopped: Promise<void> = Promise.resolve();

  private constructor(private readonly input: PluginHostInput) {
    const base = input.env ?? process.env;
    // The home in the plugin's settings, else the environment's, else ~/.engram: one value for every child too.
    this.env = { ...base, ENGRAM_HOME: input.settings.engramHome || engramHome(base) };
    this.state = vaultState(input.vaultPath, this.env);
    this.log = hostLogger(this.state.key, false, this.env).log;
    this.readConfig = pluginConfig(this.env);
  }

  /** Starts hosting (taking over from a daemon when one hosts); resolves once the socket is bound or it gave up. */
  static async start(input: PluginHostInput): Promise<PluginHost> {
    const host = new PluginHost(input);
    await host.host();
    return host;
  }

  /** The $ENGRAM_HOME in use (stored in the plugin's settings so `engram doctor` compares). */
  get home(): string {
    return this.env.ENGRAM_HOME!;
  }

  get hostState(): HostState {
    return this.current;
  }

  get engine() {
    return this.running?.engine;
  }

  /** The panes' and commands' API over this host's engine (undefined while it does not host). */
  api(): EngramApi | undefined {
    const running = this.running;
    if (!running) return undefined;
    if (this.apiFor?.host !== running) {
      const team = hostTeam(this.env, running.config);
      const ops = coreOperations({
        engine: running.engine,
        // The panes never inject context; the hooks' caps are read for the dashboard's budget lines.
        injection: () => {
          const c = clientSettings(this.readConfig, this.env);
          return { inject: false, sessionStartChars: c.session_start_max_chars, promptChars: c.prompt_max_chars, promptItems: c.prompt_max_items, sessionChars: c.session_max_chars };
        },
        team,
      });
      const vault = running.engine.ports.vault;
      const pane = teamPane(this.env, running.config, running.state.vault, async (p) => (await vault.read(p)).text);
      this.apiFor = { host: running, api: operationsApi(running.engine, ops, team, pane) };
    }
    return this.apiFor.api;
  }

  /** The embedding child: running (with its pid), restarting (why), or stopped; undefined when there is none. */
  get embeddings(): EmbedChildStatus | undefined {
    return this.embedder?.status;
  }

  /** Why something does not work (no Node, no CLI, no model), each said once. */
  problem(): string | undefined {
    return [...this.problems].join(' ') || undefined;
  }

  config(): EngineConfigAccess {
    return nodeConfigAccess(this.env, this.input.settings);
  }

  private set(s: HostState): void {
    this.current = s;
    this.input.onState(s);
  }

  private say(problem: string): void {
    if (this.problems.has(problem)) return;
    this.problems.add(problem);
    this.input.tell(problem);
  }

  private hereState(): HostState {
    const engine = this.running?.engine;
    return { kind: 'here', indexing: this.indexing, notes: engine?.noteCount() ?? 0, due: engine?.ready ? engine.dueCount(isoDate(Date.now())) : 0 };
  }

  private async host(): Promise<void> {
    this.set({ kind: 'starting' });
    for (let attempt = 0; attempt < 3 && !this.stopping; attempt++) {
      const opened = await openHost({
        kind: 'plugin',
        state: this.state,
        env: this.env,
        log: this.log,
        vault: this.input.vault,
        follow: this.input.follow,
        yieldNow: yieldToUi,
        makeIndex: indexMaker(this.state, {
          yieldNow: yieldToUi,
          embedder: () => this.openEmbeddings(),
          onProgress: (p) => {
            this.indexing = p.phase === 'embed' ? undefined : { phase: p.phase, done: p.done, total: p.total };
            this.set(this.hereState());
          },
        }),
        makeExtractor: extractorMaker(this.state, this.env, this.readConfig),
        config: this.readConfig,
      });
      if (opened.kind === 'hosting') {
        this.running = opened.host;
        this.stopped = opened.closed.then((reason) => this.afterClose(reason));
        this.set(this.hereState());
        void opened.host.engine.whenReady().then(() => {
          this.indexing = undefined;
          if (this.running === opened.host) this.set(this.hereState());
        });
        this.dueTimer = setInterval(() => {
          if (this.running) this.set(this.hereState());
        }, 60_000);
        return;
      }
      if (opened.lease) {
        // Another device hosts this synced vault: this Obsidian reads and edits notes; that device captures and curates.
        this.say(`Engram: device ${opened.lease.device} hosts this vault (a synced folder); this device waits until its lease expires.`);
        this.set({ kind: 'elsewhere', by: opened.lease.host, pid: opened.lease.pid });
        return;
      }
      const owner = opened.owner;
      if (owner?.host === 'plugin') {
        // Another Obsidian (this vault opened twice, or a synced home) hosts it: leave it be.
        this.set({ kind: 'elsewhere', by: 'plugin', pid: owner.pid });
        return;
      }
      this.set({ kind: 'elsewhere', by: 'daemon', pid: owner?.pid });
      // A daemon hosts: ask it to hand over (it finishes or returns its job, saves, releases), then bind.
      const r = await releaseHost(this.state, this.env, 'Obsidian opened the vault', { client: 'obsidian' }).catch((e) => {
        this.log('warn', `handover: ${errorMessage(e)}`);
        return { free: false };
      });
      if (!r.free) this.log('warn', 'the daemon did not hand over in time; trying again');
    }
    if (!this.running && !this.stopping) this.scheduleRehost('the daemon did not hand over');
  }

  private async openEmbeddings(): Promise<EmbedChild | undefined> {
    if (this.stopping) return undefined;
    const r = await openEmbedChild(this.input.settings, this.env, { log: (line) => this.log('info', `embed-server: ${line}`) });
    if (!r.ok) {
      this.say(`Engram searches by words only: ${r.problem}`);
      return undefined;
    }
    if (this.stopping) {
      await r.embedder.dispose();
      return undefined;
    }
    this.embedder = r.embedder;
    return r.embedder;
  }

  private async afterClose(reason: string): Promise<void> {
    this.running = undefined;
    clearInterval(this.dueTimer);
    await this.embedder?.dispose().catch(() => undefined);
    this.embedder = undefined;
    if (this.stopping) return;
    if (reason === NEWER_CLIENT) {
      // A newer Engram took over: hosting again would take the vault back from it, over and over.
      this.set({ kind: 'none', why: 'a newer version of Engram (the command line) hosts this vault now; update the plugin to host it here again' });
      return;
    }
    // Someone asked this host to go (`engram serve --stop`): host again after a while.
    this.scheduleRehost(`released (${reason})`);
  }

  private scheduleRehost(why: string): void {
    this.set({ kind: 'none', why: `${why}; trying again in a minute` });
    this.rehostTimer = setTimeout(() => {
      this.rehostTimer = undefined;
      if (!this.stopping) void this.host().catch((e) => this.log('error', `hosting failed: ${errorMessage(e)}`));
    }, this.input.rehostMs ?? 60_000);
  }

  /** Saves the snapshot and releases the lock, the socket, the embedding child and every timer. */
  async stop(reason: string): Promise<void> {
    this.stopping = true;
    clearTimeout(this.rehostTimer);
    clearInterval(this.dueTimer);
    if (this.running) await this.running.shutdown(reason);
    await this.stopped;
    await this.embedder?.dispose().catch(() => undefined);
    this.embedder = undefined;
    this.set({ kind: 'none', why: reason });
  }
}
