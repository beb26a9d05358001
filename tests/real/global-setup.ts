// Installs the pinned real Claude Code and Codex CLIs once per machine into the test CLI cache
// (tests/helpers/real-cli.ts). An install that fails (no registry) records why; the tests then skip with that reason.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REAL_CLIS, VERIFIED, cliFailureFile, cliInstallDir, realCli, type RealCliName } from '../helpers/real-cli.js';

function install(name: RealCliName): void {
  if (!('skip' in realCli(name))) return;
  const dir = cliInstallDir(name);
  const { pkg, version } = REAL_CLIS[name];
  // Install beside the final folder, then rename: two runs racing never see a half-installed CLI.
  const staging = `${dir}.staging-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  fs.writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'engram-test-cli', private: true }));
  try {
    // The binary comes in a platform package (an optional dependency); Claude Code's postinstall links it into bin/.
    // `--ignore-scripts=false`: under `npm test` npm hands the repository's .npmrc (ignore-scripts=true) to every
    // child as npm_config_ignore_scripts, and without its postinstall Claude Code has no binary.
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts=false', `${pkg}@${version}`],
      { cwd: staging, stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 },
    );
    // An install counts only once its CLI answers --version (a half-installed CLI would fail every test instead).
    const bin = path.join(staging, 'node_modules', '.bin', REAL_CLIS[name].bin);
    execFileSync(bin, ['--version'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
    fs.writeFileSync(path.join(staging, VERIFIED), `${version}\n`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(staging, dir);
    process.stderr.write(`real-cli: installed ${pkg}@${version} into ${dir}\n`);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const why = err instanceof Error ? err.message : String(err);
    fs.writeFileSync(cliFailureFile(name), `npm install ${pkg}@${version} failed: ${why}\n`);
    process.stderr.write(`real-cli: could not install ${pkg}@${version}; its tests skip\n`);
  }
}

export default function setup(): void {
  for (const name of Object.keys(REAL_CLIS) as RealCliName[]) install(name);
}
