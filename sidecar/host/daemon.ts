// `engram serve`: the daemon hosts one vault's engine while Obsidian is closed. The composition is the shared one
// (sidecar/hosting/open-host.ts); the daemon adds chokidar, its idle exit and its signals.
import fs from 'node:fs';
import { errorMessage } from '../../src/core/errors.js';
import { vaultState } from '../hosting/paths.js';
import { settingsOf } from '../hosting/settings.js';
import type { LockInfo } from '../hosting/election.js';
import type { Lease } from '../hosting/vault-lease.js';
import { openHost, type OpenHostOptions } from '../hosting/open-host.js';
import { hostLogger } from '../hosting/logger.js';
import type { RunningHost } from '../hosting/running-host.js';
import { startVaultWatcher } from './watcher.js';

export interface HostOptions extends Pick<OpenHostOptions, 'config' | 'sweepMs' | 'deferRetryMs' | 'jobDelayMs' | 'makeIndex' | 'makeExtractor'> {
  vault: string;
  foreground: boolean;
  env?: NodeJS.ProcessEnv;
  idleMs?: number;
}

export type HostOutcome = { kind: 'already-running'; owner?: LockInfo; lease?: Lease } | { kind: 'exited'; reason: string };

export async function runHost(opts: HostOptions): Promise<HostOutcome> {
  const env = opts.env ?? process.env;
  const state = vaultState(opts.vault, env);
  if (!fs.existsSync(state.vault) || !fs.statSync(state.vault).isDirectory()) throw new Error(`vault path does not exist: ${state.vault}`);
  const { log } = hostLogger(state.key, opts.foreground, env);
  const idleMs = opts.idleMs ?? settingsOf(opts.config()).idle_minutes * 60_000;

  // Idle exit: no request for idleMs and no job running.
  let running: RunningHost | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const touch = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (running?.capture.busy) touch();
      else void running?.shutdown('idle');
    }, idleMs);
    idleTimer.unref?.();
  };

  const opened = await openHost({
    sweepMs: opts.sweepMs,
    deferRetryMs: opts.deferRetryMs,
    jobDelayMs: opts.jobDelayMs,
    makeIndex: opts.makeIndex,
    makeExtractor: opts.makeExtractor,
    config: opts.config,
    kind: 'daemon',
    state,
    env,
    log,
    onActivity: touch,
    follow: (onChange) => startVaultWatcher(state.vault, onChange, (e) => log('warn', `vault watcher: ${errorMessage(e)}${(e as NodeJS.ErrnoException).code === 'ENOSPC' ? ' (out of inotify watches: raise fs.inotify.max_user_watches)' : ''}`)),
  });
  if (opened.kind === 'already-running') return opened;
  const host = (running = opened.host);
  host.idleMs = idleMs;
  touch();
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void host.shutdown(sig));
  process.on('uncaughtException', (e) => {
    log('error', `uncaught: ${e.stack ?? String(e)}`);
    void host.shutdown('internal error');
  });
  const reason = await opened.closed;
  if (idleTimer) clearTimeout(idleTimer);
  return { kind: 'exited', reason };
}
