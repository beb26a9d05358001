// Installed once, working for months: `engram` on PATH after setup, a shim that survives its target going away,
// project files a teammate can use, and a SessionEnd with no transcript that starts nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, runCli } from '../helpers/cli.js';
import { alive, makeSandbox, pidsFromLocks, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

/** Runs a command line through a shell, as a user types it (or as Claude Code runs a hook command). */
function sh(line: string, env: NodeJS.ProcessEnv, opts: { cwd?: string; input?: string } = {}) {
  const r = spawnSync('/bin/sh', ['-c', line], { env, cwd: opts.cwd, input: opts.input ?? '', encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** A copy of the built CLI somewhere else (dist/ plus a node_modules link), to be moved or deleted by a test. */
function copyOfCli(root: string): string {
  const dir = path.join(root, 'checkout');
  fs.cpSync(path.join(repoRoot, 'dist'), path.join(dir, 'dist'), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
  return path.join(dir, 'dist', 'engram.mjs');
}

function run(entry: string, args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot) {
  const r = spawnSync(process.execPath, [entry, ...args], { env, cwd, input: '', encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Processes whose command line names `text` (Linux /proc). */
function processesNaming(text: string): string[] {
  const out: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(text)) out.push(`${pid}: ${cmd}`);
    } catch {
      // gone
    }
  }
  return out;
}

describe('a command that stays', () => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    sb = makeSandbox();
    env = { ...sb.env, SHELL: '/bin/bash', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };
    delete env.CLAUDE_CONFIG_DIR;
    delete env.ENGRAM_VAULT;
    sb.writeNote('Notes/Pnpm.md', '# Pnpm\nWe use pnpm workspaces (zebrafinch).\n');
  });
  afterEach(async () => sb.cleanup());

  it('setup links `engram` into ~/.local/bin, prints the PATH line, and the commands it prints work as written', () => {
    const r = runCli(['setup', '--vault', sb.vault], { env, timeout: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const link = path.join(sb.home, '.local', 'bin', 'engram');
    expect(fs.readlinkSync(link)).toBe(path.join(sb.engramHome, 'bin', 'engram'));
    // ~/.local/bin is not on this PATH: setup gives the exact line for the user's shell.
    expect(r.stdout).toContain(`echo 'export PATH="$HOME/.local/bin:$PATH"' >> ~/.bashrc`);
    // What the user has after following that line: the printed commands, typed into a shell, as written.
    const userEnv = { ...env, PATH: `${path.dirname(link)}:${env.PATH}` };
    for (const cmd of r.stdout.match(/`engram (status|search|doctor)[^`]*`/g) ?? []) {
      const line = cmd.slice(1, -1).replace('<words>', 'pnpm');
      const out = sh(line, userEnv, { cwd: sb.root });
      expect(out.stderr, line).not.toMatch(/not found|Error:/);
      if (!line.includes('doctor')) expect(out.code, `${line}: ${out.stderr}`).toBe(0);
      else expect(out.stdout).toMatch(/vault: /);
    }
    expect(sh('engram search pnpm', userEnv).stdout).toContain('zebrafinch');

    const u = runCli(['uninstall'], { env });
    expect(u.code, u.stderr).toBe(0);
    expect(fs.existsSync(link)).toBe(false);
    expect(u.stdout).toContain(`removed ${link}`);
  }, 90_000);

  it('uninstalling one registration keeps the shim and the link while another still runs them', () => {
    expect(runCli(['install'], { env }).code).toBe(0);
    expect(runCli(['install', '--agent', 'codex'], { env }).code).toBe(0);
    const shim = path.join(sb.engramHome, 'bin', 'engram');
    const link = path.join(sb.home, '.local', 'bin', 'engram');
    const u = runCli(['uninstall', '--agent', 'codex'], { env });
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toContain(`still registered in ${path.join(sb.home, '.claude', 'settings.json')}`);
    expect(fs.existsSync(shim)).toBe(true);
    expect(sh('engram --version', { ...env, PATH: `${path.dirname(link)}:${env.PATH}` }).code).toBe(0);
    expect(runCli(['uninstall'], { env }).code).toBe(0);
    expect(fs.existsSync(shim)).toBe(false);
    expect(fs.existsSync(link)).toBe(false);
  });

  it('never replaces someone else\'s `engram` in ~/.local/bin, and uninstall leaves it alone', () => {
    const link = path.join(sb.home, '.local', 'bin', 'engram');
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.writeFileSync(link, '#!/bin/sh\necho other\n');
    const r = runCli(['install'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/not linked \(.*exists and is not Engram's link/);
    expect(runCli(['uninstall'], { env }).code).toBe(0);
    expect(fs.readFileSync(link, 'utf8')).toContain('echo other');
  });

  it('the shim runs the checkout\'s real path, and when that is gone a hook logs it and exits 0 without a trace', () => {
    const entry = copyOfCli(sb.root);
    // `npx engram` inside a checkout runs the CLI through a link in npm's npx cache: the shim must name the checkout.
    const npxBin = path.join(sb.root, '.npm', '_npx', '0123abcd', 'node_modules', '.bin');
    fs.mkdirSync(npxBin, { recursive: true });
    fs.symlinkSync(entry, path.join(npxBin, 'engram'));
    const r = run(path.join(npxBin, 'engram'), ['install'], env);
    expect(r.code, r.stderr).toBe(0);
    const shim = path.join(sb.engramHome, 'bin', 'engram');
    expect(fs.readFileSync(shim, 'utf8')).toContain(`entry='${entry}'`);
    expect(fs.readFileSync(shim, 'utf8')).not.toContain('_npx');

    const payload = JSON.stringify({ session_id: 's1', hook_event_name: 'SessionStart', cwd: sb.root, source: 'startup' });
    // A crash inside the CLI (a half-written rebuild): still exit 0, nothing on stderr, the trace in the log.
    fs.writeFileSync(path.join(path.dirname(entry), 'engram-hook.mjs'), 'throw new Error("half-built bundle");\n');
    fs.writeFileSync(entry, 'throw new Error("half-built bundle");\n');
    let h = sh(`${shim} hook SessionStart`, env, { input: payload });
    expect(h).toMatchObject({ code: 0, stderr: '' });
    const log = path.join(sb.engramHome, 'logs', 'hook.log');
    expect(fs.readFileSync(log, 'utf8')).toContain('half-built bundle');

    // The target deleted (the checkout moved, the npx cache cleaned).
    fs.rmSync(path.dirname(entry), { recursive: true });
    h = sh(`${shim} hook Stop`, env, { input: payload });
    expect(h).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(fs.readFileSync(log, 'utf8')).toMatch(/hook Stop: skipped, .*engram\.mjs .* is missing/);
    // The CLI itself says what happened and what to do (exit 1: a command, not a hook).
    const cli = sh(`${shim} status`, env);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/is missing.*dist\/engram\.mjs install/);
    // doctor names the gone target.
    const d = runCli(['doctor', '--json'], { env: { ...env, ENGRAM_VAULT: sb.vault } });
    const hooks = (JSON.parse(d.stdout) as { name: string; status: string; detail: string }[]).find((c) => c.name === 'hooks')!;
    expect(hooks.status).toBe('fail');
    expect(hooks.detail).toContain('which is gone');
  });

  it('refuses to point the shim into npm\'s npx cache, which npm cleans', () => {
    const cached = path.join(sb.root, '.npm', '_npx', '0123abcd', 'node_modules', 'engram');
    fs.mkdirSync(cached, { recursive: true });
    fs.cpSync(path.join(repoRoot, 'dist'), path.join(cached, 'dist'), { recursive: true });
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(cached, 'node_modules'));
    const r = run(path.join(cached, 'dist', 'engram.mjs'), ['install'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/npx cache.*npm cleans/);
    expect(r.stderr).toMatch(/npm ci && npm run build/);
    expect(fs.existsSync(path.join(sb.engramHome, 'bin', 'engram'))).toBe(false);
    expect(fs.existsSync(path.join(sb.home, '.claude', 'settings.json'))).toBe(false);
  });

  it('project scope writes files a teammate can commit: `engram` from PATH, no path of this machine', () => {
    const proj = path.join(sb.root, 'proj');
    fs.mkdirSync(proj);
    const r = runCli(['install', '--scope', 'project'], { env, cwd: proj });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Commit \.claude\/settings\.json and \.mcp\.json/);
    const settingsText = fs.readFileSync(path.join(proj, '.claude', 'settings.json'), 'utf8');
    const mcpText = fs.readFileSync(path.join(proj, '.mcp.json'), 'utf8');
    for (const text of [settingsText, mcpText]) {
      expect(text).not.toContain(sb.root);
      expect(text).not.toContain(sb.home);
    }
    const mcp = JSON.parse(mcpText).mcpServers.engram;
    expect(mcp).toMatchObject({ command: 'engram', args: ['mcp'] });
    // On a teammate's machine (another HOME, engram on PATH through its own link), the hook commands run as written.
    const mate = makeSandbox();
    try {
      const mateEnv: NodeJS.ProcessEnv = { ...mate.env, SHELL: '/bin/bash' };
      delete mateEnv.CLAUDE_CONFIG_DIR;
      expect(runCli(['install'], { env: mateEnv }).code).toBe(0);
      const matePath = { ...mateEnv, PATH: `${path.join(mate.home, '.local', 'bin')}:${mateEnv.PATH}` };
      const hooks = JSON.parse(settingsText).hooks as Record<string, { hooks: { command: string }[] }[]>;
      for (const [event, groups] of Object.entries(hooks)) {
        const h = sh(groups[0].hooks[0].command, matePath, { cwd: proj, input: JSON.stringify({ session_id: 's', hook_event_name: event, cwd: proj, prompt: 'zebrafinch' }) });
        expect(h, event).toMatchObject({ code: 0, stderr: '' });
      }
      // The MCP command, spawned without a shell as Claude Code does, answers the MCP handshake.
      const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      const m = spawnSync(mcp.command, mcp.args, { env: matePath, cwd: proj, input: `${init}\n`, encoding: 'utf8', timeout: 20_000 });
      expect(String(m.stdout)).toContain('"serverInfo"');
    } finally {
      void mate.cleanup();
    }
  });

  it.skipIf(process.platform !== 'linux')('a SessionEnd whose transcript never existed (`claude mcp list`) spools nothing and starts no host', () => {
    const payload = { session_id: 'mcp-list', transcript_path: path.join(sb.home, '.claude', 'projects', 'x', 'never.jsonl'), cwd: sb.root, hook_event_name: 'SessionEnd', reason: 'other' };
    const r = spawnSync(process.execPath, [cliPath, 'hook', 'SessionEnd'], { env: { ...env, ENGRAM_VAULT: sb.vault }, input: JSON.stringify(payload), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
    const vaults = path.join(sb.engramHome, 'vaults');
    const spooled = fs.existsSync(vaults) ? fs.readdirSync(vaults, { recursive: true }).map(String).filter((f) => f.includes('spool') && f.endsWith('.json')) : [];
    expect(spooled).toEqual([]);
    // No host was started: a detached `serve` would already be in the process table when the hook exits.
    expect(processesNaming(fs.realpathSync(sb.vault))).toEqual([]);
    const log = path.join(sb.engramHome, 'logs', 'hook.log');
    expect(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '').not.toMatch(/started|refused/);
  });

  it('a rebuild under a running host: hooks keep exiting 0, the host stops cleanly, the next hook starts the new build', async () => {
    const entry = copyOfCli(sb.root);
    const dist = path.dirname(entry);
    const venv = { ...env, ENGRAM_VAULT: sb.vault };
    expect(run(entry, ['install'], venv).code).toBe(0);
    const shim = path.join(sb.engramHome, 'bin', 'engram');
    const started = run(entry, ['serve'], venv);
    expect(started.code, started.stderr).toBe(0);
    const [oldPid] = pidsFromLocks(sb.engramHome);
    expect(alive(oldPid)).toBe(true);

    // `npm run build`: dist/ deleted, then written again. A hook in between exits 0 and prints nothing.
    fs.rmSync(dist, { recursive: true });
    const prompt = JSON.stringify({ session_id: 's1', hook_event_name: 'UserPromptSubmit', cwd: sb.root, prompt: 'pnpm zebrafinch' });
    expect(sh(`${shim} hook UserPromptSubmit`, venv, { input: prompt })).toMatchObject({ code: 0, stdout: '', stderr: '' });
    fs.cpSync(path.join(repoRoot, 'dist'), dist, { recursive: true });
    fs.writeFileSync(path.join(dist, 'chunks', 'rebuilt-0000.mjs'), 'export {};\n'); // the new build differs

    // The host notices and stops cleanly (its lock released), saying why in its log.
    await waitFor(() => !alive(oldPid), 20_000, 'the old host to stop');
    expect(pidsFromLocks(sb.engramHome).filter(alive)).toEqual([]);
    const logs = path.join(sb.engramHome, 'logs');
    expect(fs.readdirSync(logs).filter((f) => f.startsWith('host-')).map((f) => fs.readFileSync(path.join(logs, f), 'utf8')).join('')).toContain('the CLI was rebuilt');

    // The next hook starts a host from the new build, which answers.
    expect(sh(`${shim} hook UserPromptSubmit`, venv, { input: prompt })).toMatchObject({ code: 0, stderr: '' });
    const status = await waitFor(() => {
      const r = sh(`${shim} status --json`, venv);
      const pid = r.code === 0 ? (JSON.parse(r.stdout) as { host?: { pid?: number } | null }).host?.pid : undefined;
      return pid && pid !== oldPid ? pid : undefined;
    }, 20_000, 'a host from the new build');
    expect(alive(status)).toBe(true);
  }, 90_000);
});

