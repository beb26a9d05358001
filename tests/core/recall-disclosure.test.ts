// Progressive disclosure (issue 21): recall's compact list costs little per hit and says where to read; `read` opens
// one passage by its heading; the hook injects a long note's answering passage with its heading path.
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { systemClock } from '../../src/core/ports.js';

async function engineWith(files: Record<string, string>): Promise<Engine> {
  const engine = new Engine({ ports: { vault: new MemoryVault({ files }), clock: systemClock, yieldNow: () => Promise.resolve() } });
  await engine.start();
  return engine;
}

const filler = (topic: string): string => `General remarks about ${topic} that do not answer anything in particular. `.repeat(10);
const GUIDE = `# Deploy guide\n\n${filler('releases')}\n\n## Rollback\n\n${filler('incidents')}\n\nTo roll back, run \`fly releases rollback\` and pin the previous image tag in deploy.toml.\n\n## Monitoring\n\n${filler('dashboards')}\n`;

describe('progressive disclosure', () => {
  it('recall with full 0 is a compact list: ten hits under 1,500 characters, each with title, path#heading and tokens', async () => {
    const files: Record<string, string> = { 'Guides/deploy.md': GUIDE };
    for (let i = 0; i < 12; i++) files[`Notes/Rollback note number ${i} with a long file name.md`] = `Rollback of release ${i}: ${filler('rollback releases')}`;
    const engine = await engineWith(files);
    const r = await engine.recall('rollback releases', { full: 0, limit: 10 });
    expect(r.hits).toHaveLength(10);
    expect(r.text.length).toBeLessThan(1500);
    expect(r.text).toMatch(/^<engram-memory/);
    const lines = r.text.split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toHaveLength(10);
    for (const l of lines) expect(l).toMatch(/ · \S.*\.md(#[^·]+)? · ~\d+ tok/);
  });

  it('read by path#heading returns that passage with its heading path; an unknown heading lists the real ones', async () => {
    const engine = await engineWith({ 'Guides/deploy.md': GUIDE });
    const hit = (await engine.search('roll back previous image tag'))[0];
    expect(hit.heading).toBe('Deploy guide > Rollback');
    const passage = await engine.read(`${hit.path}#${hit.heading}`);
    expect(passage.heading).toBe('Deploy guide > Rollback');
    expect(passage.text).toContain('fly releases rollback');
    expect(passage.text).not.toContain('dashboards');
    expect((await engine.read('Guides/deploy.md#rollback')).text).toContain('fly releases rollback');
    await expect(engine.read('Guides/deploy.md#Nowhere')).rejects.toThrow(/no heading "Nowhere"/);
    expect((await engine.read('Guides/deploy.md')).text).toBe(GUIDE);
  });

  it('the hook injects the answering passage with its heading path, not the note\'s opening', async () => {
    const engine = await engineWith({ 'Guides/deploy.md': GUIDE, 'Notes/Bread.md': 'Sourdough starter.\n' });
    const ctx = await engine.context({ event: 'UserPromptSubmit', prompt: 'how do I roll back to the previous image tag', maxChars: 1500, maxItems: 3 });
    expect(ctx.items.map((i) => i.path)).toEqual(['Guides/deploy.md']);
    expect(ctx.text).toContain('§ Deploy guide > Rollback');
    expect(ctx.text).toContain('previous image tag');
  });
});

describe('injection budgets', () => {
  it('a session gets at most sessionChars over all its prompts; /clear starts the budget afresh', async () => {
    const files: Record<string, string> = {};
    // Other subjects, so that the prompt's words are rare in the vault (the relevance bar weighs words by rarity).
    for (let i = 0; i < 30; i++) files[`Other/Garden ${i}.md`] = `Tomato bed ${i} needs water and compost.`;
    for (let i = 0; i < 8; i++) files[`Notes/Harbor crane ${i}.md`] = `Harbor crane ${i} lifts containers; crane maintenance schedule ${i} and harbor safety rules. ${filler('cranes')}`;
    const engine = await engineWith(files);
    const ask = (prompt: string) => engine.context({ event: 'UserPromptSubmit', prompt, sessionId: 's1', maxChars: 1500, maxItems: 2, sessionChars: 1600 });
    const first = await ask('harbor crane maintenance schedule');
    expect(first.items.length).toBeGreaterThan(0);
    const second = await ask('harbor crane safety rules maintenance');
    const total = (first.text?.length ?? 0) + (second.text?.length ?? 0);
    expect(total).toBeLessThanOrEqual(1600);
    const third = await ask('harbor crane containers maintenance schedule safety');
    expect(total + (third.text?.length ?? 0)).toBeLessThanOrEqual(1600);
    await engine.context({ event: 'SessionStart', source: 'clear', sessionId: 's1', maxChars: 1500, maxItems: 2, sessionChars: 1600 });
    expect((await ask('harbor crane maintenance schedule')).items.length).toBeGreaterThan(0);
  });
});
