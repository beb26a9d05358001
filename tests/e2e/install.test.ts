// install / uninstall against a temporary HOME: merging, idempotent, backup, dry run, byte-identical reversal.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';

const ORIGINAL = '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]\n\t},\n\t"permissions": {"allow": ["Bash(ls:*)"]}\n}\n';

describe('engram install / uninstall', () => {
  let sb: Sandbox;
  let settings: string;
  beforeEach(() => {
    sb = makeSandbox();
    delete sb.env.CLAUDE_CONFIG_DIR;
    settings = path.join(sb.home, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, ORIGINAL);
  });
  afterEach(async () => sb.cleanup());

  it('merges hooks and the MCP server, is idempotent, backs up, and uninstall restores the bytes', () => {
    const r = runCli(['install'], { env: sb.env });
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(fs.readFileSync(settings, 'utf8'));
    const shim = path.join(sb.engramHome, 'bin', 'engram');
    expect(fs.statSync(shim).mode & 0o111).not.toBe(0);
    expect(s.model).toBe('opus');
    expect(s.permissions.allow).toEqual(['Bash(ls:*)']);
    expect(s.hooks.Stop).toHaveLength(2);
    expect(s.hooks.Stop[0].hooks[0].command).toBe('say done');
    for (const e of ['SessionStart', 'UserPromptSubmit', 'Stop', 'PreCompact', 'SessionEnd']) {
      expect(JSON.stringify(s.hooks[e])).toContain(`${shim} hook ${e}`);
    }
    const mcp = JSON.parse(fs.readFileSync(path.join(sb.home, '.claude.json'), 'utf8'));
    expect(mcp.mcpServers.engram).toMatchObject({ command: shim, args: ['mcp'] });
    expect(fs.readFileSync(`${settings}.engram-backup`, 'utf8')).toBe(ORIGINAL);

    const after1 = fs.readFileSync(settings, 'utf8');
    expect(runCli(['install'], { env: sb.env }).stdout).toMatch(/unchanged/);
    expect(fs.readFileSync(settings, 'utf8')).toBe(after1);

    const u = runCli(['uninstall'], { env: sb.env });
    expect(u.code, u.stderr).toBe(0);
    expect(fs.readFileSync(settings, 'utf8')).toBe(ORIGINAL);
    expect(fs.existsSync(path.join(sb.home, '.claude.json'))).toBe(false);
    expect(fs.existsSync(shim)).toBe(false);
  });

  it('--dry-run shows the diff and writes nothing', () => {
    const r = runCli(['install', '--dry-run'], { env: sb.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\+ .*hook SessionStart/);
    expect(fs.readFileSync(settings, 'utf8')).toBe(ORIGINAL);
    expect(fs.existsSync(path.join(sb.engramHome, 'bin', 'engram'))).toBe(false);
  });

  it('refuses to touch a settings file that is not valid JSON', () => {
    fs.writeFileSync(settings, '{ oops');
    const r = runCli(['install'], { env: sb.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(fs.readFileSync(settings, 'utf8')).toBe('{ oops');
  });

  it('project scope and Codex', () => {
    const proj = path.join(sb.root, 'proj');
    fs.mkdirSync(proj);
    expect(runCli(['install', '--scope', 'project'], { env: sb.env, cwd: proj }).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(proj, '.mcp.json'), 'utf8')).mcpServers.engram.args).toEqual(['mcp']);
    expect(fs.existsSync(path.join(proj, '.claude', 'settings.json'))).toBe(true);
    expect(runCli(['uninstall', '--scope', 'project'], { env: sb.env, cwd: proj }).code).toBe(0);
    expect(fs.existsSync(path.join(proj, '.mcp.json'))).toBe(false);

    const toml = path.join(sb.home, '.codex', 'config.toml');
    fs.mkdirSync(path.dirname(toml), { recursive: true });
    const before = 'model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n';
    fs.writeFileSync(toml, before);
    expect(runCli(['install', '--agent', 'codex'], { env: sb.env }).code).toBe(0);
    expect(fs.readFileSync(toml, 'utf8')).toMatch(/\[mcp_servers\.engram\]\ncommand = ".*bin\/engram"\nargs = \["mcp"\]/);
    expect(runCli(['install', '--agent', 'codex'], { env: sb.env }).stdout).toMatch(/unchanged/);
    expect(runCli(['uninstall', '--agent', 'codex'], { env: sb.env }).code).toBe(0);
    expect(fs.readFileSync(toml, 'utf8')).toBe(before);
  });

  it('uninstall --purge stops hosts and deletes ENGRAM_HOME but never a note', async () => {
    sb.writeNote('Keep me.md', 'mine');
    runCli(['install'], { env: sb.env });
    expect(runCli(['serve'], { env: sb.env }).code).toBe(0);
    const r = runCli(['uninstall', '--purge'], { env: sb.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/stopped 1 host/);
    expect(fs.existsSync(sb.engramHome)).toBe(false);
    expect(fs.readFileSync(path.join(sb.vault, 'Keep me.md'), 'utf8')).toBe('mine');
    expect(fs.readFileSync(settings, 'utf8')).toBe(ORIGINAL);
  });
});

describe('Claude Code plugin manifest', () => {
  it('declares the MCP server and all five hooks through ${CLAUDE_PLUGIN_ROOT}', async () => {
    const { repoRoot } = await import('../helpers/shared.js');
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'plugin', '.claude-plugin', 'plugin.json'), 'utf8'));
    expect(manifest.name).toBe('engram');
    expect(manifest.mcpServers.engram.args).toEqual(['${CLAUDE_PLUGIN_ROOT}/bin/engram-plugin.mjs', 'mcp']);
    // Claude Code loads hooks/hooks.json by itself; naming it again in the manifest is an error in 2.1.197.
    expect(manifest.hooks).toBeUndefined();
    expect(manifest.author?.name).toBeTruthy();
    const hooks = JSON.parse(fs.readFileSync(path.join(repoRoot, 'plugin', 'hooks', 'hooks.json'), 'utf8')).hooks;
    const { HOOK_TIMEOUTS } = await import('../../sidecar/install/registration.js');
    const { COLD_START_BUDGET_MS } = await import('../../sidecar/client/hook.js');
    for (const e of ['SessionStart', 'UserPromptSubmit', 'Stop', 'PreCompact', 'SessionEnd']) {
      expect(hooks[e][0].hooks[0].args).toEqual(['${CLAUDE_PLUGIN_ROOT}/bin/engram-plugin.mjs', 'hook', e]);
      // The plugin gives each hook the limit `engram install` registers, and a context hook's wait ends inside it.
      expect(hooks[e][0].hooks[0].timeout, e).toBe(HOOK_TIMEOUTS[e]);
      if (e in COLD_START_BUDGET_MS) expect(COLD_START_BUDGET_MS[e as keyof typeof COLD_START_BUDGET_MS], e).toBeLessThan(HOOK_TIMEOUTS[e]! * 1000);
    }
  });
});

