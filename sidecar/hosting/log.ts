// Engram's one log writer: append-only lines under $ENGRAM_HOME/logs/, rotated by size (`x.log` → `x.log.1` … `.3`).
// Hooks must log errors without printing to stdout; the host logs through the same function.
import fs from 'node:fs';
import path from 'node:path';
import { logsDir } from './paths.js';

/** A log reaching this size is rotated before the next line. */
export const LOG_MAX_BYTES = 5 * 1024 * 1024;
/** Rotated generations kept: at most (1 + LOG_KEEP) × LOG_MAX_BYTES per log. */
export const LOG_KEEP = 3;

/** Renames x.log.2 → x.log.3, x.log.1 → x.log.2, x.log → x.log.1 (the oldest falls off). */
function rotate(file: string): void {
  for (let i = LOG_KEEP - 1; i >= 1; i--) {
    try {
      fs.renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    } catch {
      // that generation does not exist yet
    }
  }
  try {
    fs.renameSync(file, `${file}.1`);
  } catch {
    // another process rotated it a moment ago
  }
}

/** Rotates a log that `bytes` more would take past LOG_MAX_BYTES (a log that is empty is never rotated). */
export function rotateIfFull(file: string, bytes: number): void {
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  if (size + bytes > LOG_MAX_BYTES && size > 0) rotate(file);
}

/** Appends one line (newline added) to a log file, rotating it first when it is full. False when it could not. */
export function appendLogLine(file: string, line: string): boolean {
  try {
    rotateIfFull(file, Buffer.byteLength(line) + 1);
    fs.appendFileSync(file, `${line}\n`, { mode: 0o600 });
    return true;
  } catch {
    // Logging must never break a hook or the host (a full disk).
    return false;
  }
}

export function appendLog(file: string, line: string, env: NodeJS.ProcessEnv): boolean {
  try {
    const dir = logsDir(env);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return appendLogLine(path.join(dir, file), `${new Date().toISOString()} ${line}`);
  } catch {
    return false;
  }
}
