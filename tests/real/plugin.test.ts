// The repository as a Claude Code plugin, checked with the real CLI: `claude plugin validate --strict` passes (the
// manifest no longer names hooks/hooks.json, which Claude Code loads by itself: 2.1.197 called that a duplicate and
// marked the plugin hook-load-failed), and a session with the plugin loaded runs each hook once and gets its context.
// Also: `claude mcp list` fires a SessionEnd for a transcript that never exists; Engram ignores it quietly.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { allText, claudeEnv, realCli, realSuiteTitle, runClaude, runProcess, startFakeAnthropic } from '../helpers/real-cli.js';

const claude = realCli('claude');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** What `/plugin install` has: the plugin folder's own files, node_modules, and (to skip the first-use build) dist/.
 * (tests/real/plugin-install.test.ts installs it from the marketplace for real.) */
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

// 2.1.197, the oldest version the hooks need, is the one that marks a plugin naming hooks/hooks.json in its manifest
// hook-load-failed: the plugin must load there too.
const oldest = realCli('claudeOldest');

describe.skipIf('skip' in oldest)(realSuiteTitle('claudeOldest', 'Engram as a plugin in the oldest supported Claude Code'), () => {
  const oldestBin = (oldest as { bin: string }).bin;
  it('validate --strict passes and a session loads the hooks (no "Duplicate hooks file", no hook-load-failed)', async () => {
    const sb = sandbox();
    const server = await startFakeAnthropic(() => ({ text: 'ok' }));
    cleanups.push(() => server.close());
    const v = await runProcess(oldestBin, ['plugin', 'validate', path.join(repoRoot, 'plugin'), '--strict'], { cwd: sb.root, env: claudeEnv(sb.home, server) });
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain('Validation passed');
    sb.writeNote('Engram/Inbox/Pnpm strict modules.md', '---\ntype: insight\nscope: general\nsummary: pnpm workspaces keep node_modules strict (platypode)\n---\nWhy monorepos pick pnpm workspaces over npm: strict node_modules.\n');
    sb.serve();
    await waitFor(() => {
      const r = runCli(['status', '--json'], { env: sb.env });
      return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
    }, 20_000, 'a ready host');
    const cwd = path.join(sb.root, 'work');
    fs.mkdirSync(cwd);
    const env = { ENGRAM_HOME: sb.engramHome, ENGRAM_VAULT: sb.vault, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR };
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
    const sb = sandbox();
    sb.writeNote('Engram/Inbox/Pnpm strict modules.md', '---\ntype: insight\nscope: general\nsummary: pnpm workspaces keep node_modules strict, so a monorepo cannot use undeclared packages (platypode)\n---\nWhy monorepos pick pnpm workspaces over npm: strict node_modules.\n');
    sb.serve();
    await waitFor(() => {
      const r = runCli(['status', '--json'], { env: sb.env });
      return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
    }, 20_000, 'a ready host');
    const plugin = pluginCopy(sb.root);
    const server = await startFakeAnthropic(() => ({ text: 'ok' }));
    cleanups.push(() => server.close());
    const cwd = path.join(sb.root, 'work');
    fs.mkdirSync(cwd);
    const env = { ENGRAM_HOME: sb.engramHome, ENGRAM_VAULT: sb.vault, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR };
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
