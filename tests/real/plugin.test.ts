// The repository as a Claude Code plugin, checked with the real CLI: `claude plugin validate --strict` passes (the
// manifest no longer names hooks/hooks.json, which Claude Code loads by itself: 2.1.197 called that a duplicate and
// marked the plugin hook-load-failed), and a session with the plugin loaded runs each hook once and gets its context.
// Also: `claude mcp list` fires a SessionEnd for a transcript that never exists; Engram ignores it quietly. And at the
// end: the plugin installed from its marketplace with both pinned versions.
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

const claude = realCli('claude');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** What `/plugin install` has: the plugin folder's own files, node_modules, and (to skip the first-use build) dist/.
 * (The last tests below install it from the marketplace for real.) */
function pluginCopy(root: string): string {
  const dir = path.join(root, 'plugin');
  const files = execFileSync('git', ['ls-files', '-z', 'plugin'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    const src = path.join(repoRoot, f);
    if (!fs.existsSync(src) || fs.lstatSync(src).isSymbolicLink()) continue;
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.copyFileSync(src, path.join(root, f));
  }
  fs.cpSync(path.join(repoRoot, 'dist'), path.join(dir, 'dist'), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

function sandbox(): Sandbox {
  const sb = makeSandbox();
  cleanups.push(() => sb.cleanup());
  delete sb.env.CLAUDE_CONFIG_DIR;
  return sb;
}

const PNPM_NOTE = '---\ntype: insight\nscope: general\nsummary: pnpm workspaces keep node_modules strict, so a monorepo cannot use undeclared packages (platypode)\n---\nWhy monorepos pick pnpm workspaces over npm: strict node_modules.\n';

/** A sandbox with one note and a ready host, and the environment a session's hooks need to reach it. */
async function servedSandbox(): Promise<{ sb: Sandbox; env: NodeJS.ProcessEnv; cwd: string }> {
  const sb = sandbox();
  sb.writeNote('Engram/Inbox/Pnpm strict modules.md', PNPM_NOTE);
  sb.serve();
  await waitFor(() => {
    const r = runCli(['status', '--json'], { env: sb.env });
    return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
  }, 20_000, 'a ready host');
  const cwd = path.join(sb.root, 'work');
  fs.mkdirSync(cwd);
  return { sb, cwd, env: { ENGRAM_HOME: sb.engramHome, ENGRAM_VAULT: sb.vault, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR } };
}

// 2.1.197, the oldest version the hooks need, is the one that marks a plugin naming hooks/hooks.json in its manifest
// hook-load-failed: the plugin must load there too.
const oldest = realCli('claudeOldest');

describe.skipIf('skip' in oldest)(realSuiteTitle('claudeOldest', 'Engram as a plugin in the oldest supported Claude Code'), () => {
  const oldestBin = (oldest as { bin: string }).bin;
  it('validate --strict passes and a session loads the hooks (no "Duplicate hooks file", no hook-load-failed)', async () => {
    const { sb, cwd, env } = await servedSandbox();
    const server = await startFakeAnthropic(() => ({ text: 'ok' }));
    cleanups.push(() => server.close());
    const v = await runProcess(oldestBin, ['plugin', 'validate', path.join(repoRoot, 'plugin'), '--strict'], { cwd: sb.root, env: claudeEnv(sb.home, server) });
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain('Validation passed');
    const r = await runClaude({ bin: oldestBin, home: sb.home, cwd, prompt: 'why do monorepos pick pnpm workspaces over npm?', server, env, args: ['--plugin-dir', pluginCopy(sb.root), '--debug'] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/Duplicate hooks file|hook-load-failed/);
    expect(server.mainRequests().map((q) => allText(q.body)).join('\n')).toMatch(/UserPromptSubmit hook additional context:[\s\S]*platypode/);
  });
});

describe.skipIf('skip' in claude)(realSuiteTitle('claude', 'Engram as a Claude Code plugin'), () => {
  const bin = (claude as { bin: string }).bin;

  it('`claude plugin validate --strict` passes on the plugin folder and on the marketplace', async () => {
    const sb = sandbox();
    const server = await startFakeAnthropic();
    cleanups.push(() => server.close());
    const r = await runProcess(bin, ['plugin', 'validate', path.join(repoRoot, 'plugin'), '--strict'], { cwd: sb.root, env: claudeEnv(sb.home, server) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Validation passed');
    expect(r.stdout + r.stderr).not.toMatch(/Duplicate hooks file/);
    // The repository root is the marketplace (.claude-plugin/marketplace.json) that lists the plugin folder.
    const m = await runProcess(bin, ['plugin', 'validate', repoRoot, '--strict'], { cwd: sb.root, env: claudeEnv(sb.home, server) });
    expect(m.code, m.stdout + m.stderr).toBe(0);
    expect(m.stdout).toContain('Validation passed');
  });

  it('a session with the plugin loaded runs each hook once and the prompt\'s context reaches the model', async () => {
    const { sb, cwd, env } = await servedSandbox();
    const plugin = pluginCopy(sb.root);
    const server = await startFakeAnthropic(() => ({ text: 'ok' }));
    cleanups.push(() => server.close());
    const r = await runClaude({ bin, home: sb.home, cwd, prompt: 'why do monorepos pick pnpm workspaces over npm?', server, env, args: ['--plugin-dir', plugin] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Duplicate hooks|hook-load-failed/);
    const seen = server.mainRequests().map((q) => allText(q.body)).join('\n');
    expect(seen).toMatch(/UserPromptSubmit hook additional context:[\s\S]*<engram-memory[^>]*>[\s\S]*platypode/);
    // Once: the hooks are not loaded twice.
    const first = allText(server.mainRequests()[0].body);
    expect(first.match(/UserPromptSubmit hook additional context/g)).toHaveLength(1);
  });

  it('`claude mcp list` (its SessionEnd names a transcript that never exists) spools nothing and starts no host', async () => {
    const sb = sandbox();
    const install = runCli(['install'], { env: sb.env });
    expect(install.code, install.stderr).toBe(0);
    const env = { ENGRAM_HOME: sb.engramHome, ENGRAM_VAULT: sb.vault, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR };
    const server = await startFakeAnthropic();
    cleanups.push(() => server.close());
    const r = await runProcess(bin, ['mcp', 'list'], { cwd: sb.root, env: claudeEnv(sb.home, server, env) });
    expect(r.stdout).toMatch(/engram/);
    const vaults = path.join(sb.engramHome, 'vaults');
    const files = fs.existsSync(vaults) ? fs.readdirSync(vaults, { recursive: true }).map(String) : [];
    expect(files.filter((f) => /spool.*\.json$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('host.lock'))).toEqual([]);
    const log = path.join(sb.engramHome, 'logs', 'hook.log');
    expect(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '').not.toMatch(/SessionEnd/);
  });
});

// Engram installed the way a user installs it from Claude Code's plugin store: `claude plugin marketplace add <git URL>`
// (the repository's .claude-plugin/marketplace.json) and `claude plugin install engram@engram`, with the real CLI, in
// both pinned versions. The git URL is this working tree committed into a temporary repository and served over git's
// smart HTTP protocol on 127.0.0.1 (Claude Code accepts `owner/repo`, https/http URLs and local paths; with a local
// path 2.1.330 runs the plugin in place from that folder, so only a URL shows what a user's install runs). Not
// `--plugin-dir`: that skips the copy and the dependency install this checks. The install must get the runtime dependencies only (2.1.330 refused the old lock's `tools/dev` workspace link and installed
// nothing; 2.1.197 installed the whole toolchain, 798 MB), build the CLI on first use, and then the hooks and the MCP
// server must work in a session against the fake model server.

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
      const { sb, cwd, env } = await servedSandbox();
      const server = await startFakeAnthropic(() => ({ text: 'ok' }));
      cleanups.push(() => server.close());
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
