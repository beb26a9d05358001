// `engram doctor`: a healthy setup passes; each test breaks exactly one thing and sees exactly that check fail.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { vaultKey } from '../../sidecar/hosting/paths.js';
import { runChecks } from '../../sidecar/doctor/checks.js';
import { checkLine } from '../../sidecar/cli/commands/doctor.js';
import { configFileOf } from '../helpers/config-reader.js';

type Result = { name: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix?: string };

describe('engram doctor', () => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  let sleeper: ChildProcess | undefined;
  const config = (extra: Record<string, unknown> = {}) =>
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, vault_path: sb.vault, backend: 'rules', ...extra }));
  const doctor = () => {
    const r = runCli(['doctor', '--json'], { env });
    return { code: r.code, results: JSON.parse(r.stdout) as Result[] };
  };
  const failing = (rs: Result[]) => rs.filter((r) => r.status === 'fail').map((r) => r.name);

  beforeEach(() => {
    sb = makeSandbox();
    env = { ...sb.env };
    delete env.ENGRAM_VAULT;
    delete env.CLAUDE_CONFIG_DIR;
    config();
    expect(runCli(['install'], { env }).code).toBe(0);
    // A token and a private socket folder, as a host leaves them.
    fs.writeFileSync(path.join(sb.engramHome, 'token'), 'a'.repeat(64), { mode: 0o600 });
    fs.mkdirSync(path.join(env.XDG_RUNTIME_DIR!, 'engram'), { mode: 0o700 });
  });
  afterEach(async () => {
    sleeper?.kill('SIGKILL');
    sleeper = undefined;
    await sb.cleanup();
  });

  it('passes on a healthy setup (the missing model is only a warning), one line per check with a fix when needed', () => {
    const { code, results } = doctor();
    expect(failing(results)).toEqual([]);
    expect(code).toBe(0);
    expect(results.map((r) => r.name)).toEqual(['node', 'vault', 'state directory', 'configuration', 'socket', 'host', 'lease', 'sync conflicts', 'backend', 'embedding model', 'hooks', 'mcp server', 'codex hooks', 'obsidian plugin', 'plugin ENGRAM_HOME', 'set-aside events', 'lost hook events', 'state files', 'curation applies', 'claude code']);
    expect(results.find((r) => r.name === 'embedding model')!.status).toBe('warn');
    const text = runCli(['doctor'], { env });
    expect(text.stdout.trim().split('\n')).toHaveLength(20);
    expect(text.stdout).toMatch(/warn {2}embedding model: .* -> fix: run `engram model pull`/);
  });

  it('checks the MCP registration of each client, not only the hooks', () => {
    const mcp = () => doctor().results.find((r) => r.name === 'mcp server')!;
    const claudeJson = path.join(sb.home, '.claude.json');
    expect(mcp()).toMatchObject({ status: 'ok', detail: `Claude Code: in ${claudeJson}` });
    // Removed from ~/.claude.json by hand (or by `claude mcp remove`): the hooks are all there, the tools are not.
    const j = JSON.parse(fs.readFileSync(claudeJson, 'utf8'));
    delete j.mcpServers.engram;
    fs.writeFileSync(claudeJson, JSON.stringify(j));
    expect(doctor().results.find((r) => r.name === 'hooks')!.status).toBe('ok');
    expect(mcp()).toMatchObject({ status: 'fail', fix: 'run `engram install` (or install the Claude Code plugin)' });
    expect(runCli(['install'], { env }).code).toBe(0);
    // Codex, once `engram install --agent codex` registered it there.
    expect(runCli(['install', '--agent', 'codex'], { env }).code).toBe(0);
    const codexToml = path.join(sb.home, '.codex', 'config.toml');
    expect(mcp()).toMatchObject({ status: 'ok', detail: `Claude Code: in ${claudeJson}; Codex: in ${codexToml}` });
    fs.writeFileSync(codexToml, fs.readFileSync(codexToml, 'utf8').replace(/\[mcp_servers\.engram\][\s\S]*/, ''));
    expect(mcp()).toMatchObject({ status: 'fail', fix: 'run `engram install --agent codex`' });
  });

  it('a Claude Code plugin installed without its dependencies fails (its MCP server and hooks cannot run)', () => {
    expect(runCli(['uninstall'], { env }).code).toBe(0);
    const plugins = path.join(sb.home, '.claude', 'plugins');
    const installPath = path.join(plugins, 'cache', 'engram', 'engram', '0.1.0');
    fs.mkdirSync(installPath, { recursive: true });
    fs.writeFileSync(path.join(plugins, 'installed_plugins.json'), JSON.stringify({ version: 2, plugins: { 'engram@engram': [{ scope: 'user', installPath, version: '0.1.0' }] } }));
    fs.writeFileSync(path.join(sb.home, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'engram@engram': true } }));
    const mcp = () => doctor().results.find((r) => r.name === 'mcp server')!;
    expect(mcp()).toMatchObject({ status: 'fail' });
    expect(mcp().detail).toContain('has no dependencies installed');
    fs.mkdirSync(path.join(installPath, 'node_modules', '@modelcontextprotocol', 'sdk'), { recursive: true });
    expect(mcp()).toMatchObject({ status: 'ok', detail: 'Claude Code: from the plugin engram@engram' });
  });

  // This process's Node cannot be swapped for an old one: the checks run in process, given the version to check.
  it('reports an old Node under "node" only, and says what to install', async () => {
    const results = await runChecks({ env, cwd: repoRoot, nodeVersion: 'v18.19.0', configFile: configFileOf(env) });
    expect(failing(results)).toEqual(['node']);
    expect(checkLine(results.find((r) => r.name === 'node')!)).toMatch(/^FAIL {2}node: Node v18\.19\.0 is too old {2}-> fix: install Node 20\.19 or newer/);
  });

  const cases: [string, string, () => void][] = [
    ['vault', 'a vault path that is gone', () => config({ vault_path: path.join(sb.root, 'gone') })],
    ['state directory', 'a token readable by others', () => fs.chmodSync(path.join(sb.engramHome, 'token'), 0o644)],
    ['socket', 'a socket folder open to others', () => fs.chmodSync(path.join(env.XDG_RUNTIME_DIR!, 'engram'), 0o755)],
    ['host', 'a live process holding host.lock without a socket', () => {
      sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
      const dir = path.join(sb.engramHome, 'vaults', vaultKey(sb.vault));
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'host.lock'), JSON.stringify({ format: 1, pid: sleeper.pid, host: 'daemon', hostname: os.hostname(), since: 'now' }));
    }],
    ['backend', 'an unreachable Ollama', () => config({ backend: 'ollama', ollama: { url: 'http://127.0.0.1:9' } })],
    ['embedding model', 'a model path with no model', () => config({ embedding: { model_path: path.join(sb.root, 'no-model') } })],
    ['hooks', 'hooks removed from settings.json', () => fs.writeFileSync(path.join(sb.home, '.claude', 'settings.json'), '{}\n')],
    ['obsidian plugin', 'a plugin folder without its styles.css', () => {
      const dir = path.join(sb.vault, '.obsidian', 'plugins', 'engram');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'main.js'), '');
      fs.writeFileSync(path.join(dir, 'manifest.json'), '{"id":"engram","version":"0.1.0"}');
    }],
    ['plugin ENGRAM_HOME', 'the plugin using another ENGRAM_HOME', () => {
      fs.mkdirSync(path.join(sb.vault, '.obsidian', 'plugins', 'engram'), { recursive: true });
      fs.writeFileSync(path.join(sb.vault, '.obsidian', 'plugins', 'engram', 'data.json'), JSON.stringify({ engramHome: '/elsewhere/.engram' }));
    }],
    ['curation applies', 'an apply interrupted by a crash (its journal left)', () => {
      const dir = path.join(sb.engramHome, 'vaults', vaultKey(sb.vault), 'proposals');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'abcdef123456.json'), JSON.stringify({ format: 1, id: 'abcdef123456', family: 'restructure', kind: 'merge', title: 'merge [[A]] into [[B]]', sources: [], writes: [], trash: [], applying: { startedAt: 0, steps: [] } }));
    }],
  ];

  it('names a mistyped config key with the one meant, and a broken config.json with its line, under "configuration"', async () => {
    config({ backend: 'rules', hooks: { injcet: false } });
    const typo = (await runChecks({ env, cwd: repoRoot, nodeVersion: process.version, configFile: configFileOf(env) })).find((r) => r.name === 'configuration')!;
    expect(typo).toMatchObject({ status: 'warn', detail: 'config.json: unknown key hooks.injcet (ignored); did you mean "hooks.inject"?' });
    // A good read first (the last good copy), then a hand edit that breaks the file: a warning, and Engram goes on.
    config({ backend: 'rules' });
    await runChecks({ env, cwd: repoRoot, nodeVersion: process.version, configFile: configFileOf(env) });
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), '{\n  "version": 1,\n  "backend": "rules",\n}\n');
    const results = await runChecks({ env, cwd: repoRoot, nodeVersion: process.version, configFile: configFileOf(env) });
    const broken = results.find((r) => r.name === 'configuration')!;
    expect(broken.status).toBe('warn');
    expect(broken.detail).toMatch(/config\.json:4:1 is not valid JSON.*using the last good configuration/);
    expect(failing(results)).not.toContain('vault');
  });

  for (const [check, what, breakIt] of cases) {
    it(`reports ${what} under "${check}" only`, () => {
      breakIt();
      const { code, results } = doctor();
      const bad = failing(results);
      // A gone vault also leaves socket/host/plugin checks without a vault: they warn, never fail.
      expect(bad).toEqual([check]);
      expect(code).toBe(1);
      expect(results.find((r) => r.name === check)!.fix).toBeTruthy();
    });
  }
});
