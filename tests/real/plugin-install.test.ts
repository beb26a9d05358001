// Engram installed the way a user installs it from Claude Code's plugin store: `claude plugin marketplace add <repo>`
// (the repository's .claude-plugin/marketplace.json) and `claude plugin install engram@engram`, with the real CLI, in
// both pinned versions. Not `--plugin-dir`: that skips the copy and the dependency install this checks. The install
// must get the runtime dependencies only (2.1.330 refused the old lock's `tools/dev` workspace link and installed
// nothing; 2.1.197 installed the whole toolchain, 798 MB), build the CLI on first use, and then the hooks and the MCP
// server must work in a session against the fake model server.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { allText, claudeEnv, realCli, realSuiteTitle, runClaude, runProcess, startFakeAnthropic, type RealCliName } from '../helpers/real-cli.js';

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

for (const name of ['claude', 'claudeOldest'] as RealCliName[]) {
  const cli = realCli(name);
  describe.skipIf('skip' in cli)(realSuiteTitle(name, 'Engram installed from its marketplace'), () => {
    const bin = (cli as { bin: string }).bin;

    it('installs the runtime dependencies only, builds on first use, and its hooks and MCP server work', async () => {
      const sb = sandbox();
      sb.writeNote('Engram/Inbox/Pnpm strict modules.md', '---\ntype: insight\nscope: general\nsummary: pnpm workspaces keep node_modules strict (platypode)\n---\nWhy monorepos pick pnpm workspaces over npm: strict node_modules.\n');
      sb.serve();
      await waitFor(() => {
        const r = runCli(['status', '--json'], { env: sb.env });
        return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
      }, 20_000, 'a ready host');
      const server = await startFakeAnthropic(() => ({ text: 'ok' }));
      cleanups.push(() => server.close());
      const env = { ENGRAM_HOME: sb.engramHome, ENGRAM_VAULT: sb.vault, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR };
      const cenv = claudeEnv(sb.home, server, env);

      const add = await runProcess(bin, ['plugin', 'marketplace', 'add', repoRoot], { cwd: sb.root, env: cenv });
      expect(add.code, add.stdout + add.stderr).toBe(0);
      const install = await runProcess(bin, ['plugin', 'install', 'engram@engram'], { cwd: sb.root, env: cenv, timeoutMs: 150_000 });
      expect(install.code, install.stdout + install.stderr).toBe(0);
      expect(install.stdout + install.stderr).not.toMatch(/Skipped installing|dependency install failed/i);

      const installed = JSON.parse(fs.readFileSync(path.join(sb.home, '.claude', 'plugins', 'installed_plugins.json'), 'utf8')) as { plugins: Record<string, { installPath: string }[]> };
      const dir = installed.plugins['engram@engram'][0].installPath;
      const modules = path.join(dir, 'node_modules');
      // The runtime packages are there; the development toolchain is not.
      for (const pkg of ['@modelcontextprotocol/sdk', 'yaml', 'zod', 'chokidar', 'esbuild', '@secretlint/core']) expect(fs.existsSync(path.join(modules, pkg)), pkg).toBe(true);
      for (const pkg of ['vitest', 'typescript', 'eslint', 'playwright-core', '@huggingface/transformers', 'engram-dev']) expect(fs.existsSync(path.join(modules, pkg)), pkg).toBe(false);
      expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);

      const cwd = path.join(sb.root, 'work');
      fs.mkdirSync(cwd);
      const r = await runClaude({ bin, home: sb.home, cwd, prompt: 'why do monorepos pick pnpm workspaces over npm?', server, env });
      expect(r.code, r.stderr).toBe(0);
      // The first hook built the CLI inside the installed copy.
      expect(fs.existsSync(path.join(dir, 'dist', 'engram.mjs'))).toBe(true);
      const first = allText(server.mainRequests()[0].body);
      expect(first).toMatch(/UserPromptSubmit hook additional context:[\s\S]*<engram-memory[^>]*>[\s\S]*platypode/);
      expect(first.match(/UserPromptSubmit hook additional context/g)).toHaveLength(1);
      // The plugin's MCP server connected: its tools (or, where tools are deferred, its instructions) reached the model.
      expect(first).toMatch(/mcp__plugin_engram_engram__recall|engram/i);
      const mcp = await runProcess(bin, ['mcp', 'list'], { cwd, env: cenv });
      expect(mcp.stdout).toMatch(/plugin:engram:engram[^\n]*Connected/);
    });
  });
}
