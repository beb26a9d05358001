// `engram mcp`: the MCP server over stdio (stdout is the JSON-RPC channel: nothing else may print there).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CommandDefinition } from '../types.js';
import { buildMcpServer } from '../../mcp/server.js';
import { HostLink } from '../../mcp/host-link.js';
import { vaultState } from '../../client/paths.js';
import { resolveProject } from '../../client/settings.js';
import { requireVault } from './serve.js';
import { version } from '../../../package.json';

export const command: CommandDefinition = {
  usage: 'mcp [--vault <path>]',
  description: 'Serve Engram\'s tools (recall, read, remember, …) to an agent over MCP stdio. Registered by `engram install`.',
  async run(ctx) {
    const vault = requireVault(ctx);
    const link = new HostLink(vaultState(vault, ctx.env), ctx.env);
    const server = buildMcpServer({ link, project: resolveProject(ctx.cwd), version });
    const transport = new StdioServerTransport();
    await server.connect(transport);
    await new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    link.close();
    return 0;
  },
};
