// The Node state store's lock (the session and ledger locks): a lock whose taker has not written its pid yet is held,
// not stale (two processes once both "took" it in that moment and a ledger update was lost); a dead holder's is stale.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeStateStore } from '../../sidecar/hosting/node-state-store.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function store(): { home: string; s: NodeStateStore } {
  const home = makeTempDir('engram-lock-');
  dirs.push(home);
  return { home, s: new NodeStateStore(home) };
}

describe('NodeStateStore.tryLock', () => {
  it('one holder at a time; released, it can be taken again', async () => {
    const { s } = store();
    const release = await s.tryLock('v/ledger.lock');
    expect(release).toBeDefined();
    expect(await s.tryLock('v/ledger.lock')).toBeUndefined();
    await release!();
    expect(await s.tryLock('v/ledger.lock')).toBeDefined();
  });

  it('a lock file without a pid yet is held (its taker is writing it); one left empty long ago is stale', async () => {
    const { home, s } = store();
    const file = path.join(home, 'v', 'ledger.lock');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    expect(await s.tryLock('v/ledger.lock')).toBeUndefined();
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    expect(await s.tryLock('v/ledger.lock')).toBeDefined();
  });

  it("a dead holder's lock is stale and taken", async () => {
    const { home, s } = store();
    const file = path.join(home, 'v', 'session.lock');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // A pid that cannot be alive (above the Linux maximum).
    fs.writeFileSync(file, '4194305\n');
    expect(await s.tryLock('v/session.lock')).toBeDefined();
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
  });
});
