// Engram installed the way a user installs it from Claude Code's plugin store: `claude plugin marketplace add <git URL>`
// (the repository's .claude-plugin/marketplace.json) and `claude plugin install engram@engram`, with the real CLI, in
// both pinned versions. The git URL is this working tree committed into a temporary repository and served over git's
// smart HTTP protocol on 127.0.0.1 (Claude Code accepts `owner/repo`, https/http URLs and local paths; with a local
// path 2.1.330 runs the plugin in place from that folder, so only a URL shows what a user's install runs). Not `--plugin-dir`: that skips the copy and the dependency install this checks. The install
// must get the runtime dependencies only (2.1.330 refused the old lock's `tools/dev` workspace link and installed
// nothing; 2.1.197 installed the whole toolchain, 798 MB), build the CLI on first use, and then the hooks and the MCP
// server must work in a session against the fake model server.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** This working tree (tracked and new files, links kept as links) committed into a bare repository under `root`. */
function repoOfWorkingTree(root: string): string {
  const work = path.join(root, 'engram');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    const src = path.join(repoRoot, f);
    if (!fs.existsSync(src)) continue;
    fs.mkdirSync(path.dirname(path.join(work, f)), { recursive: true });
    if (fs.lstatSync(src).isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), path.join(work, f));
    else fs.copyFileSync(src, path.join(work, f));
  }
  const git = (args: string[], cwd: string) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' });
  git(['init', '-q'], work);
  git(['add', '-A'], work);
  git(['commit', '-qm', 'engram'], work);
  git(['clone', '-q', '--bare', work, path.join(root, 'engram.git')], root);
  return root;
}

/** git's smart HTTP protocol for the repositories under `root` (git http-backend as a CGI). */
async function serveGit(root: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const cgi = spawn('git', ['http-backend'], {
      env: { ...process.env, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: url.pathname, QUERY_STRING: url.search.slice(1), REQUEST_METHOD: req.method, CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_ADDR: '127.0.0.1', GIT_PROTOCOL: String(req.headers['git-protocol'] ?? '') },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headed = false;
    cgi.stdout.on('data', (d: Buffer) => {
      if (headed) return void res.write(d);
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headed = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const at = line.indexOf(':');
        const [key, value] = [line.slice(0, at), line.slice(at + 1).trim()];
        if (key.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(key, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function debugLines(home: string): string {
  const dir = path.join(home, '.claude', 'debug');
  if (!fs.existsSync(dir)) return '';
  return fs.readdirSync(dir).filter((f) => f.endsWith('.txt')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n').split('\n').filter((l) => /Hooks: |hook.*engram|MCP server "plugin:engram/i.test(l)).slice(0, 40).join('\n');
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

      const git = await serveGit(repoOfWorkingTree(path.join(sb.root, 'git')));
      cleanups.push(() => git.close());
      const add = await runProcess(bin, ['plugin', 'marketplace', 'add', `${git.url}/engram.git`], { cwd: sb.root, env: cenv });
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
      const r = await runClaude({ bin, home: sb.home, cwd, prompt: 'why do monorepos pick pnpm workspaces over npm?', server, env, args: ['--debug'] });
      expect(r.code, r.stderr).toBe(0);
      // The first hook built the CLI inside the installed copy.
      const hookLog = path.join(sb.engramHome, 'logs', 'hook.log');
      const why = `${fs.existsSync(hookLog) ? fs.readFileSync(hookLog, 'utf8') : ''}\n${r.stderr.split('\n').filter((l) => /engram|hook/i.test(l)).join('\n')}\n${debugLines(sb.home)}`;
      expect(fs.existsSync(path.join(dir, 'dist', 'engram.mjs')), why).toBe(true);
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
