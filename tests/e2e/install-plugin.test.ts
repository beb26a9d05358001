// One Engram per Claude Code: a plugin install (`/plugin install`) is recognised by doctor, and `engram install` /
// `engram setup` never register the hooks and MCP server a second time beside it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';

type Result = { name: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix?: string };
const PLUGIN = 'engram@engram-marketplace';

describe('the Claude Code plugin and `engram install`', () => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  let settings: string;
  const hooksCheck = () => {
    const r = runCli(['doctor', '--json'], { env });
    return (JSON.parse(r.stdout) as Result[]).find((c) => c.name === 'hooks')!;
  };
  /** What `/plugin install engram@…` leaves in ~/.claude (installed_plugins.json, enabledPlugins). */
  const installPlugin = () => {
    const dir = path.join(sb.home, '.claude', 'plugins');
    fs.mkdirSync(dir, { recursive: true });
    const installPath = path.join(dir, 'cache', 'engram-marketplace', 'engram', '0.1.0');
    fs.writeFileSync(path.join(dir, 'installed_plugins.json'), JSON.stringify({ version: 2, plugins: { [PLUGIN]: [{ scope: 'user', installPath, version: '0.1.0', installedAt: '2026-11-01T00:00:00.000Z' }] } }));
    const current = fs.existsSync(settings) ? JSON.parse(fs.readFileSync(settings, 'utf8')) : {};
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, JSON.stringify({ ...current, enabledPlugins: { [PLUGIN]: true } }, null, 2));
  };

  beforeEach(() => {
    sb = makeSandbox();
    env = { ...sb.env };
    delete env.CLAUDE_CONFIG_DIR;
    settings = path.join(sb.home, '.claude', 'settings.json');
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, vault_path: sb.vault, backend: 'rules' }));
  });
  afterEach(async () => sb.cleanup());

  it('doctor passes a plugin-only install', () => {
    installPlugin();
    const c = hooksCheck();
    expect(c.status, c.detail).toBe('ok');
    expect(c.detail).toContain(`the Claude Code plugin ${PLUGIN}`);
  });

  it('install refuses to register a second time beside the plugin, says how to switch, and changes nothing', () => {
    installPlugin();
    const before = fs.readFileSync(settings, 'utf8');
    const r = runCli(['install'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/plugin \(engram@engram-marketplace\) already registers/);
    expect(r.stderr).toContain(`claude plugin uninstall ${PLUGIN}`);
    expect(fs.readFileSync(settings, 'utf8')).toBe(before);
    expect(fs.existsSync(path.join(sb.home, '.claude.json'))).toBe(false);
    // Codex has no plugin: its registration is unaffected.
    expect(runCli(['install', '--agent', 'codex'], { env }).code).toBe(0);
  });

  it('setup beside the plugin registers nothing in settings.json and says why', () => {
    installPlugin();
    const r = runCli(['setup', '--vault', sb.vault], { env: { ...env, ENGRAM_VAULT: '' }, timeout: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`the Engram plugin (${PLUGIN}) registers the hooks and the MCP server; not registering them again`);
    expect(fs.readFileSync(settings, 'utf8')).not.toContain('hook SessionStart');
    expect(fs.existsSync(path.join(sb.home, '.claude.json'))).toBe(false);
  });

  it('doctor fails a double registration (install, then the plugin) with the two ways out', () => {
    expect(runCli(['install'], { env }).code).toBe(0);
    installPlugin();
    const c = hooksCheck();
    expect(c.status).toBe('fail');
    expect(c.detail).toMatch(/registered twice/);
    expect(c.fix).toContain('engram uninstall');
    expect(c.fix).toContain(`claude plugin uninstall ${PLUGIN}`);
    // A plugin disabled in settings is not a registration.
    fs.writeFileSync(settings, JSON.stringify({ ...JSON.parse(fs.readFileSync(settings, 'utf8')), enabledPlugins: { [PLUGIN]: false } }));
    expect(hooksCheck().status).toBe('ok');
  });

  it('doctor checks the Claude Code version the hooks format needs (2.1.197 or newer)', () => {
    const bin = path.join(sb.root, 'fake-bin');
    fs.mkdirSync(bin);
    const fake = (version: string) => fs.writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\necho "${version} (Claude Code)"\n`, { mode: 0o755 });
    const check = () => (JSON.parse(runCli(['doctor', '--json'], { env: { ...env, PATH: `${bin}:${env.PATH}` } }).stdout) as Result[]).find((c) => c.name === 'claude code')!;
    fake('2.0.14');
    const old = check();
    expect(old.status).toBe('fail');
    expect(old.detail).toContain('older than 2.1.197');
    expect(old.fix).toContain('claude update');
    fake('2.1.330');
    expect(check()).toMatchObject({ status: 'ok', detail: expect.stringContaining('Claude Code 2.1.330') });
  });
});

describe('what a plugin install pulls', () => {
  // Claude Code runs `npm ci --ignore-scripts --workspaces=false` in the plugin copy, with no --omit=dev: the root
  // package's dependencies and devDependencies are what it installs (bench/plugin-install.bench.ts measures it).
  it('the root package carries only runtime dependencies; dev tools and the embedding runtime are in the tools/dev workspace', async () => {
    const { repoRoot } = await import('../helpers/shared.js');
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    expect(pkg.devDependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.dependencies)).toContain('esbuild'); // the first hook builds dist/
    expect(Object.keys(pkg.dependencies)).not.toContain('@huggingface/transformers');
    expect(pkg.workspaces).toEqual(['tools/dev']);
    const dev = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tools', 'dev', 'package.json'), 'utf8'));
    for (const name of ['@huggingface/transformers', 'vitest', 'typescript', 'eslint']) expect(Object.keys(dev.devDependencies)).toContain(name);
    // The lockfile agrees: nothing heavy is reachable from the root package.
    const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const installed = Object.entries(lock.packages).filter(([k, v]) => k.startsWith('node_modules/') && !v.dev).map(([k]) => k);
    expect(installed.filter((k) => /onnxruntime|@huggingface|typescript|vitest|eslint|playwright|sharp/.test(k))).toEqual([]);
  });

  describe('without the embedding runtime (a plugin install)', () => {
    let root: string;
    let env: NodeJS.ProcessEnv;
    beforeEach(async () => {
      const { repoRoot } = await import('../helpers/shared.js');
      const { makeTempDir } = await import('../helpers/temp.js');
      // The CLI as the plugin install has it: dist/, package.json and every runtime package, but no @huggingface.
      root = makeTempDir('engram-noruntime-');
      fs.cpSync(path.join(repoRoot, 'dist'), path.join(root, 'dist'), { recursive: true });
      fs.copyFileSync(path.join(repoRoot, 'package.json'), path.join(root, 'package.json'));
      fs.mkdirSync(path.join(root, 'node_modules'));
      for (const name of fs.readdirSync(path.join(repoRoot, 'node_modules'))) {
        if (name === '@huggingface' || name.startsWith('.')) continue;
        fs.symlinkSync(path.join(repoRoot, 'node_modules', name), path.join(root, 'node_modules', name));
      }
      const model = path.join(root, 'model');
      fs.mkdirSync(path.join(model, 'onnx'), { recursive: true });
      fs.writeFileSync(path.join(model, 'config.json'), '{}');
      fs.writeFileSync(path.join(model, 'onnx', 'model_quantized.onnx'), 'x');
      env = { ...process.env, HOME: path.join(root, 'home'), ENGRAM_HOME: path.join(root, 'engram'), ENGRAM_EMBEDDING_MODEL_PATH: model };
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
    const cli = (args: string[], e: NodeJS.ProcessEnv) => spawnSync(process.execPath, [path.join(root, 'dist', 'engram.mjs'), ...args], { env: e, cwd: root, encoding: 'utf8', timeout: 60_000 });

    it('search says the runtime is missing and that `engram model pull` installs it', () => {
      const r = cli(['model', 'status', '--json'], env);
      expect(r.status, r.stderr).toBe(0);
      const status = JSON.parse(r.stdout) as { searchMode: string; problem: string };
      expect(status.searchMode).toBe('bm25');
      expect(status.problem).toMatch(/embedding runtime \(@huggingface\/transformers\) is not installed.*engram model pull/);
    });

    it('`engram model pull` installs the runtime beside the CLI with npm first, and says so', () => {
      // npm stands in for the registry: it records how it was called and installs a stub of the package.
      const bin = path.join(root, 'fake-bin');
      fs.mkdirSync(bin);
      const calls = path.join(root, 'npm-calls.txt');
      fs.writeFileSync(path.join(bin, 'npm'), [
        '#!/bin/sh',
        `echo "$PWD $*" >> '${calls}'`,
        'mkdir -p node_modules/@huggingface/transformers',
        'echo \'{"name":"@huggingface/transformers","type":"module","exports":"./index.js"}\' > node_modules/@huggingface/transformers/package.json',
        'echo \'export const env = {}; export async function pipeline() { throw new Error("stub runtime"); }\' > node_modules/@huggingface/transformers/index.js',
        '',
      ].join('\n'), { mode: 0o755 });
      const r = cli(['model', 'pull'], { ...env, PATH: `${bin}:${env.PATH}` });
      expect(r.stdout).toMatch(/Installing the embedding runtime @huggingface\/transformers@\^?[\d.]+ .* into .*node_modules/);
      const call = fs.readFileSync(calls, 'utf8').trim();
      expect(call).toMatch(new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} install --no-save .*--ignore-scripts --workspaces=false @huggingface/transformers@`));
      // The stub is then what loads (the download itself fails on the stub, as it should).
      expect(r.stderr).toContain('stub runtime');
    });
  });
});

