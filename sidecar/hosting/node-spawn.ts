// The SpawnPort of the Node host: runs a child process with piped stdio, feeds it stdin, and on timeout
// sends SIGTERM, then SIGKILL after a grace period (the pattern obsidian-copilot uses for its children).
import { spawn } from 'node:child_process';
import { EngramError, errorMessage } from '../../src/core/errors.js';
import type { SpawnPort, SpawnRequest, SpawnResult } from '../../src/core/ports.js';

export interface NodeSpawnOptions {
  /** Time between SIGTERM and SIGKILL after a timeout (default 3000 ms). */
  killGraceMs?: number;
  /** Output beyond this many characters per stream is dropped (default 16 MiB) so a runaway child cannot exhaust memory. */
  maxOutputChars?: number;
  /**
   * The environment the request's variables apply to (default process.env). `{}` makes the request's `env` the
   * child's whole environment: the claude backend's nested call runs in exactly the environment Engram built.
   */
  baseEnv?: NodeJS.ProcessEnv;
}

/** process.env with the request's variables applied; `undefined` removes a variable (e.g. to un-nest `claude`). */
export function childEnv(base: NodeJS.ProcessEnv, overrides: Record<string, string | undefined> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const [k, v] of Object.entries(overrides ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export class NodeSpawn implements SpawnPort {
  private readonly killGraceMs: number;
  private readonly maxOutputChars: number;
  private readonly baseEnv: NodeJS.ProcessEnv | undefined;

  constructor(options: NodeSpawnOptions = {}) {
    this.baseEnv = options.baseEnv;
    this.killGraceMs = options.killGraceMs ?? 3000;
    this.maxOutputChars = options.maxOutputChars ?? 16 * 1024 * 1024;
  }

  run(request: SpawnRequest): Promise<SpawnResult> {
    return new Promise((resolve, reject) => {
      let child;
      try {
        child = spawn(request.command, request.args, {
          cwd: request.cwd,
          env: childEnv(this.baseEnv ?? process.env, request.env),
          stdio: ['pipe', 'pipe', 'pipe'],
          windowsHide: true,
        });
      } catch (e) {
        reject(new EngramError('io', `cannot run ${request.command}: ${errorMessage(e)}`));
        return;
      }
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      let settled = false;
      let termTimer: NodeJS.Timeout | undefined;
      let killTimer: NodeJS.Timeout | undefined;
      const cap = this.maxOutputChars;
      child.stdout.setEncoding('utf8');
      child.stderr.setEncoding('utf8');
      child.stdout.on('data', (d: string) => {
        if (stdout.length < cap) stdout += d.slice(0, cap - stdout.length);
      });
      child.stderr.on('data', (d: string) => {
        if (stderr.length < cap) stderr += d.slice(0, cap - stderr.length);
      });
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(termTimer);
        clearTimeout(killTimer);
        fn();
      };
      child.on('error', (e: NodeJS.ErrnoException) => {
        finish(() => {
          if (e.code === 'ENOENT') reject(new EngramError('not-found', `command not found: ${request.command}`, 'check that it is installed and on PATH'));
          else reject(new EngramError('io', `cannot run ${request.command}: ${e.message}`));
        });
      });
      child.on('close', (exitCode, signal) => {
        finish(() => resolve({ exitCode, signal, stdout, stderr, timedOut }));
      });
      if (request.timeoutMs !== undefined && request.timeoutMs > 0) {
        termTimer = setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
          killTimer = setTimeout(() => child.kill('SIGKILL'), this.killGraceMs);
        }, request.timeoutMs);
      }
      // A child that exits without reading its stdin makes the write fail with EPIPE: that is not our error.
      child.stdin.on('error', () => undefined);
      child.stdin.end(request.stdin ?? '');
    });
  }
}
