// The team queue on disk (docs/team.md "Promotion, exactly once"): a promotion leaves the queue only once the store
// answered; a conflict is kept for the person (never overwritten) until a later promotion of the note goes through;
// a cached team index is reused while the cache file is the same, and read again when it changes.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PromoteOutcome, TeamNote, TeamNoteInput } from '../../src/core/team/store.js';
import { CachedTeam, conflicts, enqueue, flushQueue, queued } from '../../sidecar/hosting/team/team-service.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

const note: TeamNoteInput = { team: 'core', project: '', title: 'Deploy days', body: 'We never deploy on Fridays.', frontmatter: {}, author: 'ann', vault: 'v', sourceHash: 'h', sourcePath: 'Notes/Deploy days.md' };

describe('the team queue and cache on disk', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(removeDir));
  const dir = (): string => {
    const d = makeTempDir('engram-team-');
    dirs.push(d);
    return d;
  };

  it('keeps a conflict for the person, and settles it when the note goes through later', async () => {
    const d = dir();
    let answer: PromoteOutcome = { status: 'conflict', id: 'n-bob', author: 'bob' };
    const store = { promote: async () => answer };
    enqueue(d, note, [{ heading: '', text: note.body }]);
    const first = await flushQueue(d, store);
    expect(first.sent.map((x) => x.outcome.status)).toEqual(['conflict']);
    expect(queued(d)).toEqual([]);
    expect(conflicts(d)).toMatchObject([{ path: 'Notes/Deploy days.md', title: 'Deploy days', id: 'n-bob', author: 'bob' }]);
    answer = { status: 'promoted', id: 'n-ann' };
    enqueue(d, { ...note, title: 'Deploy days at acme' }, [{ heading: '', text: note.body }]);
    await flushQueue(d, store);
    expect(conflicts(d)).toEqual([]);
  });

  it('a store that does not answer leaves the promotion queued, and records no conflict', async () => {
    const d = dir();
    enqueue(d, note, [{ heading: '', text: note.body }]);
    const r = await flushQueue(d, { promote: async () => Promise.reject(new Error('connect ECONNREFUSED')) });
    expect(r).toMatchObject({ waiting: 1, stopped: 'connect ECONNREFUSED' });
    expect(queued(d)).toHaveLength(1);
    expect(conflicts(d)).toEqual([]);
  });

  it('reads the cache again when the file changes, and reuses its saved index in a new process', () => {
    const d = dir();
    const n = (id: string, title: string, body: string): TeamNote => ({ ...note, id, title, body, promotedAt: '2026-03-01T00:00:00Z', updatedAt: '2026-03-01T00:00:00Z' });
    const write = (notes: TeamNote[]): void => fs.writeFileSync(path.join(d, 'cache.json'), JSON.stringify({ url: 'postgres://x', team: 'core', refreshedAt: 'now', notes }));
    write([n('a', 'Deploy days', 'We never deploy on Fridays.')]);
    expect(new CachedTeam(d).search('deploy fridays', 5).map((h) => h.id)).toEqual(['a']);
    expect(fs.existsSync(path.join(d, 'cache-index.bin'))).toBe(true);
    // Another process (a CLI run) finds the saved index and answers the same.
    const other = new CachedTeam(d);
    expect(other.search('deploy fridays', 5).map((h) => h.id)).toEqual(['a']);
    write([n('b', 'Release train', 'The release train leaves on Tuesday.'), n('a', 'Deploy days', 'We never deploy on Fridays.')]);
    expect(other.search('release train tuesday', 5).map((h) => h.id)).toEqual(['b']);
    expect(other.note('b')?.title).toBe('Release train');
  });
});
