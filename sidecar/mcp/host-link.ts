// The MCP server's link to the vault's host: one connection, re-opened (and a host started) when it drops.
import { HostConnection, RpcError, isNoHost } from '../hosting/connection.js';
import { startHostDetached } from '../hosting/start-host.js';
import type { VaultState } from '../hosting/paths.js';
import { hostSupports, paramFields, type Method, type Params, type Result } from '../../src/core/protocol/index.js';
import type { HookClient } from '../../src/core/transcript/client.js';

export class HostLink {
  private conn: HostConnection | null = null;
  private opening: Promise<HostConnection> | null = null;
  /** The MCP client this server serves (its `initialize` named it): sent with each request, for the activity record. */
  agent: HookClient | undefined;

  constructor(private readonly state: VaultState, private readonly env: NodeJS.ProcessEnv) {}

  private async open(): Promise<HostConnection> {
    const deadline = Date.now() + 15_000;
    let started = false;
    for (;;) {
      try {
        const conn = await HostConnection.open({ socket: this.state.socket, env: this.env, deadline: Math.min(deadline, Date.now() + 2000), client: 'mcp' });
        this.conn = conn;
        return conn;
      } catch (e) {
        if (e instanceof RpcError) throw e;
        if (!isNoHost(e) || Date.now() > deadline) throw e;
        if (!started) {
          startHostDetached(this.state.vault, this.env);
          started = true;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async call<M extends Method>(method: M, params: Params<M>, timeoutMs = 60_000): Promise<Result<M>> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const conn = this.conn ?? (await (this.opening ??= this.open().finally(() => (this.opening = null))));
      try {
        return await conn.call(method, this.withAgent(conn, method, params), Date.now() + timeoutMs);
      } catch (e) {
        if (e instanceof RpcError) throw e;
        // The host went away (idle exit, handover): reconnect once, which starts a new one if needed.
        this.conn?.close();
        this.conn = null;
        if (attempt === 1) throw e;
      }
    }
    throw new Error('unreachable');
  }

  /** The params with the client's `agent`, when the method takes one and the host knows it (protocol 1.7). */
  private withAgent<M extends Method>(conn: HostConnection, method: M, params: Params<M>): Params<M> {
    if (!this.agent || !('agent' in paramFields(method)) || !hostSupports(conn.hello.protocolVersion, 7)) return params;
    return { ...params, agent: this.agent };
  }

  close(): void {
    this.conn?.close();
    this.conn = null;
  }
}
