// Private spans and private zones, read alone: what counts as private and what is left.
import { describe, expect, it } from 'vitest';
import { PRIVATE_MARK, withoutPrivate } from '../../src/core/transcript/private.js';
import { privateZoneOf } from '../../src/core/note/private-zone.js';

describe('private spans', () => {
  it('cuts each span (any case, attributes, across lines) and an unclosed one to the end', () => {
    expect(withoutPrivate('a <private>b</private> c <Private note="x">d\ne</PRIVATE > f')).toEqual({ text: `a ${PRIVATE_MARK} c ${PRIVATE_MARK} f`, spans: 2 });
    expect(withoutPrivate('keep this <private>but not this\nnor this')).toEqual({ text: `keep this ${PRIVATE_MARK}`, spans: 1 });
    expect(withoutPrivate('nothing private here: <privately> is a word')).toEqual({ text: 'nothing private here: <privately> is a word', spans: 0 });
  });
});

describe('private zones', () => {
  const zones = { folders: ['Journal', 'Work/HR/'], tags: ['#private', 'health'] };
  it('names the folder or tag that makes a note private', () => {
    expect(privateZoneOf({ path: 'Journal/2026-11-01.md' }, zones)).toBe('private folder Journal');
    expect(privateZoneOf({ path: 'Work/HR/Review.md' }, zones)).toBe('private folder Work/HR/');
    expect(privateZoneOf({ path: 'Journaling tips.md' }, zones)).toBeUndefined();
    expect(privateZoneOf({ path: 'Notes/a.md', tags: ['Private/Family'] }, zones)).toBe('private tag #private');
    expect(privateZoneOf({ path: 'Notes/a.md', tags: ['healthy-food'] }, zones)).toBeUndefined();
    // A project, matched without regard to case; a note of no project is not private by it.
    const withProjects = { ...zones, projects: ['Initech'] };
    expect(privateZoneOf({ path: 'Engram/Projects/x.md', project: 'initech' }, withProjects)).toBe('private project initech');
    expect(privateZoneOf({ path: 'Engram/Projects/x.md', project: 'acme' }, withProjects)).toBeUndefined();
    expect(privateZoneOf({ path: 'Engram/Projects/x.md' }, withProjects)).toBeUndefined();
  });
});
