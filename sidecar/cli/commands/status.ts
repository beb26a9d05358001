// `engram status [--json]`: the vault's host, queue depth, index size, last runs and budget left.
import fs from 'node:fs';
import type { CommandDefinition } from '../types.js';
import type { HostFacts } from '../../../src/core/state.js';
import type { StatusResult } from '../../../src/core/protocol/messages.js';
import { engramHome, logsDir, vaultState } from '../../hosting/paths.js';
import { listLostEvents, lossCause } from '../../hosting/spool-writer.js';
import { listSetAside } from '../../hosting/spool.js';
import { HostConnection, RpcError, isNoHost } from '../../hosting/connection.js';
import { commandVault } from './serve.js';
import { thisDevice } from '../../hosting/device.js';
import { describeUnseen, leaseStatus, unseenDevices } from '../../hosting/vault-lease.js';
import { foldersFromConfig } from '../../../src/core/note/route.js';
import { lockIsLive, readLock } from '../../hosting/election.js';
import { hungHost } from '../../hosting/hung-host.js';
import { hostStarting } from '../../hosting/start-host.js';
import type { LoadedConfig } from '../../hosting/config-file.js';
import type { EffectiveConfig } from '../../../src/core/config.js';
import { errorMessage } from '../../../src/core/errors.js';
import { count } from '../../../src/core/plural.js';

/** The configuration's problems (a broken file, invalid values, unknown keys), and whether a host can start at all. */
function configStatus(read: () => LoadedConfig): { problems: string[]; blocking?: string; config?: EffectiveConfig } {
  try {
    const { config } = read();
    return { problems: config.problems, config };
  } catch (e) {
    const hint = (e as { hint?: string }).hint;
    const blocking = `${errorMessage(e)}${hint ? ` (${hint})` : ''}`;
    return { problems: [blocking], blocking };
  }
}

/** Why no host answers for this vault, and what to do; undefined when nothing stands in a host's way. */
function noHostReason(state: ReturnType<typeof vaultState>, blockingConfig: string | undefined): string | undefined {
  const hung = hungHost(state);
  if (hung) {
    return hung.replaceable
      ? `the host ${hung.why}; the next hook replaces it (or \`kill -CONT ${hung.owner.pid}\` resumes a stopped one)`
      : `Obsidian's host ${hung.why}; resume or restart Obsidian`;
  }
  if (blockingConfig) return `no host can start: the configuration is invalid: ${blockingConfig}`;
  const lock = readLock(state.lock);
  if (lock && !lockIsLive(lock)) return `host.lock names pid ${lock.pid}, which is gone (a crash); the next hook or \`engram serve\` takes it over`;
  if (hostStarting(state)) return 'a host is starting';
  return undefined;
}

function countJson(dir: string): number {
  try {
    return fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')).length;
  } catch {
    return 0;
  }
}

async function budget(facts: HostFacts, config: EffectiveConfig | undefined): Promise<unknown> {
  if (!config) return undefined;
  try {
    const { extractionBudgetStatus } = await import('../../hosting/extract-runner.js');
    return await extractionBudgetStatus(facts, config);
  } catch {
    return undefined;
  }
}

/** Sessions with windows that failed and wait for a retry (empty when the ledger cannot be read). */
async function pendingWindows(facts: HostFacts, key: string): Promise<import('../../hosting/extract-runner.js').PendingSession[]> {
  try {
    const { pendingExtraction } = await import('../../hosting/extract-runner.js');
    return await pendingExtraction(facts, key);
  } catch {
    return [];
  }
}

export interface SearchStatus {
  /** What the host's index runs on now; without a host, what it would run on (hybrid when a model is present). */
  mode: string;
  model: { id: string; dir: string | null; source: string };
  /** Set when search is keyword-only, with why and what to do about it. */
  bm25Only?: { reason: string; fix: string };
}

