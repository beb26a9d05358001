// What a careful person approves (issue 22): merges only of one subject written twice, never template siblings,
// generated notes, templates or an index with its note; a merged note says nothing twice; splits only of notes with
// several subjects; a rejected proposal stays rejected until one of its notes changes.
import { describe, expect, it } from 'vitest';
import { handlesOf } from '../../../src/core/curate/evidence';
import { knownUnits, whatItAdds } from '../../../src/core/curate/what-it-adds';
import { Curation } from '../../../src/core/curate/service';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { describeProposal } from '../../../sidecar/cli/curate-output';
import { NOW, settings } from './fixtures';

const article =
  'Retries hide transient faults from users. We retry failed uploads with exponential backoff and jitter, at most five times. ' +
  'The first wait is two hundred milliseconds and each later wait doubles. After the fifth failure the upload is parked and the user sees why. ' +
  'Jitter spreads the retries of many clients so they do not hit the server at the same moment.';

function curation(files: Record<string, string>): { c: Curation; vault: MemoryVault } {
  const vault = new MemoryVault({ files, clock: { now: () => NOW } });
  const c = new Curation({ vault, state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW }, configDir: '.obsidian' });
  return { c, vault };
}

const person = (name: string, about: string) =>
  `---\ntags: [person]\ncategories: ["[[People]]"]\n---\n## About\n\n${about}\n\n## Links\n\n- [[Funding]]\n- [[Publishing]]\n\nThis page was made from the person template; fill in what you know.\n`;

