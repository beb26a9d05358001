// Extraction writes notes through the foundation's note layer: docs/ARCHITECTURE.md "Note format", file names that never make a
// case or Unicode twin, project routing, and splice-only frontmatter edits when it extends a note.
import { describe, expect, it } from 'vitest';
import { extractSession } from '../../../src/core/extract/extract.js';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { ScriptedBackend, beatsFor, extractEnv, extractOptions, session } from '../../helpers/extract.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const clock = { now: () => T0 };
const PNPM = 'We decided to use pnpm workspaces for the monorepo because installs are faster.';

function setup(files: Record<string, string> = {}) {
  return extractEnv(clock, files);
}

function oneBeat(title: string, scope: 'project' | 'general', text: string) {
  return () => JSON.stringify({ beats: [{ type: 'insight', title, summary: text, body: text, scope, durability: 'durable', tags: ['x'], related: [], confidence: 0.9, turns: [0], quote: text.slice(0, 30) }] });
}

describe('notes written by extraction', () => {
  it("follow the note format: keys in the documented order, then a blank line and the body with its source", async () => {
    const env = setup();
    const run = await extractSession(extractOptions(env, new ScriptedBackend((req) => beatsFor(req)), session('s1', [['user', 'For now the payments service stays on Node 18 until the SDK supports Node 20.']])));
    const text = (await env.vault.read(run.notes[0].path)).text;
    const note = parseNote(text);
    expect(Object.keys(note.data ?? {})).toEqual(['type', 'scope', 'project', 'summary', 'tags', 'related', 'created', 'updated', 'review_after', 'confidence', 'engram_id', 'engram_source', 'engram_session', 'engram_agent']);
    expect(String(note.data?.created)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    expect(text).toMatch(/\n---\n\nFor now the payments service/);
    expect(note.body).toContain('> [!quote]- Source');
    expect(run.notes[0].path).toBe('Engram/Working memory/For now the payments service stays.md');
  });

  it('says in the source when the project is a guess (the session\'s folder was gone)', async () => {
    const env = setup();
    const s = session('s1', [['user', 'The payments service stays on Node 18 until the SDK supports Node 20.']]);
    s.meta.projectGuess = "the session's folder ~/old-app no longer exists; named after the folder";
    const run = await extractSession(extractOptions(env, new ScriptedBackend((req) => beatsFor(req)), s));
    expect((await env.vault.read(run.notes[0].path)).text).toContain("> Project `acme` is a guess: the session's folder ~/old-app no longer exists; named after the folder.");
  });

  it('never makes a twin that differs only in case from an existing file name', async () => {
    const other = '---\ntype: reference\n---\nGroceries: milk, eggs, flour.\n';
    const env = setup({ 'Engram/Projects/acme/WE DECIDED TO USE PNPM WORKSPACES.md': other });
    const run = await extractSession(extractOptions(env, new ScriptedBackend((req) => beatsFor(req)), session('s1', [['user', PNPM]])));
    expect(run.notes[0].path).toBe('Engram/Projects/acme/We decided to use pnpm workspaces 1.md');
    expect((await env.vault.read('Engram/Projects/acme/WE DECIDED TO USE PNPM WORKSPACES.md')).text).toBe(other);
  });

  it('never makes a twin that differs only in Unicode form (NFD file, NFC title), and writes the NFC name', async () => {
    const other = '---\ntype: reference\n---\nThe espresso machine is descaled on Fridays.\n';
    const nfd = 'Engram/Inbox/Cafe\u0301 cache policy.md';
    const env = setup({ [nfd]: other });
    const text = 'The café cache keeps rendered pages for ten minutes only.';
    const run = await extractSession(extractOptions(env, new ScriptedBackend(oneBeat('Caf\u00e9 cache policy', 'general', text)), session('s1', [['user', text]])));
    expect(run.notes[0].path).toBe('Engram/Inbox/Caf\u00e9 cache policy 1.md');
    expect((await env.vault.read(nfd)).text).toBe(other);
  });

  it('files a project beat under a safe folder name for the project', async () => {
    const env = setup();
    const run = await extractSession(extractOptions(env, new ScriptedBackend((req) => beatsFor(req)), session('s1', [['user', PNPM]], 'web: app|v2')));
    expect(run.notes[0].path).toBe('Engram/Projects/web app v2/We decided to use pnpm workspaces.md');
  });

  it('extending a note changes only its `updated` line in the frontmatter: comments, quoting and flow lists stay', async () => {
    const fm = ['---', '# written by hand', 'type: decision', 'summary: "pnpm for the monorepo"', 'tags: [ build, pnpm ]   # keep this list flow', 'engram_id: 0123456789abcdef', "updated: '2026-01-01T00:00:00+00:00'", 'custom_key: 42', '---'];
    const original = `${fm.join('\n')}\n${PNPM}\n`;
    const env = setup({ 'Engram/Inbox/Pnpm.md': original });
    const similar = () => ({ findSimilar: () => Promise.resolve([{ path: 'Engram/Inbox/Pnpm.md', score: 0.95 }]) });
    const run = await extractSession(extractOptions(env, new ScriptedBackend(oneBeat('Pnpm again', 'general', `${PNPM} Confirmed again today.`)), session('s1', [['user', `${PNPM} Confirmed again today.`]]), { similar }));
    expect(run.beats.extended).toBe(1);
    const text = (await env.vault.read('Engram/Inbox/Pnpm.md')).text;
    const lines = text.split('\n');
    const updatedAt = fm.findIndex((l) => l.startsWith('updated:'));
    expect(lines.slice(0, fm.length).filter((_, i) => i !== updatedAt)).toEqual(fm.filter((_, i) => i !== updatedAt));
    expect(lines[updatedAt]).not.toBe(fm[updatedAt]);
    expect(parseNote(text).data?.updated).toMatch(/^2026-11-20T/);
    expect(text.startsWith(`${fm.slice(0, updatedAt).join('\n')}\n`)).toBe(true);
    expect(text).toContain(`${fm.slice(updatedAt + 1).join('\n')}\n${PNPM}\n`);
    expect(text).toContain('Confirmed again today.');
  });
});
