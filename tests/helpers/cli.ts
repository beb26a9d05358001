// Runs the built `engram` CLI as a real process.
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './shared.js';

export const cliPath = path.join(repoRoot, 'dist', 'engram.mjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI. `entry`: the script Node runs instead (a wrapper that imports the CLI): a host the command starts
 * runs that same script, as it runs the shim's target for a user.
 */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeout?: number; entry?: string } = {}): CliResult {
  const spawnOpts: SpawnSyncOptions = {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: opts.timeout ?? 60_000,
  };
  const r = spawnSync(process.execPath, [opts.entry ?? cliPath, ...args], spawnOpts);
  return { code: r.status ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

/**
 * A script that runs the CLI and is gone by the time the CLI would start a host with it: what a user has when the
 * checkout a shim points at was moved or is being rebuilt.
 */
export function vanishingEntry(dir: string): string {
  const entry = path.join(dir, `vanishing-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(entry, `import fs from 'node:fs';\nimport { fileURLToPath } from 'node:url';\nfs.rmSync(fileURLToPath(import.meta.url), { force: true });\nawait import(${JSON.stringify(new URL(`file://${cliPath}`).href)});\n`);
  return entry;
}

/** `runCli` without blocking this process: for tests whose server (a PGlite database, a fake model) runs in it. */
export function runCliAsync(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeout?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: opts.cwd ?? repoRoot, env: { ...process.env, ...opts.env }, stdio: 'pipe' });
    // A child that exits without reading its input must not fail the test with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeout ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
