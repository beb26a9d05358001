#!/usr/bin/env node
// Entry point for the Claude Code plugin (`claude plugin install engram@engram`). Claude Code copies the plugin/
// folder (its links to the sources followed) and installs its runtime dependencies from plugin/package-lock.json, so
// the built CLI (dist/, not committed) may be missing on first use: build it once,
// under a lock so that parallel hooks do not build twice, then run it. Plain JavaScript with no dependencies.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist', 'engram.mjs');
const isHook = process.argv[2] === 'hook';

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const lock = path.join(root, '.engram-build.lock');

/** Waits while another process builds (dist/engram.mjs appears before the chunks it imports are written). */
function waitForBuild() {
  for (let i = 0; i < 600 && fs.existsSync(lock); i++) {
    // A lock older than a minute is left over from a killed build.
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > 60_000) return;
    } catch {
      return;
    }
    sleep(100);
  }
}

function build() {
  let fd;
  try {
    fd = fs.openSync(lock, 'wx');
  } catch {
    // Another hook is building: wait until it is done.
    waitForBuild();
    if (!fs.existsSync(lock)) return fs.existsSync(entry);
    fs.rmSync(lock, { force: true });
    fd = fs.openSync(lock, 'wx');
  }
  try {
    const r = spawnSync(process.execPath, ['esbuild.config.mjs', 'production', 'cli'], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) process.stderr.write(`engram: building the CLI failed: ${(r.stderr || r.stdout || '').split('\n')[0]}\n`);
    return r.status === 0 && fs.existsSync(entry);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(lock, { force: true });
  }
}

/** A hook never fails the session nor prints a trace: the problem goes to $ENGRAM_HOME/logs/hook.log. */
function hookProblem(message) {
  try {
    const logs = path.join(process.env.ENGRAM_HOME || path.join(os.homedir(), '.engram'), 'logs');
    fs.mkdirSync(logs, { recursive: true });
    fs.appendFileSync(path.join(logs, 'hook.log'), `${new Date().toISOString()} [plugin] ${message}\n`);
  } catch {
    // nowhere to log: still exit 0
  }
  process.exit(0);
}

if (isHook && process.env.ENGRAM_NESTED) process.exit(0);
if (fs.existsSync(lock)) waitForBuild();
if (!fs.existsSync(entry) && !build()) {
  // A hook never fails the session (never exit 2); the CLI and MCP server say how to fix it.
  if (isHook) process.exit(0);
  process.stderr.write(`engram: the CLI is not built in ${root}; run \`npm ci && node esbuild.config.mjs production cli\` there\n`);
  process.exit(1);
}
try {
  await import(pathToFileURL(entry).href);
} catch (e) {
  if (!isHook) throw e;
  hookProblem(`could not load the CLI from ${entry}: ${e instanceof Error ? e.message : String(e)}`);
}
