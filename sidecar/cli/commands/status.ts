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

function countJson(dir: string): number {
  try {
    return fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')).length;
  } catch {
    return 0;
  }
}

async function budget(facts: HostFacts): Promise<unknown> {
  try {
    const { extractionBudgetStatus } = await import('../../hosting/extract-runner.js');
    return await extractionBudgetStatus(facts);
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
async function searchStatus(facts: HostFacts, hostMode: string | undefined): Promise<SearchStatus | undefined> {
  try {
    const { loadConfig } = await import('../../hosting/config-file.js');
    const { configuredModel } = await import('../../hosting/embedder.js');
    const { engramHome } = await import('../../../src/core/state.js');
    const { config } = loadConfig(facts);
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
async function credentialsStatus(facts: HostFacts): Promise<{ backend: string; source: string; detail: string; fix?: string } | undefined> {
  try {
    const { loadConfig } = await import('../../hosting/config-file.js');
    const { backendCredentials } = await import('../../hosting/backends.js');
    const { config } = loadConfig(facts);
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
    const spooled = countJson(state.spool) + countJson(state.claimed);
    const usage = await budget(ctx.facts);
    const search = await searchStatus(ctx.facts, host?.index.mode);
    // Events that did not make it: lost by a hook (a full disk), or set aside after repeated failures, with why.
    const lost = listLostEvents([state.dir, logsDir(ctx.env), engramHome(ctx.env)]).map(({ at, event, code, sessionId }) => ({ at, event, code, cause: lossCause(code), sessionId }));
    const setAside = listSetAside(state).map((a) => ({ entry: a.name, kind: a.record?.cause.kind ?? 'unknown', where: a.record?.cause.where, fix: a.record?.cause.fix }));
    const credentials = await credentialsStatus(ctx.facts);
    const pending = await pendingWindows(ctx.facts, state.key);
    // Which device hosts the vault (one vault synced between machines: one host at a time).
    const device = thisDevice(engramHome(ctx.env));
    const lease = leaseStatus(state.vault, device);
    // Devices whose lease cannot reach this machine (a sync that leaves `.engram/` out, as Obsidian Sync does).
    const { loadConfig } = await import('../../hosting/config-file.js');
    const unseen = unseenDevices(state.vault, device, foldersFromConfig(loadConfig(ctx.facts).config).log);
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ vault: state.vault, key: state.key, socket: state.socket, host, hostError, lease: { ...lease, unseen }, spooled, lost, setAside, search, usage, credentials, pending }, null, 2));
      return 0;
    }
    ctx.stdout(`vault     ${state.vault} (key ${state.key})`);
    if (host) {
      ctx.stdout(`host      ${host.host}, pid ${host.pid}, up ${Math.round(host.uptimeMs / 1000)} s, protocol ${host.protocolVersion}`);
      ctx.stdout(`index     ${host.index.notes} notes, ${host.index.mode}${host.index.ready ? '' : ' (loading)'}`);
      ctx.stdout(`queue     ${host.queue.pending} pending${host.queue.running ? `, running ${host.queue.running}` : ''}, ${host.queue.spooled} spooled, ${host.queue.done} done, ${host.queue.failed} failed${host.queue.deferred ? `, ${host.queue.deferred} deferred (budget, or failed windows waiting for their retry)` : ''}${host.queue.failedEvents ? `, ${host.queue.failedEvents} events set aside in spool/failed/` : ''}`);
      for (const r of host.lastRuns.slice(-5)) ctx.stdout(`  ${r.at}  ${r.sessionId.slice(0, 12)}  ${r.outcome}`);
    } else {
      ctx.stdout(`host      not running${hostError ? ` (${hostError})` : ''}; ${lease.held === 'elsewhere' ? 'another device hosts this vault' : 'the next hook or `engram serve` starts one'}`);
      ctx.stdout(`queue     ${spooled} spooled`);
    }
    ctx.stdout(`device    ${lease.text}`);
    if (unseen.length) ctx.stdout(`          but ${describeUnseen(unseen)}; see \`engram doctor\``);
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
