import { describe, expect, it } from 'vitest';
import { conflictCopy, conflictDiff, hasConflictMarkers } from '../../../src/core/note/conflict-copy';
import { isListedNote } from '../../../src/core/ports/vault-listing';

describe('conflict copies left by sync tools', () => {
  const copies: Array<[string, string, string]> = [
    ['Notes/Deploy.sync-conflict-20260310-120000-ABCDEFG.md', 'Notes/Deploy.md', 'Syncthing'],
    ["Notes/Deploy (Bob's conflicted copy 2026-03-10).md", 'Notes/Deploy.md', 'a sync service'],
    ['Deploy (conflicted copy 2026-03-10 120000).md', 'Deploy.md', 'a sync service'],
    ['Engram/Log/laptop-1a2b3c 2026-03 (Conflicted copy MacBook 202603101200).md', 'Engram/Log/laptop-1a2b3c 2026-03.md', 'a sync service'],
    ['Notes/Deploy (SFConflict bob@example.com 2026-03-10-12-00-00).md', 'Notes/Deploy.md', 'a sync service'],
    ['Notes/Deploy (conflict).md', 'Notes/Deploy.md', 'a sync service'],
    ['Notes/Deploy_LOCAL_4242.md', 'Notes/Deploy.md', 'git mergetool'],
  ];
  for (const [path, original, tool] of copies) {
    it(`${path} is a copy of ${original}, never listed as a note`, () => {
      expect(conflictCopy(path)).toEqual({ path, original, tool });
      expect(isListedNote(path)).toBe(false);
    });
  }

  it('ordinary notes, numbered twins and notes about conflicts are notes', () => {
    for (const p of ['Notes/Deploy.md', 'Notes/Deploy 2.md', 'Notes/Deploy (1).md', 'Notes/Resolving a sync conflict.md', 'Notes/conflicted copy.md', 'Notes/(conflict).md', 'Notes/Conflict resolution (draft).md']) {
      expect(conflictCopy(p), p).toBeUndefined();
      expect(isListedNote(p), p).toBe(true);
    }
  });

  it('finds git conflict markers only as a set, and diffs a copy against its note', () => {
    expect(hasConflictMarkers('a\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> main\n')).toBe(true);
    expect(hasConflictMarkers('a\n=======\nunderline style heading\n')).toBe(false);
    expect(conflictDiff('---\nx: 1\n---\nSame\nOld line\n', '---\nx: 1\n---\nSame\nNew line\n')).toBe('  - Old line\n  + New line');
    expect(conflictDiff('same\n', 'same\n')).toMatch(/same lines/);
    expect(conflictDiff(null, 'x')).toMatch(/gone/);
  });
});
