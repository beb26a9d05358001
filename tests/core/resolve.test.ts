// Vault and project resolution (docs/files.md), the pure rules and the on-disk lookups.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseLocalSettings, projectFromRecords, repositoryFolderOf, resolveProject, resolveVault, parseGitFile } from '../../src/core/resolve.js';
import { findLocalSettings, gitTopLevel, projectFor, requireVault, setSessionProject } from '../../sidecar/hosting/resolve.js';
import type { SessionMeta } from '../../src/core/transcript/types.js';
import { hostFacts } from '../../sidecar/hosting/facts.js';
import { vaultKey } from '../../src/core/state.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { configOf } from '../helpers/config-reader.js';

const base = { env: {}, cwd: '/work/proj/sub', homeDir: '/home/ada', platform: 'linux' };
const local = parseLocalSettings('{"vault": "../Vault", "project": "engram"}', '/work/proj/.claude/engram.local.json', '/work/proj');

describe('resolveVault order: --vault > ENGRAM_VAULT > engram.local.json > config', () => {
  it('takes each source only when the earlier ones are absent', () => {
    const all = { ...base, option: 'v1', env: { ENGRAM_VAULT: '/v2' }, local, configVaultPath: '~/v4' };
    expect(resolveVault(all)).toEqual({ path: '/work/proj/sub/v1', source: 'option', origin: '--vault' });
    expect(resolveVault({ ...all, option: undefined })).toEqual({ path: '/v2', source: 'environment', origin: 'ENGRAM_VAULT' });
    expect(resolveVault({ ...all, option: undefined, env: {} })).toEqual({ path: '/work/Vault', source: 'local settings', origin: '/work/proj/.claude/engram.local.json' });
    expect(resolveVault({ ...all, option: undefined, env: {}, local: null })).toEqual({ path: '/home/ada/v4', source: 'config', origin: 'config.json vault_path' });
    expect(resolveVault({ ...base })).toBeNull();
  });
  it('resolves Windows paths with Windows rules', () => {
    const r = resolveVault({ ...base, platform: 'win32', cwd: 'C:\\work', homeDir: 'C:\\Users\\Ada', option: 'Vault' });
    expect(r?.path).toBe('C:\\work\\Vault');
  });
});

describe('engram.local.json', () => {
  it('reads vault, project and capture', () => {
    const s = parseLocalSettings('{"capture": false}', 'f', '/p');
    expect(s).toEqual({ file: 'f', projectDir: '/p', capture: false });
  });
  it.each([['{'], ['[]'], ['{"capture": "no"}'], ['{"project": 3}'], ['{"version": 2}']])('refuses %s', (text) => {
    expect(() => parseLocalSettings(text, 'f', '/p')).toThrow();
  });
});

describe('resolveProject', () => {
  it('prefers the local settings, then git, then the folder name', () => {
    expect(resolveProject({ local, gitTopLevel: '/work/repo', cwd: '/x/y', platform: 'linux' })).toEqual({ name: 'engram', source: 'local settings', capture: true });
    expect(resolveProject({ gitTopLevel: '/work/repo', cwd: '/x/y', platform: 'linux' })).toEqual({ name: 'repo', source: 'git', capture: true });
    expect(resolveProject({ cwd: '/x/y', platform: 'linux' })).toEqual({ name: 'y', source: 'folder', capture: true });
    const off = parseLocalSettings('{"capture": false}', 'f', '/p');
    expect(resolveProject({ local: off, gitTopLevel: '/work/repo', cwd: '/x', platform: 'linux' })).toEqual({ name: 'repo', source: 'git', capture: false });
  });
  it('names linked worktrees after their repository', () => {
    expect(parseGitFile('gitdir: /work/engram/.git/worktrees/feature\n')).toBe('/work/engram/.git/worktrees/feature');
    expect(repositoryFolderOf('/work/engram/.git/worktrees/feature', '../..\n', 'linux')).toBe('/work/engram');
    expect(repositoryFolderOf('/repos/engram.git/worktrees/wt', '../..', 'linux')).toBe('/repos/engram');
    expect(repositoryFolderOf('C:\\src\\engram\\.git\\worktrees\\wt', '../..', 'win32')).toBe('C:\\src\\engram');
  });
});

