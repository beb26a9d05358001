// The one door of the CLI's commands to a vault's engine: a typed request to the vault's live host (its one writer,
// docs/ARCHITECTURE.md invariant 3), or, with none live, the same method on the same composition opened in this process
// (hosting/in-process.ts). The CLI prints the result. Never starts a host.
import { EngramError, type ErrorCode } from '../../src/core/errors.js';
import { RpcCode, WORK_PROGRESS, type Method, type Params, type Result, type WorkProgress } from '../../src/core/protocol/index.js';
import type { HostFacts } from '../../src/core/state.js';
import { requireVault } from '../hosting/resolve.js';
import { HostConnection, RpcError, isNoHost } from '../hosting/connection.js';
import { vaultState } from '../hosting/paths.js';
import type { ApplyGuard } from '../../src/core/curate/service.js';
import { openInProcess, type InProcessOptions } from '../hosting/in-process.js';
import type { ConfigReader } from '../hosting/config-file.js';

/** Who asks (a CLI command's context has all of it): where, for which vault, and where to say a note. */
export interface HostCaller {
  env: NodeJS.ProcessEnv;
  facts: HostFacts;
  /** The command's configuration, from the CLI's entry (the vault's path when nothing else names it; the in-process host). */
  config: ConfigReader;
  cwd: string;
  global: { vault?: string };
  stderr(text: string): void;
}

/** Where a call's notifications go: the steps of a long request (WORK_PROGRESS) to `onProgress`, all to `onNotification`. */
export interface Progressing {
  deadlineMs?: number;
  onNotification?: (method: string, params: unknown) => void;
  onProgress?: (p: WorkProgress) => void;
}

function notificationsTo(opts: Progressing): (method: string, params: unknown) => void {
  return (method, params) => {
    if (method === WORK_PROGRESS) opts.onProgress?.(params as WorkProgress);
    opts.onNotification?.(method, params);
  };
}

/** A connection to the vault's live host, or undefined when there is none. */
async function openHost(ctx: HostCaller, what: string): Promise<HostConnection | undefined> {
  const vault = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
  try {
    return await HostConnection.open({ socket: vaultState(vault.realPath, ctx.env).socket, env: ctx.env, deadline: Date.now() + 10_000, client: 'cli' });
  } catch (e) {
    // No host (or a stale socket): the direct path.
    if (isNoHost(e)) return undefined;
    // A host that holds the vault but does not answer: writing beside it is what this avoids.
    if (e instanceof EngramError && e.code === 'timeout') throw new EngramError('timeout', 'the host for this vault did not answer', 'try again, or stop it with `engram serve --stop`');
    // A host of another protocol version refused the hello: it cannot run the command, so it runs here as before.
    if (e instanceof RpcError) {
      ctx.stderr(`note: the running host did not accept this client (${e.message}); running ${what} here`);
      return undefined;
    }
    throw e;
  }
}

/**
 * Calls a typed method on the vault's live host (the one writer of the vault) and returns its result, or undefined when
 * no host is live or the host predates the method: then the caller does the work itself, with the same core code.
 */
export async function callHost<M extends Method>(
  ctx: HostCaller,
  method: M,
  params: Params<M>,
  opts: Progressing = {},
): Promise<{ result: Result<M> } | undefined> {
  const conn = await openHost(ctx, method);
  if (!conn) return undefined;
  // Progress arrives as notifications while the host works.
  conn.onNotification = notificationsTo(opts);
  try {
    return { result: await conn.call(method, params, Date.now() + (opts.deadlineMs ?? 15 * 60_000)) };
  } catch (e) {
    if (e instanceof RpcError && e.code === RpcCode.methodNotFound) return undefined;
    if (e instanceof RpcError) {
      const hint = (e.data as { hint?: string; code?: string } | undefined)?.hint;
      const code = (e.data as { code?: string } | undefined)?.code;
      throw new EngramError((code as ErrorCode | undefined) ?? 'protocol', e.message, hint);
    }
    throw e;
  } finally {
    conn.close();
  }
}

export interface EngineCall extends Progressing {
  /** A dry run: answered in this process even when a host is live (it writes nothing), and nothing is saved after it. */
  dryRun?: boolean;
  /** In this process, wraps each proposal's apply (Ctrl-C lets the one under way finish). */
  applyGuard?: ApplyGuard;
  /** In this process, runs each save of the index (Ctrl-C lets a save under way finish). */
  saveGuard?: InProcessOptions['saveGuard'];
  /** In this process, how the index opens: the model loaded first, progress, a rebuild (`engram index`, `engram search`). */
  index?: InProcessOptions['index'];
  /** In this process, save at close only when the index changed (a search: reading leaves the snapshot alone). */
  saveIfChanged?: boolean;
}

/** The methods that curate (plan or change the vault's notes and log): the device that runs them is recorded. */
const CURATION_METHODS: ReadonlySet<string> = new Set(['review.plan', 'restructure.plan', 'curate.apply', 'curate.reject', 'maintain.run', 'forget']);

/**
 * Calls `method` on the vault's engine: on its live host when there is one that answers it, else on the same host
 * composition opened in this process for the call. `by` says which answered.
 */
export async function callEngine<M extends Method>(ctx: HostCaller, method: M, params: Params<M>, opts: EngineCall = {}): Promise<{ result: Result<M>; by: 'host' | 'here' }> {
  const hosted = opts.dryRun ? undefined : await callHost(ctx, method, params, opts);
  if (hosted) return { result: hosted.result, by: 'host' };
  const vault = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
  // Curation applied here is this device writing the vault's change log: its record beside the lease says so
  // (vault-lease.ts, unseenDevices); extraction and listings leave no trace of the device.
  const curates = CURATION_METHODS.has(method);
  // A command that draws the index's own progress bar here (`engram index`) shows that instead of the host's steps.
  const steps = opts.index?.onProgress ? { ...opts, onProgress: undefined } : opts;
  steps.onProgress?.({ step: 'no host is running: reading the vault here' });
  const save = opts.dryRun ? false : opts.saveIfChanged ? 'if-changed' : true;
  const host = await openInProcess({ state: vaultState(vault.realPath, ctx.env), env: ctx.env, config: ctx.config, applyGuard: opts.applyGuard, saveGuard: opts.saveGuard, index: opts.index, save, recordDevice: curates });
  const notify = notificationsTo(steps);
  try {
    return { result: await host.call(method, params, notify), by: 'here' };
  } finally {
    await host.close();
  }
}
