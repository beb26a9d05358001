// Claude Code's memory files as notes: idempotent (a second import writes nothing), following a changed file, and
// leaving a note the user edited alone.
import { describe, expect, it } from 'vitest';
import { importClaudeMemory, type MemoryFile } from '../../../src/core/memory/claude-memory.js';
import { MemoryStateStore } from '../../../src/core/extract/state-store.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';

const clock = { now: () => Date.parse('2026-11-20T10:00:00Z') };
const file = (name: string, text: string): MemoryFile => ({ project: 'acme', source: `/h/.claude/projects/-h-acme/memory/${name}`, name, text, mtime: clock.now() });

describe('importClaudeMemory', () => {
  it('imports once, follows a change, and leaves an edited note alone', async () => {
    const vault = new MemoryVault({ files: {}, clock });
    const state = new MemoryStateStore();
    const run = (files: MemoryFile[]) => importClaudeMemory({ vault, state, dir: 'vaults/k', folder: 'Engram/Claude memory', files });
    const topic = file('testing.md', '---\nname: Testing rules\ndescription: Run vitest with --run\n---\nAlways run vitest with --run in CI.\n');
    expect((await run([topic, file('MEMORY.md', '- [Testing rules](testing.md)\n')])).map((r) => [r.path, r.action])).toEqual([
      ['Engram/Claude memory/acme/Testing rules.md', 'created'],
      ['Engram/Claude memory/acme/Claude memory index (acme).md', 'created'],
    ]);
    const note = (await vault.read('Engram/Claude memory/acme/Testing rules.md')).text;
    expect(note).toMatch(/^summary: Run vitest with --run$/m);
    expect(note).not.toMatch(/^inject:/m);
    expect((await vault.read('Engram/Claude memory/acme/Claude memory index (acme).md')).text).toMatch(/^inject: false$/m);
    expect((await run([topic])).map((r) => r.action)).toEqual(['unchanged']);
    const changed = { ...topic, text: topic.text.replace('in CI', 'in CI and locally') };
    expect((await run([changed])).map((r) => r.action)).toEqual(['updated']);
    expect((await vault.read('Engram/Claude memory/acme/Testing rules.md')).text).toContain('in CI and locally');
    await vault.append('Engram/Claude memory/acme/Testing rules.md', '\nMine.\n');
    const edited = (await vault.read('Engram/Claude memory/acme/Testing rules.md')).text;
    expect((await run([{ ...topic, text: 'something else' }])).map((r) => r.action)).toEqual(['left alone']);
    expect((await vault.read('Engram/Claude memory/acme/Testing rules.md')).text).toBe(edited);
  });
});
