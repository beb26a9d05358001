// Runs the built `engram` CLI as a real process.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './shared.js';

export const cliPath = path.join(repoRoot, 'dist', 'engram.mjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeout?: number } = {}): CliResult {
  const spawnOpts: SpawnSyncOptions = {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: opts.timeout ?? 60_000,
  };
  const r = spawnSync(process.execPath, [cliPath, ...args], spawnOpts);
  return { code: r.status ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}
