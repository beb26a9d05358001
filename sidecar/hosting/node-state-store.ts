// The StateStore of the Node host: files under $ENGRAM_HOME, replaced atomically (node/atomic-write.ts).
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { StateStore } from '../../src/core/extract/state-store.js';
import { EngramError, errorMessage } from '../../src/core/errors.js';
import { processAlive } from './election.js';
import { isTempName } from './temp-files.js';
import { atomicWriteFile } from './atomic-write.js';
import { rotateIfFull } from './log.js';

export class NodeStateStore implements StateStore {
  constructor(
    readonly root: string,
    /** Called between writing the temp file and renaming it (fault injection: `ENGRAM_FAULT=before-rename`). */
    private readonly beforeRename?: () => void,
  ) {}

  private abs(name: string): string {
    if (name.split('/').includes('..') || path.isAbsolute(name)) throw new EngramError('usage', `not a state file name: ${name}`);
    return path.join(this.root, ...name.split('/'));
  }

  async read(name: string): Promise<string | undefined> {
    try {
      return await fsp.readFile(this.abs(name), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new EngramError('io', `cannot read ${this.abs(name)}: ${errorMessage(e)}`);
    }
  }

  async write(name: string, text: string): Promise<void> {
    await atomicWriteFile(this.abs(name), text, { mode: 0o600, beforeRename: this.beforeRename });
  }

  async append(name: string, line: string): Promise<void> {
    const target = this.abs(name);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    // The JSONL logs (llm-calls, extract-runs) rotate like every log; readers read the last rotation too.
    if (name.startsWith('logs/')) rotateIfFull(target, Buffer.byteLength(line) + 1);
    await fsp.appendFile(target, `${line}\n`, { encoding: 'utf8', mode: 0o600 });
  }

  async remove(name: string): Promise<void> {
    await fsp.rm(this.abs(name), { force: true });
  }

  async tryLock(name: string): Promise<(() => Promise<void>) | undefined> {
    const file = this.abs(name);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const h = await fsp.open(file, 'wx', 0o600);
        await h.writeFile(`${process.pid}\n`);
        await h.close();
        return () => fsp.rm(file, { force: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const text = await fsp.readFile(file, 'utf8').catch(() => null);
        if (text === null) continue; // released meanwhile: try again
        const pid = Number(text.trim());
        if (!(pid > 0)) {
          // No pid yet: its taker is between creating the file and writing its pid (unless that was long ago, a crash).
          const age = Date.now() - ((await fsp.stat(file).catch(() => null))?.mtimeMs ?? 0);
          if (age < 10_000) return undefined;
        } else if (processAlive(pid)) return undefined;
        // The holder died (a crash): the lock is stale.
        await fsp.rm(file, { force: true });
      }
    }
    return undefined;
  }

  async list(dir: string): Promise<string[]> {
    try {
      return (await fsp.readdir(this.abs(dir))).filter((n) => !isTempName(n) && !n.endsWith('.tmp')).sort();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
  }
}
