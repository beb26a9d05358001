// `npm run build` (and the test suite's build) replaces dist/ under a running host. The host loads every module it
// may need at start (so a job in flight never reads dist/ again), and when the build it runs from changes it shuts
// down cleanly; the next hook starts a host from the new build.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What identifies a build: the entry's bytes and the names of its chunks (esbuild names chunks by content hash). */
export function buildFingerprint(entry: string): string | undefined {
  try {
    const h = crypto.createHash('sha256').update(fs.readFileSync(entry));
    const chunks = path.join(path.dirname(entry), 'chunks');
    for (const name of fs.existsSync(chunks) ? fs.readdirSync(chunks).sort() : []) h.update(`\0${name}`);
    return h.digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * Calls `onChange` once when the build at `entry` is replaced by a different, complete one (the entry is back and its
 * fingerprint differs). While dist/ is missing or half-written, nothing happens. Returns a function that stops it.
 */
export function watchBuild(entry: string, onChange: () => void, intervalMs = 2000): () => void {
  const start = buildFingerprint(entry);
  if (!start) return () => {};
  let fired = false;
  const check = () => {
    if (fired) return;
    const now = buildFingerprint(entry);
    if (now && now !== start) {
      fired = true;
      fs.unwatchFile(entry, check);
      onChange();
    }
  };
  fs.watchFile(entry, { interval: intervalMs, persistent: false }, check);
  return () => fs.unwatchFile(entry, check);
}