describe('Claude Code plugin install from the repository', () => {
  it('builds the CLI on first use (dist/ is not committed), then runs it; parallel first hooks all exit 0', async () => {
    const { repoRoot } = await import('../helpers/shared.js');
    const { execFileSync, spawn } = await import('node:child_process');
    const os = await import('node:os');
    // What `/plugin install` has: the committed files plus `npm ci --ignore-scripts` (node_modules linked here).
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-plugin-'));
    try {
      const files = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
      for (const f of files) {
        if (!fs.existsSync(path.join(repoRoot, f))) continue;
        fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
        // plugin/ links to the sources (src, sidecar, esbuild.config.mjs): Claude Code's copy follows them.
        if (fs.lstatSync(path.join(repoRoot, f)).isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(path.join(repoRoot, f)), path.join(root, f));
        else fs.copyFileSync(path.join(repoRoot, f), path.join(root, f));
      }
      fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'));
      const plugin = path.join(root, 'plugin');
      expect(fs.existsSync(path.join(plugin, 'dist'))).toBe(false);
      const launcher = path.join(plugin, 'bin', 'engram-plugin.mjs');
      const home = path.join(root, '.home');
      const env = { ...process.env, HOME: home, ENGRAM_HOME: path.join(home, '.engram'), ENGRAM_VAULT: '', ENGRAM_NESTED: '' };
      // Three hooks at once on a fresh install: all exit 0, and the CLI ends up built.
      const runs = await Promise.all(['SessionStart', 'UserPromptSubmit', 'Stop'].map((event) => new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [launcher, 'hook', event], { env, stdio: ['pipe', 'ignore', 'ignore'] });
        child.stdin.end(JSON.stringify({ session_id: 's1', hook_event_name: event, cwd: root, prompt: 'hello' }));
        child.on('exit', (code) => resolve(code));
      })));
      expect(runs).toEqual([0, 0, 0]);
      // Each one ran the CLI: none found a half-written build (the plugin would log that and exit 0).
      const hookLog = path.join(home, '.engram', 'logs', 'hook.log');
      expect(fs.existsSync(hookLog) ? fs.readFileSync(hookLog, 'utf8') : '').not.toMatch(/could not load the CLI/);
      expect(fs.existsSync(path.join(plugin, 'dist', 'engram.mjs'))).toBe(true);
      expect(fs.existsSync(path.join(plugin, '.engram-build.lock'))).toBe(false);
      const version = execFileSync(process.execPath, [launcher, '--version'], { env, encoding: 'utf8' }).trim();
      expect(version).toBe(JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the Claude Code plugin folder (plugin/)', () => {
  it('carries the runtime dependencies only, at the versions the repository lock pins, and is up to date', async () => {
    const { repoRoot } = await import('../helpers/shared.js');
    // @ts-expect-error: a plain JavaScript tool without type declarations
    const { pluginPackageFiles } = (await import('../../tools/plugin-package.mjs')) as { pluginPackageFiles: (root: string) => Record<string, string> };
    const wanted = pluginPackageFiles(repoRoot);
    for (const [file, text] of Object.entries(wanted)) expect(fs.readFileSync(path.join(repoRoot, file), 'utf8'), `${file}: run node tools/plugin-package.mjs`).toBe(text);
    const rootPkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    const rootLock = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8'));
    const pkg = JSON.parse(wanted['plugin/package.json']);
    const lock = JSON.parse(wanted['plugin/package-lock.json']);
    expect(pkg.dependencies).toEqual(rootPkg.dependencies);
    expect(pkg.version).toBe(rootPkg.version);
    expect(pkg.devDependencies).toBeUndefined();
    expect(pkg.workspaces).toBeUndefined();
    // No folder links (Claude Code 2.1.330 refuses a lock with one), no development tools, and every entry pinned
    // exactly as in the repository's lock.
    const entries = Object.entries(lock.packages as Record<string, { version?: string; link?: boolean }>).filter(([at]) => at !== '');
    expect(entries.filter(([, e]) => e.link)).toEqual([]);
    for (const dev of ['node_modules/vitest', 'node_modules/typescript', 'node_modules/eslint', 'node_modules/engram-dev', 'node_modules/@huggingface/transformers']) expect(lock.packages[dev], dev).toBeUndefined();
    for (const [at, e] of entries) expect(e.version, at).toBe(rootLock.packages[at].version);
    for (const name of Object.keys(rootPkg.dependencies)) expect(lock.packages[`node_modules/${name}`], name).toBeDefined();
  });

  it('the marketplace lists the plugin folder', async () => {
    const { repoRoot } = await import('../helpers/shared.js');
    const market = JSON.parse(fs.readFileSync(path.join(repoRoot, '.claude-plugin', 'marketplace.json'), 'utf8'));
    expect(market.name).toBe('engram');
    expect(market.plugins).toEqual([expect.objectContaining({ name: 'engram', source: './plugin' })]);
    expect(fs.existsSync(path.join(repoRoot, 'plugin', '.claude-plugin', 'plugin.json'))).toBe(true);
    expect(fs.existsSync(path.join(repoRoot, 'LICENSE'))).toBe(true);
  });
});
