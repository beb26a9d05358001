// Engram's own state files under $ENGRAM_HOME (jobs, ledger, proposals, logs): the engine reaches them only
// through this port. Names are relative to $ENGRAM_HOME with `/` separators.

export interface StateStore {
  /** The file's text, or undefined when it does not exist. */
  read(name: string): Promise<string | undefined>;
  /** Replaces the file atomically (temp file, fsync, rename); creates folders. */
  write(name: string, text: string): Promise<void>;
  /** Appends one line (a newline is added). */
  append(name: string, line: string): Promise<void>;
  /** Removes the file; no error when it is absent. */
  remove(name: string): Promise<void>;
  /** File names (not paths) directly inside a folder; [] when it does not exist. */
  list(dir: string): Promise<string[]>;
  /**
   * Takes an exclusive lock (a file created only if absent; a lock whose owner died is taken over).
   * Resolves with the release function, or undefined when someone else holds it.
   */
  tryLock?(name: string): Promise<(() => Promise<void>) | undefined>;
}

/** A StateStore in memory, for tests and dry runs. */
export class MemoryStateStore implements StateStore {
  readonly files = new Map<string, string>();

  read(name: string): Promise<string | undefined> {
    return Promise.resolve(this.files.get(name));
  }

  write(name: string, text: string): Promise<void> {
    this.files.set(name, text);
    return Promise.resolve();
  }

  append(name: string, line: string): Promise<void> {
    this.files.set(name, `${this.files.get(name) ?? ''}${line}\n`);
    return Promise.resolve();
  }

  remove(name: string): Promise<void> {
    this.files.delete(name);
    return Promise.resolve();
  }

  tryLock(name: string): Promise<(() => Promise<void>) | undefined> {
    if (this.files.has(name)) return Promise.resolve(undefined);
    this.files.set(name, 'locked');
    return Promise.resolve(() => {
      this.files.delete(name);
      return Promise.resolve();
    });
  }

  list(dir: string): Promise<string[]> {
    const prefix = dir.endsWith('/') ? dir : `${dir}/`;
    const out: string[] = [];
    for (const name of this.files.keys()) {
      if (name.startsWith(prefix) && !name.slice(prefix.length).includes('/')) out.push(name.slice(prefix.length));
    }
    return Promise.resolve(out.sort());
  }
}

/**
 * The text of an append-only log under `logs/` with its last rotation (`<name>.1`) before it: hosts rotate these
 * logs by size, and a reader that needs the last day (the budget) must not lose what was just rotated away.
 */
export async function readLog(store: StateStore, name: string): Promise<string> {
  const [older, current] = await Promise.all([store.read(`${name}.1`).catch(() => undefined), store.read(name)]);
  return `${older ?? ''}${current ?? ''}`;
}
