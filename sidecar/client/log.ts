// Append-only log lines for clients (hooks must log errors without printing to stdout).
import fs from 'node:fs';
import path from 'node:path';
import { logsDir } from './paths.js';

export function appendLog(file: string, line: string, env: NodeJS.ProcessEnv = process.env): void {
  try {
    const dir = logsDir(env);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.appendFileSync(path.join(dir, file), `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
  } catch {
    // Logging must never break a hook.
  }
}
