// `engram status [--json]`: the vault's host, queue depth, index size, last runs and budget left.
import fs from 'node:fs';
import type { CommandDefinition } from '../types.js';
import type { StatusResult } from '../../../src/core/protocol/messages.js';
import { vaultState } from '../../client/paths.js';
import { HostConnection, RpcError, isNoHost } from '../../client/connection.js';
import { requireVault } from './serve.js';

function countJson(dir: string): number {
  try {
    return fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')).length;
  } catch {
    return 0;
  }
}

async function budget(env: NodeJS.ProcessEnv): Promise<unknown> {
  try {
    const { hostFacts } = await import('../../host/facts.js');
    const { extractionBudgetStatus } = await import('../../host/extract-runner.js');
    return await extractionBudgetStatus(hostFacts(env));
  } catch {
    return undefined;
  }
}

export const command: CommandDefinition = {
  usage: 'status [--vault <path>] [--json]',
  description: 'Show the vault\'s host (daemon or Obsidian), queue depth, index size, recent extraction runs and the budget left today.',
  async run(ctx) {
    const vault = requireVault(ctx);
    const state = vaultState(vault, ctx.env);
    let host: StatusResult | null = null;
    let hostError: string | undefined;
    try {
      const conn = await HostConnection.open({ socket: state.socket, env: ctx.env, deadline: Date.now() + 2000, client: 'cli' });
      host = (await conn.call('status', {}, Date.now() + 5000)) as StatusResult;
      conn.close();
    } catch (e) {
      if (!isNoHost(e)) hostError = e instanceof RpcError ? e.message : (e as Error).message;
    }
    const spooled = countJson(state.spool) + countJson(state.claimed);
    const usage = await budget(ctx.env);
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ vault: state.vault, key: state.key, socket: state.socket, host, hostError, spooled, usage }, null, 2));
      return 0;
    }
    ctx.stdout(`vault     ${state.vault} (key ${state.key})`);
    if (host) {
      ctx.stdout(`host      ${host.host}, pid ${host.pid}, up ${Math.round(host.uptimeMs / 1000)} s, protocol ${host.protocolVersion}`);
      ctx.stdout(`index     ${host.index.notes} notes, ${host.index.mode}${host.index.ready ? '' : ' (loading)'}`);
      ctx.stdout(`queue     ${host.queue.pending} pending${host.queue.running ? `, running ${host.queue.running}` : ''}, ${host.queue.spooled} spooled, ${host.queue.done} done, ${host.queue.failed} failed${host.queue.deferred ? `, ${host.queue.deferred} deferred (budget)` : ''}${host.queue.failedEvents ? `, ${host.queue.failedEvents} events set aside in spool/failed/` : ''}`);
      for (const r of host.lastRuns.slice(-5)) ctx.stdout(`  ${r.at}  ${r.sessionId.slice(0, 12)}  ${r.outcome}`);
    } else {
      ctx.stdout(`host      not running${hostError ? ` (${hostError})` : ''}; the next hook or \`engram serve\` starts one`);
      ctx.stdout(`queue     ${spooled} spooled`);
    }
    const lines = (usage as { lines?: string[] } | undefined)?.lines;
    if (lines?.length) for (const l of lines) ctx.stdout(`budget    ${l}`);
    return 0;
  },
};
