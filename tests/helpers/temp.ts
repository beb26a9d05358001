// Temporary directories for tests (vaults, ENGRAM_HOME), removed afterwards: by the test, else after its file
// whatever happened (tests/helpers/leftovers.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTeardown, removeFolder, removeFolderSync } from './leftovers.js';

const untrack = new Map<string, () => void>();

export function makeTempDir(prefix = 'engram-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  untrack.set(dir, onTeardown(`temp folder ${dir}`, () => removeFolder(dir), () => removeFolderSync(dir)));
  return dir;
}

export function removeDir(dir: string): void {
  // A host or hook still finishing a write can refill a folder while it is removed: retry (ENOTEMPTY).
  removeFolderSync(dir);
  if (!untrack.has(dir)) return;
  untrack.get(dir)!();
  // Something still running when the test ended (a late write) can make the folder again: after the file it is
  // removed again, and named, since that is a test that ended before its work did.
  untrack.set(dir, onTeardown(`temp folder ${dir}`, () => removeAgain(dir), () => removeFolderSync(dir)));
}

function removeAgain(dir: string): Promise<void> {
  if (!fs.existsSync(dir)) return Promise.resolve();
  console.warn(`engram tests: ${dir} was made again after its test removed it: ${listFiles(dir).slice(0, 5).join(', ')}`);
  return removeFolder(dir);
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
