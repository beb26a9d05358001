#!/usr/bin/env node
// Runs the release workflow's own steps (.github/workflows/release.yml) on this machine, from a clean clone of HEAD,
// as GitHub would on a tag: each `run:` step in order, in bash with `set -eo pipefail`, with GITHUB_REF_NAME set to
// the version and RUNNER_TEMP to a fresh folder. What only GitHub has is stood in for and said so: `actions/checkout`
// is the clone, `actions/setup-node` the Node on PATH, the attestation is skipped, and the Publish step's `gh` is
// replaced by a function that prints what it would upload and checks those files exist.
//
//   node tools/release-rehearsal.mjs [--version x.y.z] [--changelog-as-released] [--keep]
//
// `--changelog-as-released` renames the clone's `## [Unreleased]` heading to the version (what a maintainer does
// before tagging), so an unreleased checkout can be rehearsed. Exits with the first failing step's status.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function options(argv) {
  const at = argv.indexOf('--version');
  const version = at >= 0 ? argv[at + 1] : JSON.parse(fs.readFileSync(path.join(root, 'manifest.json'), 'utf8')).version;
  return { version, released: argv.includes('--changelog-as-released'), keep: argv.includes('--keep') };
}

function sh(script, cwd, env) {
  return spawnSync('bash', ['-c', `set -eo pipefail\n${script}`], { cwd, env, stdio: 'inherit' }).status ?? 1;
}

/** A stand-in for `gh release create`: names the release and checks each file it would upload. */
const GH_STANDIN = `gh() {
  if [ "$1 $2" != "release create" ]; then echo "gh $*: not available in a rehearsal" >&2; return 1; fi
  shift 2; echo "rehearsal: would publish release $1"; shift
  while [ $# -gt 0 ]; do
    case "$1" in --title|--notes-file) echo "  $1 $2"; [ "$1" != --notes-file ] || test -s "$2"; shift 2;;
      *) test -s "$1" || { echo "missing release file: $1" >&2; return 1; }; echo "  file $1 ($(wc -c < "$1") bytes)"; shift;; esac
  done
}
`;

function stepName(step) {
  return step.name ?? step.uses ?? String(step.run).split('\n')[0];
}

function main() {
  const { version, released, keep } = options(process.argv.slice(2));
  const workflow = parse(fs.readFileSync(path.join(root, '.github/workflows/release.yml'), 'utf8'));
  const steps = workflow.jobs.release.steps;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-release-'));
  const checkout = path.join(work, 'checkout');
  const runnerTemp = path.join(work, 'runner-temp');
  fs.mkdirSync(runnerTemp);
  console.log(`release rehearsal of ${version} in ${work} (node ${process.version}; the workflow pins its own)`);
  let status = sh(`git clone -q "${root}" "${checkout}"`, work, process.env);
  if (status === 0 && released) {
    const file = path.join(checkout, 'CHANGELOG.md');
    const text = fs.readFileSync(file, 'utf8').replace(/^## \[Unreleased\]/m, `## [${version}] - ${new Date().toISOString().slice(0, 10)}`);
    fs.writeFileSync(file, text);
  }
  const env = { ...process.env, GITHUB_REF_NAME: version, RUNNER_TEMP: runnerTemp, CI: 'true' };
  for (const step of steps) {
    if (status !== 0) break;
    if (step.uses) {
      console.log(`\n== ${stepName(step)}: ${step.uses.startsWith('actions/checkout') ? 'the clone above' : 'GitHub only, skipped'}`);
      continue;
    }
    console.log(`\n== ${stepName(step)}`);
    const run = String(step.run).replaceAll('${{ github.ref_name }}', version);
    status = sh(`${GH_STANDIN}${run}`, checkout, env);
    if (status !== 0) console.error(`\nrelease rehearsal: step "${stepName(step)}" failed (exit ${status})`);
  }
  if (status === 0) console.log(`\nrelease rehearsal: every step GitHub would run here passed for ${version}`);
  if (!keep) fs.rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
  return status;
}

process.exitCode = main();
