// Temporary directories for tests (vaults, ENGRAM_HOME), removed afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function makeTempDir(prefix = 'engram-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  // A host or hook still finishing a write can refill a folder while it is removed: retry (ENOTEMPTY).
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

/** Every file below `root` (dot folders included), as slash-separated paths relative to it. */
export function listFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listFiles(root, p));
    else out.push(p);
  }
  return out;
}
