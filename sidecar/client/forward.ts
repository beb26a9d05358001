// The CLI's write commands, when a host is live for the vault, are sent to it (the one writer of the vault, DESIGN
// invariant 3) and print what the host's run printed; with no host they run here as before. Never starts a host.
import { EngramError, type ErrorCode } from '../../src/core/errors.js';
import { CLI_OUTPUT, RpcCode, type CliOutput, type CliResult, type HostCommand } from '../../src/core/protocol/index.js';
import type { CommandContext } from '../cli/types.js';
import { hostFacts } from '../host/facts.js';
import { hostedVault } from '../host/hosted.js';
import { requireVault } from '../host/resolve.js';
import { HostConnection, RpcError, isNoHost } from './connection.js';
import { vaultState } from './paths.js';

/** How long a forwarded command may take: extraction calls an LLM window by window, an import does so per conversation. */
const DEADLINE_MS: Partial<Record<HostCommand, number>> = { extract: 60 * 60_000, import: 24 * 60 * 60_000, index: 60 * 60_000 };

/**
 * Runs `command` on the vault's live host and returns its exit code, or undefined when no host is live (or this process
 * is the host, or the host does not take commands): then the caller does the work itself.
 */
export async function forwardToHost(ctx: CommandContext, command: HostCommand): Promise<number | undefined> {
  const vault = requireVault(hostFacts(ctx.env), ctx.cwd, ctx.global.vault);
  if (hostedVault(vault.realPath)) return undefined;
  let conn: HostConnection;
  try {
    conn = await HostConnection.open({ socket: vaultState(vault.realPath, ctx.env).socket, env: ctx.env, deadline: Date.now() + 10_000, client: 'cli' });
  } catch (e) {
    // No host (or a stale socket): the direct path.
    if (isNoHost(e)) return undefined;
    // A host that holds the vault but does not answer: writing beside it is what this avoids.
    if (e instanceof EngramError && e.code === 'timeout') throw new EngramError('timeout', 'the host for this vault did not answer', 'try again, or stop it with `engram serve --stop`');
    // A host of another protocol version refused the hello: it cannot run the command, so it runs here as before.
    if (e instanceof RpcError) {
      ctx.stderr(`note: the running host did not accept this client (${e.message}); running ${command} here`);
      return undefined;
    }
    throw e;
  }
  let r: CliResult;
  // Progress lines arrive while the host runs the command; they are printed as they come.
  conn.onNotification = (method, params) => {
    const p = params as Partial<CliOutput> | undefined;
    if (method === CLI_OUTPUT && p?.stream === 'stderr' && typeof p.line === 'string') ctx.stderr(p.line);
  };
  try {
    const { vault: _v, json: _j, help: _h, ...options } = ctx.options;
    r = (await conn.call('cli', { command, args: ctx.args, options, json: ctx.global.json, cwd: ctx.cwd, actor: ctx.env.ENGRAM_ACTOR?.trim() || undefined, stream: true }, Date.now() + (DEADLINE_MS[command] ?? 15 * 60_000))) as CliResult;
  } catch (e) {
    // A host that predates this request (or the plugin, which does not take CLI commands): the direct path.
    if (e instanceof RpcError && e.code === RpcCode.methodNotFound) return undefined;
    if (e instanceof RpcError) throw new EngramError('protocol', `the host refused ${command}: ${e.message}`);
    throw e;
  } finally {
    conn.close();
  }
  for (const line of r.stdout) ctx.stdout(line);
  for (const line of r.stderr) ctx.stderr(line);
  if (r.error) throw new EngramError(r.error.code as ErrorCode, r.error.message, r.error.hint);
  return r.exitCode;
}