describe('on-disk lookups', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(removeDir));
  const tmp = () => {
    const d = fs.realpathSync(makeTempDir());
    dirs.push(d);
    return d;
  };

  it('finds the nearest engram.local.json above the cwd', () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'proj/.claude'), { recursive: true });
    fs.mkdirSync(path.join(root, 'proj/a/b'), { recursive: true });
    fs.writeFileSync(path.join(root, 'proj/.claude/engram.local.json'), '{"project":"p1"}');
    expect(findLocalSettings(path.join(root, 'proj/a/b'))?.project).toBe('p1');
    expect(findLocalSettings(path.join(root, 'proj/a/b'))?.projectDir).toBe(path.join(root, 'proj'));
  });

  it('finds the git top level, shared by a linked worktree, and a submodule by its own name', () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'main/.git/worktrees/wt'), { recursive: true });
    fs.mkdirSync(path.join(root, 'main/src/deep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'main/.git/worktrees/wt/commondir'), '../..\n');
    fs.mkdirSync(path.join(root, 'wt/src'), { recursive: true });
    fs.writeFileSync(path.join(root, 'wt/.git'), `gitdir: ${path.join(root, 'main/.git/worktrees/wt')}\n`);
    fs.mkdirSync(path.join(root, 'main/.git/modules/sub'), { recursive: true });
    fs.mkdirSync(path.join(root, 'main/sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'main/sub/.git'), 'gitdir: ../.git/modules/sub\n');
    expect(gitTopLevel(path.join(root, 'main/src/deep'))).toBe(path.join(root, 'main'));
    expect(gitTopLevel(path.join(root, 'wt/src'))).toBe(path.join(root, 'main'));
    expect(projectFor(path.join(root, 'wt/src'))).toEqual({ name: 'main', source: 'git', capture: true });
    expect(gitTopLevel(path.join(root, 'main/sub'))).toBe(path.join(root, 'main/sub'));
  });

  it('requires an existing vault folder and computes its key from the real path', () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'Vault'));
    fs.symlinkSync(path.join(root, 'Vault'), path.join(root, 'link'));
    const facts = hostFacts({ HOME: root, ENGRAM_HOME: path.join(root, 'home') });
    const v = requireVault(facts, root, 'link', configOf(facts.env));
    expect(v.realPath).toBe(path.join(root, 'Vault'));
    expect(v.key).toBe(vaultKey(path.join(root, 'Vault'), process.platform));
    expect(v.state.dir).toBe(path.join(root, 'home', 'vaults', v.key));
    expect(() => requireVault(facts, root, 'missing', configOf(facts.env))).toThrow(/vault path does not exist/);
    expect(() => requireVault(facts, root, undefined, configOf(facts.env))).toThrow(/no vault configured/);
  });

  it('does not read config.json when --vault or ENGRAM_VAULT names the vault', () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'Vault'));
    fs.mkdirSync(path.join(root, 'home'));
    fs.writeFileSync(path.join(root, 'home', 'config.json'), '{ broken');
    const facts = hostFacts({ HOME: root, ENGRAM_HOME: path.join(root, 'home') });
    expect(requireVault(facts, root, 'Vault', configOf(facts.env)).realPath).toBe(path.join(root, 'Vault'));
    expect(requireVault(hostFacts({ ...facts.env, ENGRAM_VAULT: path.join(root, 'Vault') }), root, undefined, configOf(facts.env)).source).toBe('environment');
    expect(() => requireVault(facts, root, undefined, configOf(facts.env))).toThrow(/not valid JSON/);
  });
});

