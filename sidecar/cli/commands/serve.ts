// `engram serve`: run (or start, or stop) the host daemon for a vault.
import { EngramError } from '../../../src/core/errors.js';
import type { CommandContext, CommandDefinition } from '../types.js';
import { requireVault } from '../../hosting/resolve.js';
import { engramHome, vaultState } from '../../hosting/paths.js';
import { thisDevice } from '../../hosting/device.js';
import { describeLease, heldElsewhere, readLease } from '../../hosting/vault-lease.js';
import { HostConnection, RpcError, isNoHost } from '../../hosting/connection.js';
import { startHostDetached } from '../../hosting/start-host.js';
import { releaseHost } from '../../hosting/release.js';

/** The vault a command works on (the one resolver, node/resolve.ts): its real path, checked to be a folder. */
export function commandVault(ctx: Pick<CommandContext, 'global' | 'cwd' | 'facts' | 'config'>): string {
  return requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config).realPath;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function tryConnect(socket: string, env: NodeJS.ProcessEnv, ms = 1000): Promise<HostConnection | undefined> {
  try {
    return await HostConnection.open({ socket, env, deadline: Date.now() + ms, client: 'cli' });
  } catch (e) {
    if (isNoHost(e)) return undefined;
    if (e instanceof RpcError) throw new EngramError('protocol', e.message);
    throw e;
  }
}

export const command: CommandDefinition = {
  usage: 'serve [--vault <path>] [--foreground] [--stop]',
  description: 'Host the engine for a vault (index, job queue, extraction, watcher) behind a private socket. Without --foreground it starts a background daemon and returns.',
  options: {
    foreground: { type: 'boolean', description: 'Run in this terminal and log to stderr too (debugging)' },
    stop: { type: 'boolean', description: 'Ask the vault\'s host to finish its job, save, and exit' },
  },
  async run(ctx) {
    const vault = commandVault(ctx);
    const state = vaultState(vault, ctx.env);
    if (ctx.options.stop) {
      const r = await releaseHost(state, ctx.env, 'engram serve --stop', { client: 'cli' });
      if (r.pid === undefined && r.free) ctx.stdout('engram serve: no host is running for this vault');
      else if (!r.free) throw new EngramError('timeout', `the host (pid ${r.pid ?? '?'}) did not stop within 30 s`, 'it may be finishing a long extraction; try again, or read the log in $ENGRAM_HOME/logs/');
      else ctx.stdout(`engram serve: stopped the host (pid ${r.pid})`);
      return 0;
    }
    if (ctx.options.foreground || ctx.env.ENGRAM_DAEMON) {
      const { runHost } = await import('../../host/main.js');
      const outcome = await runHost({ vault, foreground: Boolean(ctx.options.foreground), env: ctx.env });
      if (outcome.kind === 'already-running' && outcome.lease) {
        ctx.stderr(`engram serve: not hosting ${state.vault}: ${describeLease(outcome.lease)} hosts it (a synced vault); this device waits until that lease expires`);
        return 1;
      }
      if (outcome.kind === 'already-running') {
        ctx.stdout(`engram serve: a host already serves ${state.vault} (pid ${outcome.owner?.pid ?? '?'}, ${outcome.owner?.host ?? 'daemon'}); nothing to do`);
        return 0;
      }
      ctx.stderr(`engram serve: host exited (${outcome.reason})`);
      // chokidar and timers may hold the loop open; the host has saved and released everything.
      setTimeout(() => process.exit(0), 50).unref();
      return 0;
    }
    const existing = await tryConnect(state.socket, ctx.env);
    if (existing) {
      ctx.stdout(`engram serve: a host already serves ${state.vault} (pid ${existing.hello.pid}, ${existing.hello.host})`);
      existing.close();
      return 0;
    }
    const lease = heldElsewhere(readLease(state.vault), thisDevice(engramHome(ctx.env)));
    if (lease) throw new EngramError('refused', `${describeLease(lease)} hosts ${state.vault} (a synced vault); this device does not start a second host`, 'stop it there (engram serve --stop), or wait until its lease expires');
    const pid = startHostDetached(state.vault, ctx.env);
    for (let i = 0; i < 100; i++) {
      await sleep(100);
      const conn = await tryConnect(state.socket, ctx.env, 500);
      if (conn) {
        ctx.stdout(`engram serve: host started for ${state.vault} (pid ${conn.hello.pid}); logs in ${ctx.env.ENGRAM_HOME ?? '~/.engram'}/logs/`);
        conn.close();
        return 0;
      }
    }
    throw new EngramError('timeout', `the host (pid ${pid ?? '?'}) did not start within 10 s`, 'run `engram serve --foreground` to see why, or read the log in $ENGRAM_HOME/logs/');
  },
};
