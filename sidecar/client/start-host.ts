// Starts a detached host for a vault without waiting for it: a hook must never block on a daemon's start-up.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { logsDir } from './paths.js';

/** The script that runs `engram` (the bundle or the stable shim's target). */
export function engramEntry(): string {
  return process.env.ENGRAM_ENTRY ?? process.argv[1];
}

export function startHostDetached(vault: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const dir = logsDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const childEnv: NodeJS.ProcessEnv = { ...env, ENGRAM_DAEMON: '1' };
  delete childEnv.ENGRAM_NESTED;
  const child = spawn(process.execPath, [engramEntry(), 'serve', '--vault', vault], {
    detached: true,
    stdio: 'ignore',
    env: childEnv,
    cwd: path.dirname(engramEntry()),
    windowsHide: true,
  });
  child.unref();
  return child.pid;
}
