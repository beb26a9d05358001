// Plugin install figures: what `claude plugin install engram@engram` costs. Claude Code copies the plugin folder
// (plugin/, its links to the sources followed) and runs `npm ci --ignore-scripts --workspaces=false --no-audit
// --no-fund` on its own runtime-only lock (docs/ARCHITECTURE.md "What the agents do"; it allows 60 s), then the first
// hook builds dist/ (plugin/bin/engram-plugin.mjs). This copies the plugin folder the same way to a temporary folder,
// runs that exact command, and reports the size of node_modules and the times. Uses the npm registry (or npm's cache
// when warm). tests/real/plugin.test.ts does the same install with the real Claude Code.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { repoRoot } from '../tests/helpers/shared.js';

export const PLUGIN_NPM_CI = ['ci', '--ignore-scripts', '--workspaces=false', '--no-audit', '--no-fund'];

function duMb(dir: string): number {
  const out = execFileSync('du', ['-sk', dir], { encoding: 'utf8' });
  return Number(out.split(/\s+/)[0]) / 1024;
}

export async function run(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-plugin-bench-'));
  try {
    const files = execFileSync('git', ['ls-files', '-z', 'plugin'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const f of files) {
      const src = path.join(repoRoot, f);
      if (!fs.existsSync(src)) continue;
      const dest = path.join(root, path.relative('plugin', f));
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      fs.cpSync(src, dest, { recursive: true, dereference: true });
    }
    let t = performance.now();
    const ci = spawnSync('npm', PLUGIN_NPM_CI, { cwd: root, encoding: 'utf8' });
    const ciMs = performance.now() - t;
    if (ci.status !== 0) throw new Error(`npm ci failed: ${ci.stderr.trim().split('\n').slice(-3).join(' ')}`);
    const packages = fs.readdirSync(path.join(root, 'node_modules')).flatMap((n) => (n.startsWith('@') ? fs.readdirSync(path.join(root, 'node_modules', n)).map((m) => `${n}/${m}`) : [n])).filter((n) => !n.startsWith('.'));
    console.log(`  load average during the run: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} on ${os.cpus().length} cores (wall times scale with it)`);
    console.log(`  npm ${PLUGIN_NPM_CI.join(' ')}: ${(ciMs / 1000).toFixed(1)} s, node_modules ${duMb(path.join(root, 'node_modules')).toFixed(0)} MB, ${packages.length} packages`);
    console.log(`  embedding runtime present: ${fs.existsSync(path.join(root, 'node_modules', '@huggingface', 'transformers')) ? 'yes' : 'no (arrives with `engram model pull`)'}`);
    const home = path.join(root, '.home');
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ENGRAM_HOME: path.join(home, '.engram'), ENGRAM_VAULT: '' };
    delete env.ENGRAM_NESTED;
    t = performance.now();
    const first = spawnSync(process.execPath, [path.join(root, 'bin', 'engram-plugin.mjs'), 'hook', 'SessionStart'], { env, input: '{}', encoding: 'utf8' });
    const firstMs = performance.now() - t;
    const version = spawnSync(process.execPath, [path.join(root, 'bin', 'engram-plugin.mjs'), '--version'], { env, encoding: 'utf8' });
    console.log(`  first hook (builds dist/ with the installed esbuild): ${firstMs.toFixed(0)} ms, exit ${first.status}; then \`--version\`: ${version.stdout.trim() || version.stderr.trim()}`);
    console.log(`  total on disk after first use: ${duMb(root).toFixed(0)} MB`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
