// This machine as Engram knows it: a stable device id, made once and kept in $ENGRAM_HOME/device.json, and the
// device's name (short host name + the id's first digits), which names its change log in the vault and its lease.
// Two machines with the same host name still get two names; a home copied to another machine keeps its id but takes
// that machine's host name.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const DEVICE_FORMAT = 1;

export interface Device {
  id: string;
  /** `<short host name>-<first 6 digits of the id>`: the change log's file name and the lease's device. */
  name: string;
}

function shortHost(): string {
  return (os.hostname().split('.')[0] || 'device').replace(/[^A-Za-z0-9_-]/g, '-');
}

function readId(file: string): string | undefined {
  let data: { format?: number; id?: unknown };
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8')) as { format?: number; id?: unknown };
  } catch {
    // Missing, damaged, or a state folder that cannot be read: made (or derived) again.
    return undefined;
  }
  if (typeof data.format === 'number' && data.format > DEVICE_FORMAT) throw new Error(`${file} has format ${data.format}, newer than this Engram (${DEVICE_FORMAT}); update Engram`);
  return typeof data.id === 'string' && /^[0-9a-f]{32}$/.test(data.id) ? data.id : undefined;
}

function makeId(file: string, home: string): string {
  const made = crypto.randomBytes(16).toString('hex');
  try {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, `${JSON.stringify({ format: DEVICE_FORMAT, id: made })}\n`, { flag: 'wx', mode: 0o600 });
      return made;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    // Made by another process just now, or damaged: a damaged file is replaced.
    const theirs = readId(file);
    if (theirs) return theirs;
    fs.writeFileSync(file, `${JSON.stringify({ format: DEVICE_FORMAT, id: made })}\n`, { mode: 0o600 });
    return made;
  } catch {
    // A state folder that cannot be written (full disk, read-only): an id from this machine and folder, the same on
    // every run until the file can be made.
    return crypto.createHash('sha256').update(`${os.hostname()}\0${path.resolve(home)}`).digest('hex').slice(0, 32);
  }
}

/** This device, its id made on first use (two processes making it at once agree: the file is created exclusively). */
export function thisDevice(home: string): Device {
  const file = path.join(home, 'device.json');
  const id = readId(file) ?? makeId(file, home);
  return { id, name: `${shortHost()}-${id.slice(0, 6)}` };
}
