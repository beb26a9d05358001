// `remember` with judgment (issue 29): text with no content is refused with the reason, and a paraphrase of a note
// names that note and offers to extend it instead of filing a copy.
import { describe, expect, it } from 'vitest';
import { rememberContentProblem } from '../../src/core/memory/remember.js';
import { Engine } from '../../src/core/engine.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { isEngramError } from '../../src/core/errors.js';

async function engineWith(files: Record<string, string> = {}) {
  const vault = new MemoryVault({ files });
  const engine = new Engine({ ports: { vault, clock: { now: () => Date.UTC(2026, 10, 26) }, yieldNow: () => Promise.resolve() } });
  await engine.start();
  return { vault, engine };
}

const PNPM = '---\ntitle: Pnpm workspaces for the monorepo\ntype: decision\nengram_id: abc123\n---\nWe moved the monorepo from npm to pnpm workspaces because installs are three times faster.\n';

describe('remember: what has no content', () => {
  it('refuses "ok", filler and keyboard mash, with the reason; keeps short real statements', () => {
    expect(rememberContentProblem('ok')).toMatch(/nothing to keep/);
    expect(rememberContentProblem('thanks!')).toMatch(/nothing to keep/);
    expect(rememberContentProblem('asdf qwer zxcv')).toMatch(/keyboard mash/);
    expect(rememberContentProblem('Use pnpm, not npm')).toBeNull();
    expect(rememberContentProblem('Prefer tabs in Makefiles.')).toBeNull();
  });
});

describe('remember: a paraphrase of a note', () => {
  it('refuses no-content text through the engine, writing nothing', async () => {
    const { engine, vault } = await engineWith();
    for (const text of ['ok', 'asdf qwer zxcv']) {
      const e = await engine.remember({ text }).catch((x: unknown) => x);
      expect(isEngramError(e) && e.code).toBe('refused');
      expect(String((e as Error).message)).toMatch(/not remembered/);
    }
    expect(await vault.list()).toEqual([]);
  });

  it('names the note it restates and writes nothing; extends it when asked; files it anyway when told', async () => {
    const { engine, vault } = await engineWith({ 'Engram/Projects/acme/Pnpm workspaces for the monorepo.md': PNPM });
    const text = 'The monorepo uses pnpm workspaces instead of npm: installs are three times faster.';
    const asked = await engine.remember({ text, project: 'acme' });
    expect(asked.duplicateOf).toMatchObject({ path: 'Engram/Projects/acme/Pnpm workspaces for the monorepo.md', title: 'Pnpm workspaces for the monorepo' });
    expect(asked.extended).toBeUndefined();
    expect((await vault.list()).length).toBe(1);
    const extended = await engine.remember({ text, project: 'acme', onDuplicate: 'extend' });
    expect(extended.extended).toBe(true);
    const note = (await vault.read(extended.path)).text;
    expect(note).toContain('We moved the monorepo');
    expect(note).toMatch(/## 2026-11-26\nThe monorepo uses pnpm workspaces instead of npm/);
    const separate = await engine.remember({ text, project: 'acme', onDuplicate: 'new' });
    expect(separate.duplicateOf).toBeUndefined();
    expect((await vault.list()).length).toBe(2);
  });

  it('files another fact on the same topic as a note of its own', async () => {
    const { engine, vault } = await engineWith({ 'Engram/Projects/acme/Pnpm workspaces for the monorepo.md': PNPM });
    const r = await engine.remember({ text: 'CI pins the pnpm version through corepack so laptops and CI resolve the same lockfile.', project: 'acme' });
    expect(r.duplicateOf).toBeUndefined();
    expect((await vault.list()).length).toBe(2);
  });
});
