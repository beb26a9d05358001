// The host's log: $ENGRAM_HOME/logs/host-<vault key>.log (and stderr in --foreground), rotated by size (client/log.ts).
import fs from 'node:fs';
import path from 'node:path';
import { logsDir } from './paths.js';
import { appendLogLine } from './log.js';

export type Level = 'info' | 'warn' | 'error';
export type Logger = (level: Level, msg: string) => void;

export function hostLogger(key: string, foreground: boolean, env: NodeJS.ProcessEnv): { log: Logger; file: string } {
  const dir = logsDir(env);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // a full disk: lines are dropped until there is room
  }
  const file = path.join(dir, `host-${key}.log`);
  const log: Logger = (level, msg) => {
    const line = `${new Date().toISOString()} [${process.pid}] ${level} ${msg}`;
    // Rotated by size; a full disk must not kill the host.
    appendLogLine(file, line);
    if (foreground) process.stderr.write(`${line}\n`);
  };
  return { log, file };
}