/** Why search runs on BM25 only, if it does: the embedding model is missing (the usual case), or still loading. */
async function searchStatus(facts: HostFacts, config: EffectiveConfig | undefined, hostMode: string | undefined): Promise<SearchStatus | undefined> {
  if (!config) return undefined;
  try {
    const { configuredModel } = await import('../../hosting/embedder.js');
    const { engramHome } = await import('../../../src/core/state.js');
    const loc = configuredModel(config, engramHome(facts));
    const present = loc.dir !== null && fs.existsSync(loc.dir);
    const mode = hostMode ?? (present ? 'hybrid' : 'bm25');
    const out: SearchStatus = { mode, model: { id: loc.id, dir: present ? loc.dir : null, source: present ? loc.source : 'missing' } };
    if (mode.startsWith('hybrid')) return out;
    if (!present) {
      out.bm25Only = {
        reason: loc.source !== 'downloaded' && loc.source !== 'missing' ? `${loc.source} is ${loc.dir ?? '?'}, which does not exist` : `no embedding model present (${loc.id} is not in ${loc.downloadDir})`,
        fix: `run \`engram model pull${loc.multilingual ? ' --multilingual' : ''}\` (downloads ${loc.id}), or set ${loc.multilingual ? 'embedding.multilingual_model_path' : 'embedding.model_path'} to a local model folder (\`engram configure ${loc.multilingual ? 'embedding.multilingual_model_path' : 'embedding.model_path'} <folder>\`)`,
      };
    } else if (hostMode !== undefined) {
      out.bm25Only = { reason: `the host has not loaded the embedding model in ${loc.dir} yet (or could not)`, fix: 'wait a few seconds; if it stays, see the host log in $ENGRAM_HOME/logs/' };
    }
    return out;
  } catch {
    return undefined;
  }
}

/** The configured backend and where its credentials come from (as a host started from this environment sees them). */
async function credentialsStatus(facts: HostFacts, config: EffectiveConfig | undefined): Promise<{ backend: string; source: string; detail: string; fix?: string } | undefined> {
  if (!config) return undefined;
  try {
    const { backendCredentials } = await import('../../hosting/backends.js');
    return backendCredentials(config.get('backend'), config, facts.env as NodeJS.ProcessEnv);
  } catch {
    return undefined;
  }
}

