// Private zones at curation's model calls, and a private project at every boundary: a note in a private folder, with
// a private tag (in its frontmatter or its body) or of a private project never reaches review's or restructure's
// model (a scripted backend records every request), is extended or merged by the rules instead, and a private
// project's notes are never injected, never in an MCP answer, and still found by the person's own search.
import { describe, expect, it } from 'vitest';
import { startInProcessHost } from '../../helpers/in-process-host.js';
import { ScriptedBackend } from '../../helpers/extract.js';

const NOW = Date.parse('2026-03-20T12:00:00Z');
const wm = (fm: string, body: string) => `---\ntype: insight\nreview_after: 2026-03-10\nengram_source: hook-extraction\n${fm}---\n${body}\n`;
const ZONES = { folders: ['Journal'], tags: ['private'], projects: ['Initech'] };

const FILES: Record<string, string> = {
  'Journal/Sleep and deploys.md': wm('', 'I sleep badly before the deploy window on Fridays: the therapist calls it dread.'),
  'Engram/Working memory/Blood pressure.md': wm('', 'Blood pressure was high after the on-call week. #private/health'),
  'Engram/Working memory/Initech merger.md': wm('project: initech\n', 'The Initech merger closes in May; the layoffs list stays secret.'),
  'Engram/Working memory/Cache warmup.md': wm('project: acme\n', 'Warm the cache before the deploy window opens, or the first requests time out.'),
  // Two near-copies in a private folder, two in the open: restructure proposes a merge of each pair.
  'Journal/Payroll date one.md': '---\ntags: [pay]\n---\nPayroll runs on the twenty-fifth of every month for the whole Initech team.\n',
  'Journal/Payroll date two.md': '---\ntags: [pay]\n---\nPayroll runs on the twenty-fifth of every month for the whole Initech team!\n',
  'Notes/Deploy from root.md': '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root directory.\n',
  'Notes/Deploy from the root.md': '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root directory!\n',
};

const PRIVATE_WORDS = /therapist|dread|Blood pressure|Initech|layoffs|Payroll/i;

function recorder(): ScriptedBackend {
  return new ScriptedBackend((req) => {
    // Review: extend whatever was sent; restructure's writer: the merged note back, unchanged.
    const paths = [...(req.user ?? '').matchAll(/^path: (.+)$/gm)].map((m) => m[1]);
    if (paths.length) return JSON.stringify({ decisions: paths.map((p) => ({ action: 'extend', notes: [p], reason: 'still useful', weeks: 2 })) });
    return (req.user ?? '').replace(/^<merged-note>\n|\n<\/merged-note>$/g, '');
  });
}

describe('private zones in curation', () => {
  it('review never sends a private note to the model; the rules extend it and say why', async () => {
    const backend = recorder();
    const host = await startInProcessHost(FILES, { clock: { now: () => NOW }, backend, privateZones: ZONES });
    const plan = await host.curation.reviewPlan({ dueWithinDays: 7 });
    expect(plan.due.map((d) => d.path).sort()).toEqual(['Engram/Working memory/Blood pressure.md', 'Engram/Working memory/Cache warmup.md', 'Engram/Working memory/Initech merger.md', 'Journal/Sleep and deploys.md']);
    // The model saw the open note, and nothing of the private ones.
    expect(backend.requests.length).toBeGreaterThan(0);
    const sent = backend.requests.map((r) => `${r.system ?? ''}\n${r.user ?? ''}`).join('\n');
    expect(sent).toContain('Warm the cache');
    expect(sent).not.toMatch(PRIVATE_WORDS);
    const reasons = Object.fromEntries(plan.proposals.flatMap((p) => p.sources.map((s) => [s.path, p.reason])));
    expect(reasons['Journal/Sleep and deploys.md']).toMatch(/private folder Journal\): never sent to a model/);
    expect(reasons['Engram/Working memory/Blood pressure.md']).toMatch(/private tag #private\): never sent to a model/);
    expect(reasons['Engram/Working memory/Initech merger.md']).toMatch(/private project initech\): never sent to a model/);
    expect(reasons['Engram/Working memory/Cache warmup.md']).toBe('still useful');
  });

  it('restructure never gives a merge of private notes to the writer; the rule merge is shown', async () => {
    const backend = recorder();
    const host = await startInProcessHost(FILES, { clock: { now: () => NOW }, backend, privateZones: ZONES });
    const plan = await host.curation.restructurePlan({ backend: 'claude' });
    const merges = plan.proposals.filter((p) => p.kind === 'merge');
    const of = (folder: string) => merges.find((p) => p.sources.every((s) => s.path.startsWith(folder)))!;
    expect(of('Journal/').reason).toMatch(/the rule merge is shown: a note is in a private folder Journal, never sent to a model/);
    expect(of('Notes/').reason).toMatch(/written by claude/);
    const sent = backend.requests.map((r) => r.user ?? '').join('\n');
    expect(sent).toContain('repository root');
    expect(sent).not.toMatch(PRIVATE_WORDS);
  });

  it('a private project\'s notes are never injected nor given over MCP; the person\'s own search finds them', async () => {
    const host = await startInProcessHost(FILES, { clock: { now: () => NOW }, privateZones: ZONES });
    const ctx = await host.engine.context({ event: 'UserPromptSubmit', prompt: 'when does the initech merger close, and the layoffs?', sessionId: 's1', project: 'initech', maxChars: 4000, maxItems: 5 });
    expect(ctx.text ?? '').not.toMatch(PRIVATE_WORDS);
    await host.engine.activity!.written();
    const rec = await host.engine.activity!.read({ session: 's1' });
    const inject = rec.entries.find((e) => e.kind === 'inject');
    expect(inject?.kind === 'inject' && inject.withheld).toEqual(expect.arrayContaining([{ path: 'Engram/Working memory/Initech merger.md', why: 'private project initech' }]));
    const recalled = (await host.call('recall', { query: 'initech merger layoffs' })) as { hits: { path: string }[] };
    expect(recalled.hits.map((h) => h.path)).not.toContain('Engram/Working memory/Initech merger.md');
    await expect(host.call('read', { ref: 'Engram/Working memory/Initech merger.md' })).rejects.toThrow(/private project initech: it is not given to agents/);
    const mine = await host.call('search', { query: 'initech merger layoffs' }) as { hits: { path: string }[] };
    expect(mine.hits.map((h) => h.path)).toContain('Engram/Working memory/Initech merger.md');
  });
});