describe('restructure proposes what a careful person approves', () => {
  it('merges one note written twice, with nothing said twice, and lists the kept note as written, not trashed', async () => {
    const { c } = curation({
      'Notes/Retry uploads.md': `---\ntags: [retries]\naliases: [Upload retries]\n---\n${article}\n`,
      'Archive/Retry uploads.md': `---\ntags: [uploads]\nsource: chat\n---\n${article}\n\n## Later\n\nMeasure how often the fifth retry fails.\n`,
      'Notes/Other.md': 'Bread needs time.\n',
    });
    const plan = await c.restructurePlan();
    const merges = plan.proposals.filter((p) => p.kind === 'merge');
    expect(merges).toHaveLength(1);
    const m = merges[0];
    expect(m.reason).toMatch(/^confidence [01]\.\d\d: the same name; 100% of the shorter note's own text in common/);
    const kept = m.writes[0];
    // The kept note gains only what it lacks: the new section, the other's tag and frontmatter key.
    expect(kept.text.match(/Jitter spreads/g)).toHaveLength(1);
    expect(kept.text).toContain('Measure how often the fifth retry fails.');
    expect(kept.text).toMatch(/tags:[\s\S]*retries[\s\S]*uploads/);
    expect(kept.text).toContain('source: chat');
    const lines = describeProposal(m);
    expect(lines.some((l) => l.includes(`trash   ${kept.path}`))).toBe(false);
    expect(lines.filter((l) => l.includes('trash')).length).toBe(1);
  });

  it('merges a note copied whole into a section of another into that note; its embeds then show that section', async () => {
    const steps = 'Separate the left side from the right side and never cross terms between them. Rewrite everything in sine and cosine before simplifying. Find a common denominator for the fractions on each side. Multiply by the conjugate when one minus cosine sits in a denominator.';
    const { c, vault } = curation({
      'Math/Trig Identities.md': `---\ntags: [math]\n---\nAn identity holds for every value of x, and each can be proved.\n\n# List of identities\n\n- [[Double angle]]\n\n# Proving identities techniques\n\n${steps}\n`,
      'Math/Proving Identities Techniques.md': `---\ntags: [math]\n---\n${steps}\n`,
      'Math/Exam prep.md': 'Before the exam:\n\n![[Proving Identities Techniques]]\n',
      'Math/Double angle.md': 'Sine of two x is two sine x cosine x.\n',
    });
    const plan = await c.restructurePlan();
    expect(plan.proposals.map((p) => p.title)).toEqual(['merge [[Proving Identities Techniques]] into [[Trig Identities]]']);
    const m = plan.proposals[0];
    expect(m.reason).toContain('all of Proving Identities Techniques.md is the section "proving identities techniques" of Trig Identities.md');
    // The kept note gains nothing but the other's name (the text is already there).
    expect(m.writes[0].text.match(/Multiply by the conjugate/g)).toHaveLength(1);
    expect(m.writes[0].text).toMatch(/aliases:\n\s+- Proving Identities Techniques/);
    const [out] = await c.apply([m.id]);
    expect(out.ok).toBe(true);
    expect((await vault.read('Math/Exam prep.md')).text).toContain('![[Trig Identities#Proving identities techniques]]');
    expect(await vault.exists('Math/Proving Identities Techniques.md')).toBe(false);
  });

  it('finds one person under a handle and a name; an author\'s handle names no note', async () => {
    const about = 'Wrote the first published program, for the Analytical Engine. She saw that the engine could act on symbols as well as numbers.';
    const { c } = curation({
      'People/Ada Lovelace.md': `---\ngithub: adal\n---\n${about} Her notes on the engine run longer than the paper they annotate.\n`,
      'People/adal.md': `Met at the meetup. ${about}\n`,
      'Articles/Engines.md': `---\nauthors: [adal]\ngithub_id: adal\n---\nDifference engines tabulate polynomials by repeated addition, without any multiplication at all.\n`,
    });
    const plan = await c.restructurePlan();
    expect(plan.proposals.map((p) => p.title)).toEqual(['merge [[adal]] into [[Ada Lovelace]]']);
    expect(plan.proposals[0].reason).toMatch(/the same name/);
    expect(handlesOf('---\nauthors:\n  - fuatto\ngithub_id: fuatto\n---\n')).toEqual([]);
    expect(handlesOf('---\ntwitter: "@adal"\n---\n')).toEqual(['adal']);
  });

  it("leaves out the templates folders Obsidian's Templates and Templater settings name", async () => {
    const agenda = 'Write the agenda the day before and send it to everyone invited. Each item names who leads it and how long it takes. Decisions go at the top of the notes, with who acts on them and by when.';
    const files = {
      'Skeletons/Meeting.md': `---\ntags: [meeting]\n---\n${agenda}\n`,
      'Skeletons/Meeting copy.md': `---\ntags: [meeting]\n---\n${agenda}\n`,
      'Blueprints/Retry.md': `${article}\n`,
      'Blueprints/Retry copy.md': `${article}\n`,
    };
    const planned = async (extra: Record<string, string>) => (await curation({ ...files, ...extra }).c.restructurePlan()).proposals.map((p) => p.sources.map((s) => s.path).join(' + '));
    expect(await planned({})).toHaveLength(2);
    expect(await planned({ '.obsidian/templates.json': '{"folder":"Skeletons/"}' })).toEqual(['Blueprints/Retry copy.md + Blueprints/Retry.md']);
    const both = { '.obsidian/templates.json': '{"folder":"Skeletons"}', '.obsidian/plugins/templater-obsidian/data.json': '{"templates_folder":"Blueprints"}' };
    expect(await planned(both)).toEqual([]);
    // A settings file that is not JSON is no folder, and loses nothing.
    expect(await planned({ '.obsidian/templates.json': '{folder' })).toHaveLength(2);
  });

  it('merges "X 1" beside "X" with the same tags (Obsidian\'s second note of one title), not a numbered series', async () => {
    const { c } = curation({
      'Linux/Appimage.md': '---\ntags: [linux]\n---\nA way of bundling software by combining all resources into one executable.\n',
      'Linux/Appimage 1.md': '---\ntags: [linux]\n---\nA single file holding everything an app needs; make it executable and run it.\n',
      'Law/Track.md': '---\ntags: [law]\n---\nThe overview of both tracks and who may ask for them.\n',
      'Law/Track 1.md': '---\ntags: [law]\n---\nThe first track: a natural death must be foreseeable.\n',
      'Law/Track 2.md': '---\ntags: [law]\n---\nThe second track: no foreseeable death, and a ninety day wait.\n',
    });
    const plan = await c.restructurePlan();
    expect(plan.proposals.map((p) => p.title)).toEqual(['merge [[Appimage 1]] into [[Appimage]]']);
    expect(plan.proposals[0].reason).toContain("Obsidian's name for a second note given the same title");
  });

  it('a note that says it duplicates another is merged; "same as" or "duplicated" in a sentence says nothing of the sort', async () => {
    const said = await curation({
      'Notes/Upload retries.md': `${article}\n`,
      'Inbox/Untitled 3.md': `See [[Upload retries]] instead: this one duplicates it.\n\n${article.split('. ').slice(0, 3).join('. ')}.\n`,
    }).c.restructurePlan();
    expect(said.proposals.map((p) => p.title)).toEqual(['merge [[Untitled 3]] into [[Upload retries]]']);
    expect(said.proposals[0].reason).toContain('one note says it duplicates the other');
    const compared = await curation({
      'Biology/Sleep.md': `---\ntags: [health]\n---\nThe period of rest characterised by several cycles of deep and light stages through the night.\n`,
      'IT/Power modes.md': `---\naliases: [Sleep]\ntags: [it]\n---\n# Hibernate\n\nSame as sleep, but the memory is written to the disk and waking takes longer as it is read back.\n`,
    }).c.restructurePlan();
    expect(compared.proposals).toEqual([]);
  });

  it('never merges template siblings, generated notes, templates, or an index with its note', async () => {
    const { c } = curation({
      'People/Ada Lovelace.md': person('Ada', 'Wrote the first published program, for the Analytical Engine.'),
      'People/Grace Hopper.md': person('Grace', 'Built the first compiler and popularised machine-independent languages.'),
      'Funding.md': 'Funding page.\n',
      'Publishing.md': 'Publishing page.\n',
      'Templates/Person.md': person('{{title}}', 'Who they are.'),
      'Templates/Person copy.md': person('{{title}}', 'Who they are.'),
      'Generated/Tags.md': `<!-- do not edit: generated -->\n${article}\n`,
      'Generated/Tags 2.md': `<!-- do not edit: generated -->\n${article}\n`,
      'Retry index.md': `# Retries\n\n- [[Retry uploads]]\n\n${article}\n`,
      'Retry uploads.md': `${article}\n`,
    });
    const plan = await c.restructurePlan();
    expect(plan.proposals.map((p) => p.title)).toEqual([]);
  });

  it('a rejected merge is not proposed again until one of its notes changes', async () => {
    const { c, vault } = curation({
      'Notes/Retry uploads.md': `${article}\n`,
      'Old/Retry uploads.md': `${article}\n`,
    });
    const first = await c.restructurePlan();
    expect(first.proposals).toHaveLength(1);
    expect(await c.reject([first.proposals[0].id])).toEqual([first.proposals[0].id]);
    const again = await c.restructurePlan();
    expect(again.proposals).toHaveLength(0);
    expect(again.rejected).toBe(1);
    const old = await vault.read('Old/Retry uploads.md');
    await vault.writeIfUnchanged('Old/Retry uploads.md', old.text, `${old.text}\nOne more line about it.\n`);
    expect((await c.restructurePlan()).proposals).toHaveLength(1);
  });

  it('splits a note of several subjects, keeping "See also" with it; not an article on one subject', async () => {
    const section = (h: string, word: string) => `## ${h}\n\n${`The ${word} part stands on its own and is long enough to be a note. `.repeat(60)}\n`;
    const several = `---\ntags: [misc]\n---\nThings I keep.\n\n${section('Bread', 'bread')}\n${section('Bikes', 'bike')}\n${section('Taxes', 'tax')}\n## See also\n\n${'- [[Funding]] and more words here to make it long enough.\n'.repeat(10)}`;
    const articleNote = `---\nsource: https://example.com/post\n---\n${section('Bread', 'bread')}\n${section('Bikes', 'bike')}\n${section('Taxes', 'tax')}`;
    const { c } = curation({ 'Misc.md': several, 'Post.md': articleNote, 'Funding.md': 'x\n' });
    const plan = await c.restructurePlan();
    const splits = plan.proposals.filter((p) => p.kind === 'split');
    expect(splits.map((p) => p.sources[0].path)).toEqual(['Misc.md']);
    const hub = splits[0].writes.find((w) => w.path === 'Misc.md')!;
    expect(hub.text).toContain('## See also');
    expect(splits[0].writes.map((w) => w.path).sort()).toEqual(['Misc - Bikes.md', 'Misc - Bread.md', 'Misc - Taxes.md', 'Misc.md']);
  });
});

describe('what a merged note adds to the kept note', () => {
  const kept =
    '| Lock | What it does |\n| ---- | ---- |\n| Row-level lock | The most granular level of locking, applied to a single row of data in a table. This allows for concurrent access to other rows in the same table. |\n\n' +
    'A deterministic Mealy machine has six parts, and its output depends on the state and the input.\n';

  it('leaves out a table whose rows it already has with a word changed, and the line that introduced it', () => {
    const source =
      'The following table describes these levels:\n\n| Lock | What it does |\n| ---- | ---- |\n' +
      '| Row-level lock | The most granular level of locking is applied to a single row of data in a table. This allows for concurrent access to other rows in the same table. |\n\n' +
      'Row locks wait for each other only on the same row.\n';
    const adds = whatItAdds(source, knownUnits(kept));
    expect(adds).toBe('Row locks wait for each other only on the same row.');
  });

  it('keeps a sentence that differs in a word that matters (another subject, another number), not one with a linking word changed', () => {
    const source =
      'A deterministic Moore machine has six parts, and its output depends on the state and the input.\n\n' +
      'A deterministic Mealy machine has seven parts, and its output depends on the state and the input.\n\n' +
      'A deterministic Mealy machine has six parts, and the output depends on the state and the input.\n';
    const adds = whatItAdds(source, knownUnits(kept)).split('\n\n');
    expect(adds).toEqual(['A deterministic Moore machine has six parts, and its output depends on the state and the input.', 'A deterministic Mealy machine has seven parts, and its output depends on the state and the input.']);
  });
});
