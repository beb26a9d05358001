#!/usr/bin/env node
// Prints the release notes of one version: its section of CHANGELOG.md (Keep a Changelog: `## [0.2.0] - 2026-12-01`
// up to the next `## `), without the heading. The release workflow (.github/workflows/release.yml) runs it on a tag.
//
//   node tools/release-notes.mjs <version> [--changelog <file>] [--check]
//
// `--check` also refuses a tag that is not the version in manifest.json and package.json, or that versions.json
// lacks (Obsidian's store reads those). Exits 1 with one line saying what to fix; never prints partial notes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The section of `version` in the changelog's text, trimmed, or an error saying what is missing. */
function releaseNotes(text, version) {
  const lines = text.split(/\r?\n/);
  const escaped = version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const heading = new RegExp(`^##\\s+\\[?v?${escaped}\\]?(?:\\s|$)`);
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) return { error: `CHANGELOG.md has no section for ${version}: add "## [${version}] - <date>" (move the Unreleased entries under it) before tagging` };
  let end = lines.findIndex((l, i) => i > start && /^##\s/.test(l));
  if (end < 0) end = lines.length;
  // Link references at the end of the file ([0.2.0]: https://…) belong to no section.
  const body = lines.slice(start + 1, end).filter((l) => !/^\[[^\]]+\]:\s*\S+/.test(l)).join('\n').trim();
  if (!body) return { error: `CHANGELOG.md's section for ${version} is empty: say what changed before tagging` };
  return { notes: `${body}\n` };
}

/** Problems that stop a release of `version` from this checkout (versions in manifest.json, package.json, versions.json). */
function versionProblems(root, version) {
  const read = (f) => JSON.parse(fs.readFileSync(path.join(root, f), 'utf8'));
  const problems = [];
  const manifest = read('manifest.json');
  if (manifest.version !== version) problems.push(`manifest.json says ${manifest.version}, the tag ${version}`);
  const pkg = read('package.json');
  if (pkg.version !== version) problems.push(`package.json says ${pkg.version}, the tag ${version}`);
  const versions = read('versions.json');
  if (!Object.hasOwn(versions, version)) problems.push(`versions.json has no entry for ${version}`);
  return problems;
}

function main(argv) {
  const args = [...argv];
  const check = args.includes('--check');
  const at = args.indexOf('--changelog');
  const changelog = at >= 0 ? args[at + 1] : 'CHANGELOG.md';
  const version = args.filter((a, i) => !a.startsWith('--') && (at < 0 || i !== at + 1))[0]?.replace(/^v/, '');
  if (!version) {
    process.stderr.write('usage: node tools/release-notes.mjs <version> [--changelog <file>] [--check]\n');
    return 2;
  }
  let text;
  try {
    text = fs.readFileSync(changelog, 'utf8');
  } catch (e) {
    process.stderr.write(`release-notes: cannot read ${changelog}: ${e.message}\n`);
    return 1;
  }
  const r = releaseNotes(text, version);
  if (r.error) {
    process.stderr.write(`release-notes: ${r.error}\n`);
    return 1;
  }
  if (check) {
    const problems = versionProblems(path.dirname(path.resolve(changelog)), version);
    if (problems.length) {
      process.stderr.write(`release-notes: not releasable as ${version}: ${problems.join('; ')} (run \`npm version ${version}\`)\n`);
      return 1;
    }
  }
  process.stdout.write(r.notes);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) process.exitCode = main(process.argv.slice(2));
