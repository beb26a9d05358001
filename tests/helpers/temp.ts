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
