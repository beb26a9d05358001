// One vault on two machines: the same beat written on both is the same bytes (the sync has nothing to conflict on),
// and a note for the beat that arrived after the vault was read is not written a second time.
import { describe, expect, it } from 'vitest';
import { extractSession } from '../../../src/core/extract/extract.js';
import type { VaultPort } from '../../../src/core/ports.js';
import { ScriptedBackend, beatsFor, extractEnv, extractOptions, session, vaultSnapshot } from '../../helpers/extract.js';
import type { Session } from '../../../src/core/transcript/types.js';

const TEXTS: [('user' | 'assistant'), string][] = [
  ['user', 'We decided to use pnpm workspaces for the monorepo because installs are faster.'],
  ['assistant', 'Switching to pnpm.'],
  ['user', 'For now the payments service stays on Node 18 until the SDK supports Node 20.'],
];

/** The session as a transcript records it: each turn with its time. */
function timed(): Session {
  const s = session('s1', TEXTS);
  s.turns.forEach((t, i) => (t.timestamp = new Date(Date.parse('2026-11-20T09:00:00Z') + i * 60_000).toISOString()));
  return s;
}

const engramNotes = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).filter(([p]) => p.startsWith('Engram/')));

describe('same beat, same bytes', () => {
  it('two machines extracting the same session a day apart write byte-identical notes', async () => {
    const a = extractEnv({ now: () => Date.parse('2026-11-20T10:00:00Z') });
    const b = extractEnv({ now: () => Date.parse('2026-11-21T18:30:00Z') });
    const backend = () => new ScriptedBackend((req) => beatsFor(req));
    await extractSession(extractOptions(a, backend(), timed()));
    await extractSession(extractOptions(b, backend(), timed()));
    const [na, nb] = [engramNotes(await vaultSnapshot(a.vault)), engramNotes(await vaultSnapshot(b.vault))];
    expect(Object.keys(na)).toHaveLength(2);
    expect(nb).toEqual(na);
    // Dated by the conversation, not by the machine's clock.
    expect(Object.values(na).join('\n')).toContain('created: 2026-11-20T');
  });

  it('a note for the beat that arrived by sync after the vault was listed is not written again', async () => {
    const a = extractEnv({ now: () => Date.parse('2026-11-20T10:00:00Z') });
    await extractSession(extractOptions(a, new ScriptedBackend((req) => beatsFor(req)), timed()));
    const synced = engramNotes(await vaultSnapshot(a.vault));
    // Machine B: the synced notes are on disk, but arrived after B listed the vault (its listing does not show them).
    const b = extractEnv({ now: () => Date.parse('2026-11-21T18:30:00Z') }, synced);
    const inner = b.vault;
    const late: VaultPort = { ...inner, list: async () => (await inner.list()).filter((f) => !(f.path in synced)), listConflictCopies: () => inner.listConflictCopies(), read: (p) => inner.read(p), exists: (p) => inner.exists(p), create: (p, t) => inner.create(p, t), writeIfUnchanged: (p, e, t) => inner.writeIfUnchanged(p, e, t), append: (p, t) => inner.append(p, t), trash: (p) => inner.trash(p), rename: (x, y) => inner.rename(x, y), watch: (f) => inner.watch(f) };
    const run = await extractSession({ ...extractOptions(b, new ScriptedBackend((req) => beatsFor(req)), timed()), ports: { vault: late, clock: b.clock } });
    expect(run.beats.created).toBe(0);
    expect(engramNotes(await vaultSnapshot(b.vault))).toEqual(synced);
  });
});
