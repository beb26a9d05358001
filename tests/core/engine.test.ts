// The engine on an in-memory vault: recall scope, context gating and once-per-session, remember/forget, rescan.
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { systemClock } from '../../src/core/ports.js';

async function engineWith(files: Record<string, string>): Promise<{ engine: Engine; vault: MemoryVault }> {
  const vault = new MemoryVault({ files });
  const engine = new Engine({ ports: { vault, clock: systemClock, yieldNow: () => Promise.resolve() } });
  await engine.start();
  return { engine, vault };
}

const FILES = {
  'Engram/Projects/acme/Use pnpm.md': '---\ntype: decision\nproject: acme\nsummary: acme uses pnpm workspaces\n---\nThe acme monorepo uses pnpm workspaces.\n',
  'Engram/Projects/other/Fly.md': '---\ntype: decision\nproject: other\n---\nThe other monorepo uses pnpm workspaces and deploys to fly.\n',
  'Engram/Inbox/General.md': '---\ntype: insight\nscope: general\n---\nRenovate keeps pnpm workspaces lockfiles fresh.\n',
  'Notes/Garden.md': '# Garden\nTomatoes need water.\n',
  'Notes/Bread.md': '# Bread\nSourdough starter.\n',
};

describe('Engine', () => {
  it('recall for a project keeps that project and general notes, not other projects', async () => {
    const { engine } = await engineWith(FILES);
    const r = await engine.recall('pnpm workspaces monorepo', { projects: ['acme'] });
    const paths = r.hits.map((h) => h.path);
    expect(paths).toContain('Engram/Projects/acme/Use pnpm.md');
    expect(paths).toContain('Engram/Inbox/General.md');
    expect(paths).not.toContain('Engram/Projects/other/Fly.md');
    expect(r.text).toMatch(/^<engram-memory/);
  });

  it('context: injects a note once per session, nothing for chit-chat, project notes at session start', async () => {
    const { engine } = await engineWith(FILES);
    const ask = (sessionId: string, prompt: string) => engine.context({ event: 'UserPromptSubmit', prompt, sessionId, project: 'acme', maxChars: 1500, maxItems: 5 });
    const first = await ask('s1', 'why does acme use pnpm workspaces in the monorepo');
    expect(first.items.map((i) => i.path)).toContain('Engram/Projects/acme/Use pnpm.md');
    expect((await ask('s1', 'why does acme use pnpm workspaces in the monorepo')).items.map((i) => i.path)).not.toContain('Engram/Projects/acme/Use pnpm.md');
    expect((await ask('s2', 'why does acme use pnpm workspaces in the monorepo')).items.length).toBeGreaterThan(0);
    expect((await ask('s3', 'thanks!')).text).toBeUndefined();
    const start = await engine.context({ event: 'SessionStart', sessionId: 's4', project: 'acme', maxChars: 4000, maxItems: 8 });
    expect(start.items.map((i) => i.path)).toEqual(['Engram/Projects/acme/Use pnpm.md']);
  });

  it('remember writes a manual note that recall finds; forget moves it to the trash and out of recall', async () => {
    const { engine, vault } = await engineWith(FILES);
    const { path } = await engine.remember({ text: 'Flaky test: the zorblax suite needs TZ=UTC.', type: 'problem', project: 'acme' });
    expect(path).toMatch(/^Engram\/Projects\/acme\//);
    expect((await vault.read(path)).text).toMatch(/engram_source: manual/);
    expect((await engine.recall('zorblax')).hits[0].path).toBe(path);
    await engine.forget(path);
    expect(await vault.exists(path)).toBe(false);
    expect((await engine.recall('zorblax')).hits).toHaveLength(0);
    await expect(engine.forget('no such note')).rejects.toThrow(/no note matches/);
  });

  it('a rescan picks up notes the watcher never reported and drops vanished ones', async () => {
    const { engine, vault } = await engineWith(FILES);
    await vault.create('Notes/Missed.md', '# Missed\nquokka habitat notes\n');
    await vault.trash('Notes/Garden.md');
    expect((await engine.recall('quokka')).hits).toHaveLength(0);
    expect(await engine.reconcile()).toEqual({ loaded: 1, dropped: 1 });
    expect((await engine.recall('quokka')).hits[0].path).toBe('Notes/Missed.md');
    expect((await engine.recall('tomatoes')).hits).toHaveLength(0);
  });
});
