// The host's log: $ENGRAM_HOME/logs/host-<vault key>.log (and stderr in --foreground).
import fs from 'node:fs';
import path from 'node:path';
import { logsDir } from '../client/paths.js';

export type Level = 'info' | 'warn' | 'error';
export type Logger = (level: Level, msg: string) => void;

export function hostLogger(key: string, foreground: boolean, env: NodeJS.ProcessEnv = process.env): { log: Logger; file: string } {
  const dir = logsDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `host-${key}.log`);
  const log: Logger = (level, msg) => {
    const line = `${new Date().toISOString()} [${process.pid}] ${level} ${msg}\n`;
    try {
      fs.appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // a full disk must not kill the host
    }
    if (foreground) process.stderr.write(line);
  };
  return { log, file };
}
