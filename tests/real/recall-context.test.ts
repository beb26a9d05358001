// What Engram's hooks inject reaches the model in a real Claude Code session, fenced, and the project's notes come
// back after `/compact`. The real `claude -p` runs in a temporary HOME with Engram installed (`engram install`)
// against the fake Messages API server; the assertions read the request bodies the model received.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { allText, realCli, realSuiteTitle, runClaude, startFakeAnthropic, type FakeServer } from '../helpers/real-cli.js';

const claude = realCli('claude');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<{ sb: Sandbox; cwd: string; server: FakeServer; env: NodeJS.ProcessEnv }> {
  const sb = makeSandbox();
  cleanups.push(() => sb.cleanup());
  delete sb.env.CLAUDE_CONFIG_DIR;
  const cwd = path.join(sb.root, 'acme');
  fs.mkdirSync(cwd);
  sb.writeNote('Engram/Projects/acme/API base path.md', '---\ntype: correction\nproject: acme\nsummary: The acme API base path is /api/v2 (zebracorn), not /api\nupdated: 2026-11-02T10:00:00+00:00\n---\nAll acme routes live under /api/v2.\n');
  sb.writeNote('Engram/Projects/acme/Use pnpm workspaces.md', '---\ntype: decision\nproject: acme\nsummary: The acme monorepo uses pnpm workspaces because npm installs took four minutes (quokkafish)\nupdated: 2026-11-01T10:00:00+00:00\n---\nWe moved the acme monorepo from npm to pnpm workspaces.\n');
  sb.writeNote('Engram/Inbox/Pnpm strict modules.md', '---\ntype: insight\nscope: general\nsummary: pnpm workspaces keep node_modules strict, so a monorepo cannot use undeclared packages (platypode)\n---\nWhy monorepos pick pnpm workspaces over npm: strict node_modules.\n');
  for (const [i, t] of ['gardening tomatoes watering', 'sourdough bread starter', 'bicycle chain lubrication', 'tax return deadlines'].entries()) sb.writeNote(`Notes/Topic ${i}.md`, `# ${t}\nSome thoughts about ${t}.\n`);
  const install = runCli(['install'], { env: sb.env });
  expect(install.code, install.stderr).toBe(0);
  sb.serve();
  await waitFor(() => {
    const r = runCli(['status', '--json'], { env: sb.env });
    return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
  }, 20_000, 'a ready host');
  const server = await startFakeAnthropic(() => ({ text: 'ok' }));
  cleanups.push(() => server.close());
  // The hooks (and the host they reach) see Engram's sandbox through the session's environment.
  const env = { ENGRAM_HOME: sb.engramHome, ENGRAM_VAULT: sb.vault, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR };
  return { sb, cwd, server, env };
}

describe.skipIf('skip' in claude)(realSuiteTitle('claude', 'hook context reaches the model'), () => {
  const bin = (claude as { bin: string }).bin;

  it('SessionStart and UserPromptSubmit context arrive fenced; after /compact the project notes come back', async () => {
    const { sb, cwd, server, env } = await setup();
    const first = await runClaude({ bin, home: sb.home, cwd, prompt: 'why does the monorepo use pnpm workspaces instead of npm?', server, env });
    expect(first.code, first.stderr).toBe(0);
    const sessionId = String(first.json?.session_id);
    const seen = server.mainRequests().map((r) => allText(r.body)).join('\n');
    expect(seen).toMatch(/SessionStart hook additional context:[\s\S]*<engram-memory[^>]*>[\s\S]*zebracorn[\s\S]*<\/engram-memory>/);
    expect(seen).toMatch(/SessionStart hook additional context:[\s\S]*<engram-memory[^>]*>[\s\S]*quokkafish[\s\S]*<\/engram-memory>/);
    expect(seen).toMatch(/UserPromptSubmit hook additional context:[\s\S]*<engram-memory[^>]*>[\s\S]*platypode[\s\S]*<\/engram-memory>/);

    const compact = await runClaude({ bin, home: sb.home, cwd, prompt: '/compact', server, env, args: ['--resume', sessionId] });
    expect(compact.code, compact.stderr).toBe(0);
    const next = await runClaude({ bin, home: sb.home, cwd, prompt: 'and what else should I know?', server, env, args: ['--resume', sessionId] });
    expect(next.code, next.stderr).toBe(0);
    // The compacted conversation no longer holds the first SessionStart's context: the notes come from the
    // SessionStart that follows the compaction (before the fix, the "never twice a session" rule skipped them).
    const last = allText(server.mainRequests().at(-1)!.body);
    expect(last).toContain('Compacted');
    expect(last).toMatch(/SessionStart hook additional context:[\s\S]*<engram-memory[^>]*>[\s\S]*zebracorn[\s\S]*<\/engram-memory>/);
  });
});
