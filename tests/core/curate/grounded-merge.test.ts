// A merge the model writes may only reorder the notes' own sentences (issue 22): a grounded reply becomes the merge,
// one that adds or drops a sentence is refused and the rule merge is shown, saying why. The model is a local server
// speaking the OpenAI chat-completions wire format.
import { afterEach, describe, expect, it } from 'vitest';
import { groundingOfMerge } from '../../../src/core/curate/grounded-merge';
import { Curation } from '../../../src/core/curate/service';
import { OpenAiBackend } from '../../../src/core/extract/backends/openai';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { NOW, settings } from './fixtures';
import { scriptedOpenAi, type ScriptedServer } from './scripted-openai';

const article =
  'Retries hide transient faults from users. We retry failed uploads with exponential backoff and jitter, at most five times. ' +
  'The first wait is two hundred milliseconds and each later wait doubles.';
const files = {
  'Notes/Retry uploads.md': `---\ntags: [retries]\n---\n${article}\n\nSee [[Uploads]].\n`,
  'Archive/Retry uploads.md': `---\ntags: [uploads]\n---\n${article}\n\n## Later\n\nMeasure how often the fifth retry fails.\n`,
  'Uploads.md': 'Uploads go to the bucket.\n',
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function plan(reply: (user: string) => string, backend: 'openai' | null = 'openai') {
  server = await scriptedOpenAi(reply);
  const url = server.url;
  const vault = new MemoryVault({ files, clock: { now: () => NOW } });
  const c = new Curation({
    vault,
    state: new MemoryStateStore(),
    vaultKey: '0123456789abcdef',
    settings,
    clock: { now: () => NOW },
    backend: () => new OpenAiBackend({ baseUrl: url, model: 'scripted', paid: false, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } as never }),
  });
  const p = await c.restructurePlan(backend ? { backend } : {});
  return { merge: p.proposals.find((x) => x.kind === 'merge')!, c, vault };
}

describe('a merge the model writes, grounded in the notes', () => {
  it('takes a reply that only reorders the notes\' sentences, and applies it', async () => {
    const reordered = `${article}\n\nMeasure how often the fifth retry fails.\n\nSee [[Uploads]].`;
    const { merge, c, vault } = await plan(() => reordered);
    expect(server!.requests).toHaveLength(1);
    expect(server!.requests[0].user).toContain('## Retry uploads');
    expect(merge.reason).toMatch(/written by openai from the notes' own sentences \(none added, none left out\)$/);
    const kept = merge.writes[0];
    expect(kept.text.slice(kept.text.indexOf('\n---\n') + 5)).toBe(`${reordered}\n`);
    expect(kept.text).toMatch(/^---\ntags: \[uploads, retries\]/);
    const [out] = await c.apply([merge.id]);
    expect(out.ok).toBe(true);
    expect((await vault.read(kept.path)).text).toBe(kept.text);
  });

  it('refuses a reply that adds a sentence or leaves one out, and shows the rule merge', async () => {
    const invented = `${article} Retries never lose data.\n\nMeasure how often the fifth retry fails.\n\nSee [[Uploads]].`;
    const a = await plan(() => invented);
    expect(a.merge.reason).toMatch(/the rule merge is shown: openai's was not used \(1 passage not in the notes \("retries never lose data"\)\)$/);
    expect(a.merge.writes[0].text).toContain('## Later\n\nMeasure how often the fifth retry fails.\n\n## Retry uploads\n\nSee [[Uploads]].');
    expect(a.merge.writes[0].text).not.toContain('never lose data');
    await server!.close();
    server = undefined;
    const b = await plan(() => `${article}\n\nSee [[Uploads]].`);
    expect(b.merge.reason).toMatch(/1 passage of the notes left out \("measure how often the fifth retry fails"\)\)$/);
  });

  it('asks no model unless a backend is named for the plan', async () => {
    const { merge } = await plan(() => 'unused', null);
    expect(server!.requests).toHaveLength(0);
    expect(merge.reason).not.toMatch(/openai/);
  });

  it('a link or embed dropped or invented is not grounded', () => {
    const merged = 'One sentence here for the test.\n\n![[diagram.png]]\n';
    expect(groundingOfMerge(merged, 'One sentence here for the test.\n')).toMatch(/1 link or embed left out \(!\[\[diagram.png\]\]\)/);
    expect(groundingOfMerge(merged, 'One sentence here for the [[test]].\n\n![[diagram.png]]')).toMatch(/a link of its own \(\[\[test\]\]\)/);
    expect(groundingOfMerge(merged, '## Overview\n\nOne sentence here for the test.\n\n![[diagram.png]]')).toMatch(/a heading of its own/);
    expect(groundingOfMerge(merged, '![[diagram.png]]\n\nOne sentence here for the test.')).toBeNull();
  });
});
