// Engram's MCP server under the real Codex CLI. Codex starts MCP servers with only HOME, PATH, TERM, LANG, SHELL (and
// PWD and CA variables), so without the env block `engram install --agent codex` writes, `engram mcp` looked for
// the state and the host's socket in the wrong folders and every tool failed. Here a `codex exec` session whose model
// calls engram's recall gets the note text in its next request.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { realCli, realSuiteTitle, runCodex, startFakeResponses, toolNames, toolResults, writeCodexConfig, type RecordedRequest, type Reply } from '../helpers/real-cli.js';

const codex = realCli('codex');

/** A Responses API stream whose one output is a call of a namespaced tool (how Codex 0.169 names MCP tools). */
function namespacedCall(namespace: string, name: string, input: unknown): Reply {
  const item = { id: 'fc_engram_1', type: 'function_call', status: 'completed', call_id: 'call_engram_1', namespace, name, arguments: JSON.stringify(input) };
  const usage = { input_tokens: 100, output_tokens: 20, total_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
  const events = [
    { type: 'response.created', response: { id: 'resp_ns', object: 'response', model: 'gpt-test', status: 'in_progress', output: [] } },
    { type: 'response.output_item.added', output_index: 0, item },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: { id: 'resp_ns', object: 'response', model: 'gpt-test', status: 'completed', output: [item], usage } },
  ];
  return { raw: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''), contentType: 'text/event-stream' };
}
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf('skip' in codex)(realSuiteTitle('codex', 'Engram\'s MCP tools under Codex'), () => {
  it('a codex exec session whose model calls engram\'s recall gets the note text in its next request', async () => {
    const sb: Sandbox = makeSandbox();
    cleanups.push(() => sb.cleanup());
    sb.writeNote('Engram/Inbox/Use pnpm workspaces.md', '---\ntype: decision\nscope: general\nengram_id: e1\nengram_source: manual\n---\nWe moved the monorepo to pnpm workspaces because npm installs took four minutes (quokkafish).\n');
    // The vault comes from config.json, as for a user (no ENGRAM_VAULT reaches Codex's MCP server anyway).
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, vault_path: sb.vault, backend: 'rules' }));
    const env = { ...sb.env };
    delete env.ENGRAM_VAULT;
    delete env.CLAUDE_CONFIG_DIR;
    // A host started as a Claude Code hook starts one: with this session's XDG_RUNTIME_DIR and ENGRAM_HOME.
    const host = runCli(['serve'], { env });
    expect(host.code, host.stderr).toBe(0);
    await waitFor(() => fs.existsSync(path.join(sb.env.XDG_RUNTIME_DIR!, 'engram')) && fs.readdirSync(path.join(sb.env.XDG_RUNTIME_DIR!, 'engram')).some((f) => f.endsWith('.sock')), 20_000, 'the host socket');

    let recallName = '';
    const server = await startFakeResponses((req: RecordedRequest): Reply => {
      // Codex 0.169 offers an MCP server's tools as one namespace (`mcp__engram`) holding `recall`, `read`, …
      const names = toolNames(req.body);
      const ns = (req.body?.tools ?? []).find((t: { type?: string; name?: string }) => t.type === 'namespace' && t.name === 'mcp__engram');
      if (ns?.tools?.some((t: { name?: string }) => t.name === 'recall')) recallName ||= 'mcp__engram__recall';
      recallName ||= names.find((n) => /engram.*recall/.test(n)) ?? '';
      if (toolResults(req.body).length) return { text: 'done' };
      if (!recallName) return { text: `no recall tool in ${names.join(', ')}` };
      return ns ? namespacedCall('mcp__engram', 'recall', { query: 'why pnpm workspaces for the monorepo', detail: 'full' }) : { toolUse: { name: recallName, input: { query: 'why pnpm workspaces for the monorepo', detail: 'full' } } };
    });
    cleanups.push(() => server.close());
    writeCodexConfig(sb.home, server);
    const install = runCli(['install', '--agent', 'codex'], { env });
    expect(install.code, install.stderr).toBe(0);

    const cwd = path.join(sb.root, 'work');
    fs.mkdirSync(cwd);
    const r = await runCodex({ bin: (codex as { bin: string }).bin, home: sb.home, cwd, prompt: 'why do we use pnpm workspaces?', server, timeoutMs: 120_000 });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(recallName, `Codex offered engram's recall tool: ${JSON.stringify(server.modelRequests().map((q) => toolNames(q.body)))}`).not.toBe('');
    const results = server.modelRequests().flatMap((q) => toolResults(q.body));
    // The note text reached the model: the server found the state and the host's socket (in the wrong folders every
    // tool failed). How long the session took is not asserted (a loaded machine stretches it).
    expect(results.join('\n')).toContain('quokkafish');
  });
});
