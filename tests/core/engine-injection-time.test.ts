// Automatic injection reads a prompt as a topic: "today" or "last week" in it must not become a date filter
// (SearchOptions.timePhrases: false), while an explicit recall still reads them as dates. Real VaultIndex.
import { describe, expect, it } from 'vitest';
import { Engine, IndexedVault } from '../../src/core/engine.js';
import { VaultIndex } from '../../src/core/index/vault-index.js';
import type { SearchOptions } from '../../src/core/index/types.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { systemClock } from '../../src/core/ports.js';

/** The daemon's adapter (IndexedVault) over the real index, recording the options each search got. */
function adapter(index: VaultIndex, seen: SearchOptions[]): IndexedVault {
  const a = new IndexedVault(index);
  const search = a.search.bind(a);
  a.search = (q, o) => {
    seen.push(o);
    return search(q, o);
  };
  return a;
}

describe('injection ignores time phrases in the prompt', () => {
  it('a prompt saying "today" still injects an old note on its topic; recall with "today" filters by date', async () => {
    const today = new Date().toISOString().slice(0, 10);
    // Unrelated notes, so that the relevance bar's word weights (IDF) mean something.
    const filler = Object.fromEntries(['garden tomatoes water', 'sourdough starter flour', 'bicycle chain oil', 'tax return deadline', 'guitar strings tuning', 'coffee grinder burr', 'running shoes sizes', 'camera lens aperture', 'holiday train tickets', 'houseplant repotting soil'].map((t, i) => [`Notes/Filler ${i}.md`, `# ${t}\nSome notes about ${t}.\n`]));
    const vault = new MemoryVault({
      files: {
        ...filler,
        'Engram/Inbox/Pnpm workspaces.md': '---\ntype: decision\ncreated: 2021-03-04\nupdated: 2021-03-04\nsummary: The monorepo uses pnpm workspaces because npm installs took four minutes\n---\nWe moved the monorepo from npm to pnpm workspaces; installs dropped from four minutes to forty seconds.\n',
        'Engram/Inbox/Standup.md': `---\ntype: reference\ncreated: ${today}\nupdated: ${today}\n---\nStandup notes: the monorepo build was green.\n`,
      },
    });
    const seen: SearchOptions[] = [];
    const engine = new Engine({ ports: { vault, clock: systemClock, yieldNow: () => Promise.resolve() }, index: adapter(new VaultIndex({ vault, autoEmbed: false }), seen) });
    await engine.start();
    const prompt = 'why does the monorepo use pnpm workspaces instead of npm installs today';

    const recalled = await engine.recall(prompt);
    expect(recalled.hits.map((h) => h.path)).not.toContain('Engram/Inbox/Pnpm workspaces.md');

    const injected = await engine.context({ event: 'UserPromptSubmit', prompt, sessionId: 's1', maxChars: 1500, maxItems: 5 });
    expect(seen.at(-1)?.timePhrases).toBe(false);
    expect(injected.items.map((i) => i.path)).toContain('Engram/Inbox/Pnpm workspaces.md');
    expect(injected.text).toContain('|Pnpm workspaces]]');
  });
});
