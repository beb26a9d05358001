// `engram mcp`: the MCP server over stdio (stdout is the JSON-RPC channel: nothing else may print there).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { EngramError } from '../../../src/core/errors.js';
import type { CommandDefinition } from '../types.js';
import { buildMcpServer, type McpDeps } from '../../mcp/server.js';
import { HostLink } from '../../mcp/host-link.js';
import { startHostDetached } from '../../hosting/start-host.js';
import { vaultState } from '../../hosting/paths.js';
import { resolveProject } from '../../hosting/settings.js';
import { commandVault } from './serve.js';
import { clientOfMcp } from '../../../src/core/transcript/client.js';
import { version } from '../../../package.json';

export const command: CommandDefinition = {
  usage: 'mcp [--vault <path>]',
  description: 'Serve Engram\'s tools (recall, read, remember, …) to an agent over MCP stdio. Registered by `engram install`.',
  async run(ctx) {
    // Without a usable vault the server still completes the handshake and answers every tool with the problem and
    // its fix: an MCP client shows a server that exits first only as "failed".
    let link: HostLink | undefined;
    let broken: McpDeps['link'] | undefined;
    let vault: string | undefined;
    try {
      const state = vaultState(commandVault(ctx), ctx.env);
      link = new HostLink(state, ctx.env);
      vault = state.vault;
    } catch (e) {
      if (!(e instanceof EngramError)) throw e;
      const problem = new EngramError(e.code, `Engram cannot work yet: ${e.message}`, e.hint);
      broken = { call: () => Promise.reject(problem) };
      ctx.stderr(`engram mcp: ${e.message}${e.hint ? ` (${e.hint})` : ''}`);
    }
    const server = buildMcpServer({ link: link ?? broken!, project: resolveProject(ctx.cwd), version, team: Boolean(ctx.config().get('team.url')) });
    // An agent starts its MCP servers with each session: once the client has said who it is, a host starts, not at the
    // first tool call, so a session that calls no Engram tool (Codex, which runs no hooks) is still followed and
    // captured. Claude Code is left out: its hooks start the host, and `claude mcp list` (a health check that connects
    // to every server) must not start one.
    server.server.oninitialized = () => {
      const client = server.server.getClientVersion()?.name ?? '';
      // Each request to the host names the client, so its activity entries can be told apart (Claude Code, Codex).
      if (link) link.agent = clientOfMcp(client);
      if (!vault || /claude/i.test(client)) return;
      try {
        startHostDetached(vault, ctx.env);
      } catch (e) {
        ctx.stderr(`engram mcp: could not start a host: ${(e as Error).message}`);
      }
    };
    const transport = new StdioServerTransport();
    await server.connect(transport);
    await new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    link?.close();
    return 0;
  },
};
