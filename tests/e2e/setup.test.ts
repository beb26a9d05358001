// `engram setup` with a temporary HOME: Obsidian's vault list, config, hooks + MCP, index, the offline backlog pass.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

describe('engram setup', () => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    sb = makeSandbox();
    env = { ...sb.env };
    delete env.ENGRAM_VAULT;
    delete env.CLAUDE_CONFIG_DIR;
    delete env.XDG_CONFIG_HOME;
    const older = path.join(sb.root, 'Old vault');
    fs.mkdirSync(older);
    sb.writeNote('Notes/Existing.md', '# Existing\nA note the user wrote.\n');
    const cfg = path.join(sb.home, '.config', 'obsidian');
    fs.mkdirSync(cfg, { recursive: true });
    fs.writeFileSync(path.join(cfg, 'obsidian.json'), JSON.stringify({ vaults: { a: { path: older, ts: 1000 }, b: { path: sb.vault, ts: 2000, open: true }, c: { path: path.join(sb.root, 'gone'), ts: 3000 } } }));
    const proj = path.join(sb.home, '.claude', 'projects', '-home-dev-acme');
    fs.mkdirSync(proj, { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl'), path.join(proj, '11111111-aaaa-4aaa-8aaa-000000000001.jsonl'));
  });
  afterEach(async () => sb.cleanup());

  it('--yes takes the most recent existing vault and sets everything up offline', async () => {
    const r = runCli(['setup', '--yes'], { env: { ...env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' }, timeout: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Vault: ${fs.realpathSync(sb.vault)}`);
    expect(JSON.parse(fs.readFileSync(path.join(sb.engramHome, 'config.json'), 'utf8')).vault_path).toBe(sb.vault);
    expect(fs.readFileSync(path.join(sb.home, '.claude', 'settings.json'), 'utf8')).toContain('hook UserPromptSubmit');
    expect(JSON.parse(fs.readFileSync(path.join(sb.home, '.claude.json'), 'utf8')).mcpServers.engram.args).toEqual(['mcp']);
    expect(r.stdout).toMatch(/Index: 1 note /);
    expect(r.stdout).toMatch(/1 existing Claude Code sessions/);
    expect(r.stdout).toMatch(/about [\d,]+ input tokens/);
    expect(r.stdout).toContain('engram backfill');
    expect(r.stdout).toContain('engram status');
    // This vault's Obsidian has no Bases core plugin: no views written, and it says why.
    expect(r.stdout).toContain('6. Obsidian views: this vault\'s Obsidian has no Bases core plugin');
    expect(fs.existsSync(path.join(sb.vault, 'Engram', 'Stale.base'))).toBe(false);
    // The Obsidian plugin, from this checkout's build, turned on in the vault: the tests built main.js in its release
    // form (setup refuses a development build), so `npm test` never leaves a build a user should not get.
    const plugin = path.join(sb.vault, '.obsidian', 'plugins', 'engram');
    expect(r.stdout).toContain(`5. Obsidian plugin: main.js added, manifest.json added, styles.css added in ${path.join(fs.realpathSync(sb.vault), '.obsidian', 'plugins', 'engram')}`);
    // Buffer.equals, not toEqual: the built main.js is megabytes, and a deep compare of each byte takes seconds.
    expect(fs.readFileSync(path.join(plugin, 'main.js')).equals(fs.readFileSync(path.join(repoRoot, 'main.js')))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(sb.vault, '.obsidian', 'community-plugins.json'), 'utf8'))).toEqual(['engram']);
    // The rules pass files the transcript's explicit markers.
    await waitFor(() => {
      const dir = path.join(sb.vault, 'Engram');
      return fs.existsSync(dir) && JSON.stringify(fs.readdirSync(dir, { recursive: true })).includes('.md');
    }, 20_000, 'notes from the rules pass');
    const st = runCli(['status', '--json'], { env });
    expect(st.code).toBe(0);
    expect(JSON.parse(st.stdout).host.pid).toBeGreaterThan(0);
  });

  it('--json puts the prose on stderr and one result on stdout, the Obsidian plugin step included; a second run changes nothing', () => {
    // An Obsidian with the Bases core plugin on: setup adds Engram's views to the Engram folder, once.
    fs.mkdirSync(path.join(sb.vault, '.obsidian'), { recursive: true });
    fs.writeFileSync(path.join(sb.vault, '.obsidian', 'core-plugins.json'), JSON.stringify({ 'file-explorer': true, bases: true }));
    const run = () => runCli(['setup', '--yes', '--json'], { env: { ...env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' }, timeout: 60_000 });
    const first = run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('1. Vault:');
    const result = JSON.parse(first.stdout);
    expect(result.vault).toBe(sb.vault);
    expect(result.index.notes).toBe(1);
    expect(result.obsidianPlugin).toMatchObject({ status: 'installed', files: { 'main.js': 'added', 'manifest.json': 'added', 'styles.css': 'added' }, enabled: 'added' });
    const views = ['Engram/Working memory due.base', 'Engram/Decisions by project.base', 'Engram/Recently captured.base', 'Engram/Stale.base'];
    expect(result.bases).toEqual({ plugin: 'on', written: views, kept: [] });
    expect(fs.readFileSync(path.join(sb.vault, 'Engram', 'Working memory due.base'), 'utf8')).toContain("note.review_after <= today()");
    // A view the user changed is theirs: the second run keeps it as it is.
    fs.writeFileSync(path.join(sb.vault, 'Engram', 'Stale.base'), 'views: []\n');
    const again = JSON.parse(run().stdout);
    expect(again.bases).toEqual({ plugin: 'on', written: [], kept: views });
    expect(fs.readFileSync(path.join(sb.vault, 'Engram', 'Stale.base'), 'utf8')).toBe('views: []\n');
    expect(again.obsidianPlugin).toMatchObject({ status: 'installed', files: { 'main.js': 'unchanged', 'manifest.json': 'unchanged', 'styles.css': 'unchanged' }, enabled: 'unchanged' });
    expect(fs.readFileSync(path.join(sb.vault, '.obsidian', 'community-plugins.json'), 'utf8')).toBe('[\n  "engram"\n]');
  });

  it('without --yes and no terminal, lists the vaults and asks for --vault', () => {
    const r = runCli(['setup'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Old vault');
    expect(r.stdout).not.toContain('gone');
    expect(r.stderr).toMatch(/--vault|--yes/);
  });

  it('on a machine where Obsidian knows no vault, --yes starts one in ~/Engram; without it, says how', async () => {
    fs.rmSync(path.join(sb.home, '.config', 'obsidian'), { recursive: true });
    const refused = runCli(['setup'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Obsidian knows no vault');
    expect(refused.stderr).toContain('--vault <path>');
    expect(fs.existsSync(path.join(sb.home, 'Engram'))).toBe(false);

    const r = runCli(['setup', '--yes'], { env: { ...env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' }, timeout: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const fresh = path.join(sb.home, 'Engram');
    expect(r.stdout).toContain(`started a new vault at ${fresh}`);
    expect(JSON.parse(fs.readFileSync(path.join(sb.engramHome, 'config.json'), 'utf8')).vault_path).toBe(fresh);
    expect(r.stdout).toMatch(/Index: 0 notes/);
  });

  describe('the extraction backend on a fresh machine', () => {
    // PATH holds node and the system tools; HOME (~/.claude/local, ~/.local/bin) is the sandbox's.
    const bin = () => {
      const dir = path.join(sb.root, 'bin');
      fs.mkdirSync(dir, { recursive: true });
      return dir;
    };
    const pathWith = (dir: string) => [dir, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
    const doctorBackend = (e: NodeJS.ProcessEnv) => (JSON.parse(runCli(['doctor', '--json'], { env: e }).stdout) as { name: string; status: string; detail: string }[]).find((c) => c.name === 'backend')!;

    it('without the Claude Code CLI, chooses rules, says so, and doctor is satisfied', () => {
      const e = { ...env, PATH: pathWith(bin()), ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };
      const r = runCli(['setup', '--yes', '--no-plugin', '--json'], { env: e, timeout: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('Backend: rules (offline, no LLM)');
      expect(r.stderr).toContain('the Claude Code CLI is not on PATH');
      expect(r.stderr).toContain('engram configure backend claude');
      expect(JSON.parse(r.stdout).backend).toEqual({ name: 'rules', ok: true, chosen: 'no Claude Code CLI on PATH' });
      expect(JSON.parse(fs.readFileSync(path.join(sb.engramHome, 'config.json'), 'utf8')).backend).toBe('rules');
      // doctor failed right after a successful setup here ("the claude CLI is not on PATH").
      expect(doctorBackend(e)).toMatchObject({ status: 'ok', detail: 'rules (no LLM)' });
    });

    it('with the CLI on PATH, or a backend the user chose, leaves the backend alone', () => {
      const dir = bin();
      fs.writeFileSync(path.join(dir, 'claude'), '#!/bin/sh\necho \'{"loggedIn":true,"authMethod":"claude.ai"}\'\n');
      fs.chmodSync(path.join(dir, 'claude'), 0o755);
      const withCli = runCli(['setup', '--yes', '--no-plugin', '--json'], { env: { ...env, PATH: pathWith(dir) }, timeout: 60_000 });
      expect(withCli.code, withCli.stderr).toBe(0);
      expect(JSON.parse(withCli.stdout).backend).toEqual({ name: 'claude', ok: true });
      expect(JSON.parse(fs.readFileSync(path.join(sb.engramHome, 'config.json'), 'utf8')).backend).toBeUndefined();

      fs.rmSync(path.join(dir, 'claude'));
      fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'claude' }));
      const chosen = runCli(['setup', '--yes', '--no-plugin', '--json'], { env: { ...env, PATH: pathWith(dir) }, timeout: 60_000 });
      expect(chosen.code, chosen.stderr).toBe(0);
      expect(chosen.stderr).not.toContain('Backend: rules');
      expect(JSON.parse(fs.readFileSync(path.join(sb.engramHome, 'config.json'), 'utf8')).backend).toBe('claude');
    });
  });
});
