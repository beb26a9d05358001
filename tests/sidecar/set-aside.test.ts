// spool/failed/: each set-aside event keeps its cause; it comes back when the cause is gone, after a growing wait
// otherwise, or at once with force (doctor --fix). Real files in a temp folder.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { vaultState, type VaultState } from '../../sidecar/hosting/paths.js';
import { classifyFailure, deferEntries, ensureStateDirs, failEntries, listSetAside, retryBackoffMs, retrySetAside, returnDeferred } from '../../sidecar/hosting/spool.js';

describe('set-aside events', () => {
  let root: string;
  let home: string;
  let state: VaultState;
  const entry = (name: string) => {
    const f = path.join(state.claimed, name);
    fs.writeFileSync(f, JSON.stringify({ format: 1, event: 'Stop', sessionId: name, spooledAt: new Date().toISOString(), payload: {} }));
    return f;
  };
  const inSpool = () => fs.readdirSync(state.spool).filter((n) => n.endsWith('.json'));

  beforeEach(() => {
    root = makeTempDir('engram-aside-');
    home = path.join(root, 'engram');
    fs.mkdirSync(path.join(root, 'vault'));
    state = vaultState(path.join(root, 'vault'), { ...process.env, ENGRAM_HOME: home });
    ensureStateDirs(state);
  });
  afterEach(() => removeDir(root));

  it('classifies a full disk, a read-only folder, a damaged state file and anything else, each with its fix', () => {
    const full = classifyFailure(`cannot create a.md: ENOSPC: no space left on device, open '${path.join(root, 'vault', 'x', '.a.md.engram-tmp-1-abcdef12')}'`, home);
    expect(full).toMatchObject({ kind: 'disk-full', where: path.join(root, 'vault', 'x') });
    expect(full.fix).toContain(`df -h ${path.join(root, 'vault', 'x')}`);
    const noPath = classifyFailure('cannot create a.md: ENOSPC: no space left on device, write', home, path.join(root, 'vault'));
    expect(noPath.probe).toEqual([path.join(root, 'vault'), home]);
    expect(classifyFailure(`EROFS: read-only file system, access '${root}'`, home)).toMatchObject({ kind: 'read-only', where: root });
    const damaged = classifyFailure(`vaults/${state.key}/ledger.json is not valid JSON; move it aside and run again`, home);
    expect(damaged).toMatchObject({ kind: 'damaged-state', where: state.ledger });
    expect(damaged.fix).toContain(`mv '${state.ledger}' '${state.ledger}.damaged'`);
    expect(classifyFailure('the model said no', home).kind).toBe('error');
  });

  it('an unknown cause waits 10 min, then 30 min, …; force brings everything back; cause files go with their events', () => {
    failEntries(state, [entry('a.json')], classifyFailure('the model said no', home));
    expect(listSetAside(state)).toEqual([expect.objectContaining({ name: 'a.json', record: expect.objectContaining({ rounds: 1 }) })]);
    const t0 = listSetAside(state)[0].record!.setAsideAt;
    expect(retrySetAside(state, { now: t0 + 9 * 60_000 })).toBe(0);
    expect(retrySetAside(state, { now: t0 + retryBackoffMs(1) })).toBe(1);
    expect(inSpool()).toEqual(['a.json']);
    // Failing again: round 2 waits longer.
    fs.renameSync(path.join(state.spool, 'a.json'), path.join(state.claimed, 'a.json'));
    failEntries(state, [path.join(state.claimed, 'a.json')], classifyFailure('the model said no', home));
    const r2 = listSetAside(state)[0].record!;
    expect(r2.rounds).toBe(2);
    expect(retryBackoffMs(2)).toBe(30 * 60_000);
    expect(retrySetAside(state, { now: r2.setAsideAt + 20 * 60_000 })).toBe(0);
    expect(retrySetAside(state, { force: true })).toBe(1);
    // Done (released): its cause file is removed on the next pass.
    fs.rmSync(path.join(state.spool, 'a.json'));
    retrySetAside(state);
    expect(fs.readdirSync(path.join(state.spool, 'failed'))).toEqual([]);
  });

  it('a damaged state file: retried as soon as it reads again (or is moved aside), not before', () => {
    fs.writeFileSync(state.ledger, '{ broken');
    failEntries(state, [entry('b.json')], classifyFailure(`vaults/${state.key}/ledger.json is not valid JSON; move it aside and run again`, home));
    expect(retrySetAside(state)).toBe(0);
    fs.renameSync(state.ledger, `${state.ledger}.damaged`);
    expect(retrySetAside(state)).toBe(1);
    expect(inSpool()).toEqual(['b.json']);
  });

  it('a deferred session due at its backoff time comes back then, while one with no retry time waits the hour', () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    deferEntries(state, [entry('failed-llm.json')], soon);
    deferEntries(state, [entry('budget.json')]);
    deferEntries(state, [entry('due.json')], new Date(Date.now() - 1000).toISOString());
    expect(returnDeferred(state)).toBe(1);
    expect(inSpool()).toEqual(['due.json']);
    // A minute later (the wait, as the file's stamp says it): the failed LLM session is due, the budget one is not.
    const later = path.join(state.spool, 'deferred', 'failed-llm.json');
    const st = fs.statSync(later);
    fs.utimesSync(later, st.atime, new Date(st.mtimeMs - 61_000));
    expect(returnDeferred(state)).toBe(1);
    expect(inSpool().sort()).toEqual(['due.json', 'failed-llm.json']);
    expect(fs.readdirSync(path.join(state.spool, 'deferred'))).toEqual(['budget.json']);
  });
});