describe('projectFromRecords: a session whose folder is gone', () => {
  const p = (cwd: string, more: Partial<Parameters<typeof projectFromRecords>[0]> = {}) => projectFromRecords({ cwd, platform: 'linux', ...more });
  it('reads the repository from worktree layouts, as no guess', () => {
    expect(p('/Users/alex/workspace/cli/.worktrees/3')).toEqual({ name: 'cli' });
    expect(p('/Users/alex/workspace/cli/.worktrees/alex/code-dup-tooling')).toEqual({ name: 'cli' });
    expect(p('/home/me/app/.claude/worktrees/fix-login')).toEqual({ name: 'app' });
    expect(p('/home/USER/projects/spotter-worktrees/spotter-gqc')).toEqual({ name: 'spotter' });
  });
  it('takes the project beside a branch-named folder or another folder the session ran in, and says it is a guess', () => {
    const other = p('/Users/v/wks/soph-multi-session', { gitBranch: 'soph/multi-session', otherCwds: ['/Users/soph/Work/entire/devenv/cli'] });
    expect(other.name).toBe('cli');
    expect(other.guess).toMatch(/no longer exists; it also ran in/);
    expect(p('/Users/paul/src/entireio/cli-completion-updater', { known: ['/Users/paul/src/entireio/cli', '/Users/paul/src/other'] }).name).toBe('cli');
    expect(p('/Users/v/wks/feature-x', { gitBranch: 'feature-x', known: ['/Users/v/wks/cli'] }).name).toBe('cli');
  });
  it('falls back to the folder name, as a guess', () => {
    const r = p('/Users/paul/src/entireio/cli');
    expect(r.name).toBe('cli');
    expect(r.guess).toMatch(/named after the folder/);
  });
});

describe('setSessionProject: the host side', () => {
  it('resolves a gone worktree through the transcript, and keeps why a fallback is a guess with the home as ~', () => {
    const meta: SessionMeta = { sessionId: 's', agent: 'claude-code', cwd: '/nonexistent-engram-test/alex/workspace/cli/.worktrees/3' };
    setSessionProject(meta, '/nonexistent-engram-test/alex');
    expect([meta.project, meta.projectGuess]).toEqual(['cli', undefined]);
    const gone: SessionMeta = { sessionId: 's', agent: 'claude-code', cwd: '/nonexistent-engram-test/alex/old-app' };
    setSessionProject(gone, '/nonexistent-engram-test/alex');
    expect(gone.project).toBe('old-app');
    expect(gone.projectGuess).toBe("the session's folder ~/old-app no longer exists; named after the folder");
  });
});

describe('setSessionProject: repositories still on disk beside a gone checkout', () => {
  let dir = '';
  afterEach(() => {
    if (dir) removeDir(dir);
    dir = '';
  });
  it('names a gone `cli-completion-updater` or branch-named folder after the repository beside it', () => {
    dir = makeTempDir('engram-gone-');
    fs.mkdirSync(path.join(dir, 'src', 'cli', '.git'), { recursive: true });
    const named: SessionMeta = { sessionId: 's', agent: 'claude-code', cwd: path.join(dir, 'src', 'cli-completion-updater') };
    setSessionProject(named, '/nonexistent-home');
    expect(named.project).toBe('cli');
    const branch: SessionMeta = { sessionId: 's', agent: 'claude-code', cwd: path.join(dir, 'src', 'soph-multi-session'), gitBranch: 'soph/multi-session' };
    setSessionProject(branch, '/nonexistent-home');
    expect(branch.project).toBe('cli');
    expect(branch.projectGuess).toMatch(/named after branch soph\/multi-session/);
    fs.mkdirSync(path.join(dir, 'src', 'web', '.git'), { recursive: true });
    const twoBeside: SessionMeta = { sessionId: 's', agent: 'claude-code', cwd: path.join(dir, 'src', 'feature-x'), gitBranch: 'feature-x' };
    setSessionProject(twoBeside, '/nonexistent-home');
    expect(twoBeside.project).toBe('feature-x');
  });
});
