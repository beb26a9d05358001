// `engram install --scope project` writes files a team commits. They name `engram` from PATH, not a path of the
// machine that wrote them: on a teammate's machine (another HOME, Engram installed there, `~/.local/bin` on PATH) the
// real Claude Code runs the project's hooks through its shell and starts the project's MCP server by PATH lookup.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { allText, realCli, realSuiteTitle, runClaude, startFakeAnthropic, toolResults, type RecordedRequest, type Reply } from '../helpers/real-cli.js';

const claude = realCli('claude');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function sandbox(): Sandbox {
  const sb = makeSandbox();
  cleanups.push(() => sb.cleanup());
  delete sb.env.CLAUDE_CONFIG_DIR;
  return sb;
}

describe.skipIf('skip' in claude)(realSuiteTitle('claude', 'project-scope files on a teammate\'s machine'), () => {
  it('the committed hooks and MCP server work in another HOME with engram on PATH', async () => {
    // The author writes the project files.
    const author = sandbox();
    const proj = path.join(author.root, 'proj');
    fs.mkdirSync(proj);
    expect(runCli(['install', '--scope', 'project'], { env: author.env, cwd: proj }).code).toBe(0);
    for (const f of ['.claude/settings.json', '.mcp.json']) expect(fs.readFileSync(path.join(proj, f), 'utf8')).not.toContain(author.root);
    // Nothing of the author's machine is there on the teammate's.
    fs.rmSync(author.engramHome, { recursive: true });
    fs.rmSync(author.home, { recursive: true });

    // The teammate: Engram installed (user scope gives the link; their own settings are removed so only the
    // project's registrations remain), a vault with a note, a running host.
    const mate = sandbox();
    expect(runCli(['install'], { env: mate.env }).code).toBe(0);
    fs.rmSync(path.join(mate.home, '.claude', 'settings.json'));
    fs.rmSync(path.join(mate.home, '.claude.json'));
    // Project MCP servers from .mcp.json need the user's approval; the teammate gives it.
    fs.writeFileSync(path.join(mate.home, '.claude', 'settings.json'), JSON.stringify({ enableAllProjectMcpServers: true }));
    mate.writeNote('Engram/Inbox/Pnpm strict modules.md', '---\ntype: insight\nscope: general\nsummary: pnpm workspaces keep node_modules strict, so a monorepo cannot use undeclared packages (platypode)\n---\nWhy monorepos pick pnpm workspaces over npm: strict node_modules.\n');
    mate.serve();
    await waitFor(() => {
      const r = runCli(['status', '--json'], { env: mate.env });
      return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
    }, 20_000, 'a ready host');
    const server = await startFakeAnthropic((req: RecordedRequest): Reply => {
      if (!req.body?.tools?.length) return { text: 'side call' };
      return toolResults(req.body).length ? { text: 'done' } : { toolUse: { name: 'mcp__engram__recall', input: { query: 'why pnpm workspaces for the monorepo', detail: 'full' } } };
    });
    cleanups.push(() => server.close());
    const env = {
      ENGRAM_HOME: mate.engramHome,
      ENGRAM_VAULT: mate.vault,
      XDG_RUNTIME_DIR: mate.env.XDG_RUNTIME_DIR,
      PATH: `${path.join(mate.home, '.local', 'bin')}:${process.env.PATH}`,
    };
    const r = await runClaude({ bin: (claude as { bin: string }).bin, home: mate.home, cwd: proj, prompt: 'why do monorepos pick pnpm workspaces over npm?', server, env, args: ['--allowedTools', 'mcp__engram__recall'] });
    expect(r.code, r.stderr).toBe(0);
    const seen = server.mainRequests().map((q) => allText(q.body)).join('\n');
    expect(seen).toMatch(/UserPromptSubmit hook additional context:[\s\S]*platypode/);
    expect(server.mainRequests().flatMap((q) => toolResults(q.body)).join('\n')).toContain('platypode');
  });
});
