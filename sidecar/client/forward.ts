// The CLI's write commands, when a host is live for the vault, are typed requests to it (the one writer of the vault,
// docs/ARCHITECTURE.md invariant 3); the CLI prints the result. With no host the same core code runs here. Never starts a host.
import { EngramError, type ErrorCode } from '../../src/core/errors.js';
import { RpcCode, type Method, type Params, type Result } from '../../src/core/protocol/index.js';
import type { HostFacts } from '../../src/core/state.js';
import { requireVault } from '../hosting/resolve.js';
import { HostConnection, RpcError, isNoHost } from '../hosting/connection.js';
import { vaultState } from '../hosting/paths.js';

/** Who asks (a CLI command's context has all of it): where, for which vault, and where to say a note. */
export interface HostCaller {
  env: NodeJS.ProcessEnv;
  facts: HostFacts;
  cwd: string;
  global: { vault?: string };
  stderr(text: string): void;
}

/** A connection to the vault's live host, or undefined when there is none. */
async function openHost(ctx: HostCaller, what: string): Promise<HostConnection | undefined> {
  const vault = requireVault(ctx.facts, ctx.cwd, ctx.global.vault);
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
  opts: { deadlineMs?: number; onNotification?: (method: string, params: unknown) => void } = {},
): Promise<{ result: Result<M> } | undefined> {
  const conn = await openHost(ctx, method);
  if (!conn) return undefined;
  // Progress arrives as notifications while the host works.
  if (opts.onNotification) conn.onNotification = opts.onNotification;
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
