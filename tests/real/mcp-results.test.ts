// What Engram's MCP tools give the model in a real Claude Code session: the real `claude -p` (pinned) calls
// `mcp__engram__recall` and `mcp__engram__read` because the fake model server asks it to, and the next request body
// shows the tool results the model received. Claude Code forwards `structuredContent` and drops the text when both
// are present (docs/ARCHITECTURE.md "What the agents do"), so these pin that note bodies, fenced, are what arrives.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';
import { allText, realCli, realSuiteTitle, runClaude, startFakeAnthropic, toolResults, type FakeServer, type RecordedRequest, type Reply } from '../helpers/real-cli.js';

const claude = realCli('claude');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A model that calls the given tools one after another, then answers. */
function callsTools(calls: { name: string; input: unknown }[]): (req: RecordedRequest) => Reply {
  return (req) => {
    if (!req.body?.tools?.length) return { text: 'side call' };
    const done = toolResults(req.body).length;
    return done < calls.length ? { toolUse: calls[done] } : { text: 'done' };
  };
}

async function session(sb: Sandbox, server: FakeServer, prompt: string): Promise<string[]> {
  const cwd = path.join(sb.root, 'work');
  fs.mkdirSync(cwd, { recursive: true });
  const env = { ENGRAM_HOME: sb.engramHome, ENGRAM_VAULT: sb.env.ENGRAM_VAULT, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR };
  const r = await runClaude({ bin: (claude as { bin: string }).bin, home: sb.home, cwd, prompt, server, env, args: ['--allowedTools', 'mcp__engram__recall,mcp__engram__search,mcp__engram__read'] });
  expect(r.code, r.stderr).toBe(0);
  return toolResults(server.mainRequests().at(-1)!.body);
}

function sandbox(): Sandbox {
  const sb = makeSandbox();
  cleanups.push(() => sb.cleanup());
  delete sb.env.CLAUDE_CONFIG_DIR;
  return sb;
}

describe.skipIf('skip' in claude)(realSuiteTitle('claude', 'MCP tool results reach the model'), () => {
  it('recall and read give the model the note bodies inside the <engram-memory> fence', async () => {
    const sb = sandbox();
    sb.writeNote('Engram/Inbox/Use pnpm workspaces.md', '---\ntype: decision\nscope: general\nengram_id: e1\nengram_source: manual\n---\nWe moved the monorepo to pnpm workspaces because npm installs took four minutes (quokkafish).\n');
    const install = runCli(['install'], { env: sb.env });
    expect(install.code, install.stderr).toBe(0);
    const server = await startFakeAnthropic(callsTools([
      { name: 'mcp__engram__recall', input: { query: 'why pnpm workspaces for the monorepo', detail: 'full' } },
      { name: 'mcp__engram__read', input: { ref: 'Use pnpm workspaces' } },
    ]));
    cleanups.push(() => server.close());
    const results = await session(sb, server, 'why do we use pnpm workspaces?');
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r).toMatch(/<engram-memory[^>]*>[\s\S]*quokkafish[\s\S]*<\/engram-memory>/);
      expect(r.length).toBeLessThanOrEqual(20_000);
    }
  });

  it('search gives the model the compact list, and read opens a hit by the id search gave', async () => {
    const sb = sandbox();
    sb.writeNote('Guides/Sleeper trains.md', '# Sleeper trains\n\n## Booking\n\nThe night train to Vienna is booked through the operator site (walrusberth).\n');
    sb.writeNote('Guides/Day trains.md', '# Day trains\n\nDay trains need no booking on regional lines.\n');
    const install = runCli(['install'], { env: sb.env });
    expect(install.code, install.stderr).toBe(0);
    const server = await startFakeAnthropic(callsTools([
      { name: 'mcp__engram__search', input: { query: 'night train booking', folders: ['Guides'] } },
      { name: 'mcp__engram__read', input: { ref: 'Guides/Sleeper trains.md#Sleeper trains > Booking' } },
    ]));
    cleanups.push(() => server.close());
    const [list, passage] = await session(sb, server, 'how do I book the night train?');
    expect(allText(server.mainRequests()[0].body)).toContain('mcp__engram__search');
    expect(list).toMatch(/<engram-memory[^>]*>[\s\S]*- Sleeper trains · Guides\/Sleeper trains\.md(#[^·]+)? · ~\d+ tok[\s\S]*<\/engram-memory>/);
    expect(list.length).toBeLessThan(1500);
    expect(passage).toMatch(/<engram-memory[^>]*>[\s\S]*walrusberth[\s\S]*<\/engram-memory>/);
  });

  it('with no vault configured, the model is told the problem and the fix (the server did not fail its handshake)', async () => {
    const sb = sandbox();
    const install = runCli(['install'], { env: sb.env });
    expect(install.code, install.stderr).toBe(0);
    delete sb.env.ENGRAM_VAULT;
    const server = await startFakeAnthropic(callsTools([{ name: 'mcp__engram__recall', input: { query: 'anything' } }]));
    cleanups.push(() => server.close());
    const [result] = await session(sb, server, 'what do my notes say?');
    expect(result).toMatch(/no vault configured/);
    expect(result).toMatch(/engram setup/);
    // The server's tools were offered to the model (listed, deferred behind ToolSearch in 2.1.330).
    expect(allText(server.mainRequests()[0].body)).toContain('mcp__engram__recall');
  });
});
