// The built `engram` CLI as a user runs it: help, version, errors as one line, configure and check.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { repoRoot } from '../helpers/shared.js';

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const fixture = path.join(repoRoot, 'tests', 'fixtures', 'vault-synthetic');
let tmp: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  tmp = makeTempDir('engram-cli-');
  fs.mkdirSync(path.join(tmp, 'home'));
  fs.mkdirSync(path.join(tmp, 'Vault'));
  env = { ENGRAM_HOME: path.join(tmp, 'state'), HOME: path.join(tmp, 'home'), ENGRAM_VAULT: '', ENGRAM_BACKEND: '', ENGRAM_RECALL_PROMPT_CHARS: '' };
});
afterAll(() => removeDir(tmp));

function noStack(text: string): void {
  expect(text).not.toMatch(/^\s+at /m);
}

function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'latin1') + fs.statSync(p).mtimeMs;
    }
  };
  walk(dir);
  return out;
}

describe('engram basics', () => {
  it('--help lists configure and check', () => {
    const r = runCli(['--help'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\s+configure\s/m);
    expect(r.stdout).toMatch(/^\s+check\s/m);
  });

  it('--version prints the package version', () => {
    const r = runCli(['--version'], { env });
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('an unknown command is one line on stderr and exit 1', () => {
    const r = runCli(['frobnicate'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    noStack(r.stderr);
  });

  it('a bad option is an error with usage, exit 1, no stack trace', () => {
    const r = runCli(['check', '--bogus'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('engram check: unknown option: --bogus');
    noStack(r.stderr);
  });

  it('command help works', () => {
    const r = runCli(['configure', '--help'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: engram configure');
    expect(r.stdout).toContain('review_after_days');
  });
});

describe('engram configure', () => {
  it('shows every key with its source before anything is set', () => {
    const r = runCli(['configure'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/backend\s+claude\s+default/);
    expect(r.stdout).toMatch(/review_after_days\s+28\s+default/);
    expect(r.stdout).toContain('not created yet');
    expect(r.stdout).toContain('engram configure vault_path');
  });

  it('sets a key with validation and reports it from the config file', () => {
    const set = runCli(['configure', 'recall.prompt_items', '7'], { env });
    expect(set.code).toBe(0);
    const file = JSON.parse(fs.readFileSync(path.join(tmp, 'state', 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(file).toEqual({ version: 1, recall: { prompt_items: 7 } });
    const get = runCli(['configure', 'recall.prompt_items'], { env });
    expect(get.stdout.trim()).toBe('recall.prompt_items = 7 (config file)');
  });

  it('stores the vault as an absolute path and refuses one that does not exist', () => {
    const ok = runCli(['configure', 'vault_path', 'Vault'], { env, cwd: tmp });
    expect(ok.code).toBe(0);
    const j = JSON.parse(runCli(['configure', 'vault_path', '--json'], { env }).stdout) as { value: string; source: string };
    expect(j).toMatchObject({ value: path.join(tmp, 'Vault'), source: 'config file' });
    const bad = runCli(['configure', 'vault_path', 'Nope'], { env, cwd: tmp });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('vault path does not exist');
  });

  it('stores other paths as absolute paths too', () => {
    expect(runCli(['configure', 'embedding.model_path', 'models/bge'], { env, cwd: tmp }).code).toBe(0);
    expect(runCli(['configure', 'embedding.model_path'], { env }).stdout.trim()).toBe(`embedding.model_path = ${path.join(tmp, 'models', 'bge')} (config file)`);
    expect(runCli(['configure', 'embedding.model_path', '--unset'], { env }).code).toBe(0);
  });

  it('shows an environment override as the source', () => {
    const r = runCli(['configure', '--json'], { env: { ...env, ENGRAM_BACKEND: 'rules' } });
    const j = JSON.parse(r.stdout) as { entries: { key: string; value: unknown; source: string; env?: string }[] };
    expect(j.entries.find((e) => e.key === 'backend')).toMatchObject({ value: 'rules', source: 'environment', env: 'ENGRAM_BACKEND' });
    expect(j.entries.find((e) => e.key === 'recall.prompt_items')).toMatchObject({ value: 7, source: 'config file' });
  });

  it('refuses an unknown key with the list of valid keys', () => {
    const r = runCli(['configure', 'colour', 'blue'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown configuration key "colour"');
    expect(r.stderr).toContain('valid keys: vault_path, backend');
    noStack(r.stderr);
  });

  it('refuses a wrong type and leaves the file alone', () => {
    const before = fs.readFileSync(path.join(tmp, 'state', 'config.json'), 'utf8');
    for (const [k, v] of [['review_after_days', 'soon'], ['backend', 'gpt'], ['hooks.inject', 'maybe']]) {
      const r = runCli(['configure', k, v], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${k} must be`);
      noStack(r.stderr);
    }
    expect(fs.readFileSync(path.join(tmp, 'state', 'config.json'), 'utf8')).toBe(before);
  });

  it('unsets a key', () => {
    expect(runCli(['configure', 'recall.prompt_items', '--unset'], { env }).code).toBe(0);
    expect(runCli(['configure', 'recall.prompt_items'], { env }).stdout.trim()).toBe('recall.prompt_items = 5 (default)');
  });

  it('refuses a config.json from a newer engram', () => {
    const home = path.join(tmp, 'newer');
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, 'config.json'), '{"version": 99}');
    const r = runCli(['configure'], { env: { ...env, ENGRAM_HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/format version 99, newer than this engram/);
  });
});

describe('engram check', () => {
  it('reports each invalid note as path:line: message, with totals, exit 0, writing nothing', () => {
    const before = snapshotTree(fixture);
    const r = runCli(['check', '--vault', fixture], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toContain('Templates/Daily template.md:3: a key is itself a map or list (an unfilled template such as {{date}}?)');
    expect(lines).toContain('unclosed.md:1: frontmatter opened with --- but never closed');
    expect(lines.filter((l) => /^[^:]+\.md:\d+: /.test(l))).toHaveLength(6);
    expect(lines.at(-1)).toMatch(/^28 notes checked in .*, 22 valid \(\d+ with frontmatter\), 6 with invalid frontmatter/);
    expect(snapshotTree(fixture)).toEqual(before);
  });

  it('--roundtrip finds no side effects in the synthetic vault and writes nothing', () => {
    const before = snapshotTree(fixture);
    const r = runCli(['check', '--roundtrip', '--json', '--vault', fixture], { env });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { notes: number; invalid: unknown[]; roundtrip: { edited: number; sideEffects: unknown[] } };
    expect(j.notes).toBe(28);
    expect(j.invalid).toHaveLength(6);
    expect(j.roundtrip).toEqual({ edited: 22, sideEffects: [] });
    expect(snapshotTree(fixture)).toEqual(before);
  });

  it('uses the configured vault, and says how to set one when there is none', () => {
    const none = runCli(['check'], { env: { ...env, ENGRAM_HOME: path.join(tmp, 'empty-state') }, cwd: tmp });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no vault configured');
    expect(none.stderr).toContain('engram configure vault_path');
    noStack(none.stderr);
    const viaEnv = runCli(['check'], { env: { ...env, ENGRAM_VAULT: fixture } });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout).toContain('28 notes checked');
  });

  it('reports a missing vault folder as one line', () => {
    const r = runCli(['check', '--vault', path.join(tmp, 'missing')], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('vault path does not exist');
    noStack(r.stderr);
  });
});