export const command: CommandDefinition = {
  usage: 'status [--vault <path>] [--json]',
  description: 'Show the vault\'s host (daemon or Obsidian), queue depth, index size, recent extraction runs and the budget left today.',
  async run(ctx) {
    const vault = commandVault(ctx);
    const state = vaultState(vault, ctx.env);
    let host: StatusResult | null = null;
    let hostError: string | undefined;
    try {
      const conn = await HostConnection.open({ socket: state.socket, env: ctx.env, deadline: Date.now() + 2000, client: 'cli' });
      // Closed whatever the answer: an open socket would keep the command waiting on the host.
      try {
        host = await conn.call('status', {}, Date.now() + 5000);
      } finally {
        conn.close();
      }
    } catch (e) {
      if (!isNoHost(e)) hostError = e instanceof RpcError ? e.message : (e as Error).message;
    }
    // The configuration, read once (a broken file with no last good copy: said on the config line, and what needs it is left out).
    const cfg = configStatus(ctx.configFile);
    const whyNoHost = host ? undefined : noHostReason(state, cfg.blocking);
    const spooled = countJson(state.spool) + countJson(state.claimed);
    const usage = await budget(ctx.facts, cfg.config);
    const search = await searchStatus(ctx.facts, cfg.config, host?.index.mode);
    // Events that did not make it: lost by a hook (a full disk), or set aside after repeated failures, with why.
    const lost = listLostEvents([state.dir, logsDir(ctx.env), engramHome(ctx.env)]).map(({ at, event, code, sessionId }) => ({ at, event, code, cause: lossCause(code), sessionId }));
    const setAside = listSetAside(state).map((a) => ({ entry: a.name, kind: a.record?.cause.kind ?? 'unknown', where: a.record?.cause.where, fix: a.record?.cause.fix }));
    const credentials = await credentialsStatus(ctx.facts, cfg.config);
    const pending = await pendingWindows(ctx.facts, state.key);
    // Which device hosts the vault (one vault synced between machines: one host at a time).
    const device = thisDevice(engramHome(ctx.env));
    const lease = leaseStatus(state.vault, device);
    // Devices whose lease cannot reach this machine (a sync that leaves `.engram/` out, as Obsidian Sync does).
    // (none with a configuration no host can start with: said on the config line)
    const unseen: ReturnType<typeof unseenDevices> = cfg.config ? unseenDevices(state.vault, device, foldersFromConfig(cfg.config).log) : [];
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ vault: state.vault, key: state.key, socket: state.socket, host, hostError, whyNoHost, config: cfg.problems, lease: { ...lease, unseen }, spooled, lost, setAside, search, usage, credentials, pending }, null, 2));
      return 0;
    }
    ctx.stdout(`vault     ${state.vault} (key ${state.key})`);
    if (host) {
      ctx.stdout(`host      ${host.host}, pid ${host.pid}, up ${Math.round(host.uptimeMs / 1000)} s, protocol ${host.protocolVersion}`);
      ctx.stdout(`index     ${count(host.index.notes, 'note')}, ${host.index.mode}${host.index.ready ? '' : ' (loading)'}`);
      ctx.stdout(`queue     ${host.queue.pending} pending${host.queue.running ? `, running ${host.queue.running}` : ''}, ${host.queue.spooled} spooled, ${host.queue.done} done, ${host.queue.failed} failed${host.queue.deferred ? `, ${host.queue.deferred} deferred (budget, or failed windows waiting for their retry)` : ''}${host.queue.failedEvents ? `, ${host.queue.failedEvents} events set aside in spool/failed/` : ''}`);
      for (const r of host.lastRuns.slice(-5)) ctx.stdout(`  ${r.at}  ${r.sessionId.slice(0, 12)}  ${r.outcome}`);
    } else {
      ctx.stdout(`host      not running${hostError ? ` (${hostError})` : ''}; ${lease.held === 'elsewhere' ? 'another device hosts this vault' : whyNoHost ?? 'the next hook or `engram serve` starts one'}`);
      ctx.stdout(`queue     ${spooled} spooled`);
    }
    ctx.stdout(`device    ${lease.text}`);
    if (unseen.length) ctx.stdout(`          but ${describeUnseen(unseen)}; see \`engram doctor\``);
    for (const p of cfg.problems) ctx.stdout(`config    ${p}`);
    if (lost.length) ctx.stdout(`lost      ${lost.length} hook event${lost.length === 1 ? '' : 's'} not saved (last ${lost[lost.length - 1].at}, ${lost[lost.length - 1].event}: ${lost[lost.length - 1].cause}); see \`engram doctor\``);
    if (setAside.length) {
      const kinds = [...new Set(setAside.map((a) => `${a.kind}${a.where ? ` at ${a.where}` : ''}`))].join(', ');
      ctx.stdout(`set aside ${setAside.length} event${setAside.length === 1 ? '' : 's'} in spool/failed/ (${kinds}); retried by itself when the cause is gone; see \`engram doctor\``);
    }
    if (search?.bm25Only) ctx.stdout(`search    BM25 only (keyword search, no meaning): ${search.bm25Only.reason}. Fix: ${search.bm25Only.fix}`);
    else if (search) ctx.stdout(`search    ${search.mode} (BM25 + vectors from ${search.model.id})`);
    if (credentials) ctx.stdout(`backend   ${credentials.backend}, credentials: ${credentials.detail}${credentials.fix ? `. Fix: ${credentials.fix}` : ''}`);
    for (const p of pending) {
      ctx.stdout(`pending   ${p.session}: ${p.windows} window${p.windows === 1 ? '' : 's'} not extracted by ${p.backend} (${p.failure}: ${p.reason}); ${p.failures} failed run${p.failures === 1 ? '' : 's'}, next background try after ${p.retryAt} (\`engram extract ${p.source ?? '<transcript>'}\` tries now)`);
    }
    const lines = (usage as { lines?: string[] } | undefined)?.lines;
    if (lines?.length) for (const l of lines) ctx.stdout(`budget    ${l}`);
    return 0;
  },
};
