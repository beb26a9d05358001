// Odd notes as real vaults hold them (issue 21): no headings, a 277,000-character list, code blocks, frontmatter only,
// embeds, HTML. A note is found by the passage that answers, named as a person knows it, and a giant list never wins
// by holding every word somewhere.
import { describe, expect, it } from 'vitest';
import { chunkBody } from '../../../src/core/index/chunk.js';
import type { RankingConfig } from '../../../src/core/index/rank.js';
import { NO_CLOSE_MATCH } from '../../../src/core/index/search.js';
import { DEFAULT_BM25 } from '../../../src/core/index/text-index.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

async function built(files: Record<string, string>): Promise<VaultIndex> {
  const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
  await index.build();
  return index;
}

const WORDS = 'amber basil cedar delta ember fjord garnet harbor indigo juniper kestrel lagoon meadow nectar orchid pebble quartz raven saffron tundra'.split(' ');

const TOOLS = ['tables', 'sync', 'markdown', 'export'];

/**
 * About 2,000 one-line entries and 277,000 characters, like the community vault's plugin list: each entry is about
 * one thing, and the list as a whole holds every word of a question about one plugin.
 */
function giantList(): string {
  const lines: string[] = ['# Every plugin', ''];
  for (let i = 0; lines.join('\n').length < 277_000; i++) {
    const a = WORDS[i % WORDS.length];
    const b = WORDS[(i * 7 + 3) % WORDS.length];
    lines.push(`- [plugin-${i}](https://example.org/p/${i}) ${a} ${b} helper number ${i} for ${TOOLS[i % 4]} and other tools`);
  }
  return lines.join('\n');
}

describe('passages', () => {
  it('cuts a 277k list into bounded passages between its items, each under its heading', () => {
    const list = giantList();
    expect(list.length).toBeGreaterThanOrEqual(277_000);
    const chunks = chunkBody(list);
    expect(chunks.length).toBeGreaterThan(150);
    expect(Math.max(...chunks.map((c) => c.text.length))).toBeLessThanOrEqual(1600);
    expect(chunks.every((c) => c.heading === 'Every plugin')).toBe(true);
    // No entry is cut in two: every line of every passage is a whole list item.
    expect(chunks.every((c) => c.text.split('\n').every((l) => /^- \[plugin-\d+\]\(.*other tools$/.test(l)))).toBe(true);
  });

  it('a focused note beats a giant list that holds every query word somewhere', async () => {
    const index = await built({
      'Lists/All plugins.md': giantList(),
      'Plugins/Advanced Tables.md': '---\ntitle: Advanced Tables\n---\nEdit markdown tables: tab to the next cell, sync column widths, export tables.\n',
      'Other/Bread.md': 'Flour, water, salt.\n',
    });
    const hits = (await index.search('markdown tables sync export', { mode: 'bm25' })).hits;
    expect(hits[0].path).toBe('Plugins/Advanced Tables.md');
    // The list is still findable by what only it says, and quoted at the entry that answers.
    const one = (await index.search('plugin-1234', { mode: 'bm25' })).hits[0];
    expect(one.path).toBe('Lists/All plugins.md');
    expect(one.snippet).toContain('plugin-1234');
    expect(one.heading).toBe('Every plugin');
  });

  it('a long note without headings is cut at paragraphs into bounded passages', () => {
    const para = (i: number): string => `Paragraph ${i} ${'talks about river stones and moss '.repeat(8)}`.trim();
    const body = Array.from({ length: 20 }, (_, i) => para(i)).join('\n\n');
    const chunks = chunkBody(body);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.heading === undefined && c.text.length <= 1600)).toBe(true);
    expect(chunks.map((c) => c.text).join('\n\n')).toBe(body);
  });

  it('a # line inside a code block is code, not a heading; headings nest into a path', () => {
    const filler = 'Some words about deployment and servers. '.repeat(12);
    const body = `# Guide\n\n${filler}\n\n## Install\n\n${filler}\n\n\`\`\`bash\n# install the tool\nnpm i tool\n\`\`\`\n\n### Linux\n\n${filler}`;
    const chunks = chunkBody(body);
    expect(chunks.map((c) => c.heading)).toEqual(['Guide', 'Guide > Install', 'Guide > Install > Linux']);
    expect(chunks[1].text).toContain('# install the tool');
  });

  it('a note of frontmatter only is indexed by its title and metadata', async () => {
    const index = await built({ 'People/Jane Roe.md': '---\ntitle: Jane Roe\naliases: [JR]\ntags: [author]\nsummary: Wrote the river survey.\n---\n' });
    const hit = (await index.search('river survey', { mode: 'bm25' })).hits[0];
    expect(hit.path).toBe('People/Jane Roe.md');
    expect(hit.snippet).toBe('');
  });

  it('names a note by its frontmatter title, else its first H1, else its file name; aliases find it', async () => {
    const index = await built({
      'plugins/table-editor-obsidian.md': '---\ntitle: Advanced Tables\naliases: [Table Editor]\n---\nBetter markdown tables.\n',
      'guides/sync-setup.md': '# Setting up Sync\n\nOpen settings and sign in to sync your vault.\n',
      'notes/plain-name.md': 'Nothing but text about sync and settings.\n',
      // Several H1s are section labels (a Zettelkasten habit), not the note's name.
      'notes/Renaming variables.md': '# Law\nRename a bound variable in sync settings.\n# Example\nx becomes y.\n',
    });
    const byTitle = (await index.search('advanced tables', { mode: 'bm25' })).hits[0];
    expect(byTitle).toMatchObject({ path: 'plugins/table-editor-obsidian.md', title: 'Advanced Tables' });
    expect((await index.search('table editor', { mode: 'bm25' })).hits[0].path).toBe('plugins/table-editor-obsidian.md');
    const hits = (await index.search('sync settings', { mode: 'bm25' })).hits;
    expect(hits.find((h) => h.path === 'guides/sync-setup.md')?.title).toBe('Setting up Sync');
    expect(hits.find((h) => h.path === 'notes/plain-name.md')?.title).toBe('plain-name');
    expect(hits.find((h) => h.path === 'notes/Renaming variables.md')?.title).toBe('Renaming variables');
  });

  it('snippets leave out HTML buttons and show what an embed embeds', async () => {
    const index = await built({
      'plugins/calendar.md': '<button class="open" onclick="x()">Open in Obsidian</button>\n\nShows a calendar of your daily notes.\n\n![[Calendar setup#Options]]\n\n![[screenshot.png]]\n',
    });
    const hit = (await index.search('calendar daily notes', { mode: 'bm25' })).hits[0];
    expect(hit.snippet).not.toMatch(/button|onclick|Open in Obsidian/);
    expect(hit.snippet).toContain('Shows a calendar of your daily notes.');
    expect(hit.snippet).toContain('(embeds Calendar setup > Options)');
    expect(hit.snippet).not.toContain('screenshot');
  });

  it('excerpts leave out lines that repeat across many notes (a template footer), not a line a few notes share', async () => {
    const files: Record<string, string> = {};
    const footer = 'Made with the Community Template — star the repository and share it with friends';
    for (let i = 0; i < 8; i++) files[`plugins/p${i}.md`] = `${WORDS[i]} ${WORDS[i + 1]} plugin for ${WORDS[i + 2]} notes.\n\n${footer}\n`;
    const shared = 'Maintained by the kestrel lagoon team since last spring';
    files['a.md'] = `Orchid pebble quartz is how the garden grows.\n${shared}\n`;
    files['b.md'] = `Raven saffron tundra is a cold place.\n${shared}\n`;
    files['code.md'] = `Fjord setup:\n\n\`\`\`\n${footer}\n\`\`\`\n`;
    const index = await built(files);
    const hit = (await index.search('plugin for garnet', { mode: 'bm25' })).hits.find((h) => h.path === 'plugins/p4.md')!;
    expect(hit.snippet).toContain('ember fjord plugin for garnet notes.');
    expect(hit.snippet).not.toContain('Community Template');
    // The same from a saved snapshot, whose notes were never added one by one.
    const loaded = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    loaded.loadSnapshot(index.snapshot());
    const again = (await loaded.search('plugin for garnet', { mode: 'bm25' })).hits.find((h) => h.path === 'plugins/p4.md')!;
    expect(again.snippet).toBe(hit.snippet);
    // Inside a code block the line is the code, kept.
    expect((await index.search('fjord setup', { mode: 'bm25' })).hits[0].snippet).toContain('Community Template');
    // Two notes sharing a line is not boilerplate.
    expect((await index.search('orchid pebble', { mode: 'bm25' })).hits[0].snippet).toContain('kestrel lagoon team');
    // Notes removed: the footer is no longer common, and shows again (the counts follow edits).
    for (let i = 0; i < 5; i++) index.remove(`plugins/p${i}.md`);
    const after = (await index.search('plugin for indigo', { mode: 'bm25' })).hits.find((h) => h.path === 'plugins/p6.md')!;
    expect(after.snippet).toContain('Community Template');
  });

  it('a note named for what is asked ranks above a passage of another note that uses the same words', async () => {
    const files = {
      'Math/Finding Eigenvectors.md': 'A tedious process.\n\n1. Take the characteristic polynomial of the matrix.\n2. Its roots are the eigenvalues.\n3. For each, solve (M - kI)x = 0 to get the eigenvectors.\n',
      'Math/Diagonalization.md': `${'Some words about bases. '.repeat(40)}\n\n## Process\n\nFind the eigenvectors of the matrix, then find the eigenvectors of each eigenvalue of the matrix; to find the eigenvectors of the matrix is the work, and the eigenvectors of the matrix go in columns.\n`,
      'Other.md': 'Nothing about linear algebra here, just words about bases and a tedious process.',
    };
    const top = async (ranking?: Partial<RankingConfig>): Promise<string> => {
      const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield, ...(ranking ? { ranking } : {}) });
      await index.build();
      return (await index.search('how to find the eigenvectors of a matrix', { mode: 'bm25' })).hits[0].path;
    };
    expect(await top()).toBe('Math/Finding Eigenvectors.md');
    // Without the title's share, the passage that says the words more often wins.
    expect(await top({ bm25: { ...DEFAULT_BM25, titleCover: 0 } })).toBe('Math/Diagonalization.md');
  });

  it('a note whose passages hold different words of the question ranks above one whose passages repeat one of them', async () => {
    const pad = (w: string): string => `${WORDS.map((x) => `${x} ${w === x ? '' : 'stone'}`).join(' ')}. `.repeat(3);
    const files = {
      // Measuring changes behaviour, its sources (with the word "metrics") in a section of their own.
      'Spread.md': `${pad('a')}\n\nPeople adjust their behaviour once it is measured.\n\n## Sources\n\n${pad('b')}\n\nThe tyranny of metrics, a book.\n`,
      // Three sections that each say "behaviour" four times and never "metrics".
      'Repeats.md': [1, 2, 3].map((i) => `## Part ${i}\n\n${pad('c')}\n\nBehaviour, and behaviour again: behaviour, behaviour.\n`).join('\n'),
      'Dashboards.md': `${pad('d')}\n\nMetrics on the team's dashboards.`,
      'Cache.md': `${pad('e')}\n\nBehaviour of the build cache.`,
    };
    const top = async (ranking?: Partial<RankingConfig>): Promise<string> => {
      const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield, ...(ranking ? { ranking } : {}) });
      await index.build();
      return (await index.search('behaviour changes once metrics are tracked', { mode: 'bm25', relativeCut: false })).hits[0].path;
    };
    expect(await top()).toBe('Spread.md');
    // Counting the next passages whole, whatever they repeat, lets the note that says one word six times win.
    expect(await top({ bm25: { ...DEFAULT_BM25, restChunks: 0.2, restTerms: 0 } })).toBe('Repeats.md');
  });

  it('frontmatter that does not parse (an unfilled template) stays out of the excerpt and is searched as properties', async () => {
    const index = await built({
      'Templates/Stock Trade Template.md': '---\ndate: {{date}}\ntrade:\ntags:\n  - investment\nprice:\nshares:\ncategories:\n  - "[[Trades]]"\n---\n## Why I bought\n\n- \n',
    });
    const hit = (await index.search('template for a stock trade with price and shares', { mode: 'bm25' })).hits[0];
    expect(hit.path).toBe('Templates/Stock Trade Template.md');
    expect(hit.why.join('; ')).toMatch(/price/);
    // The fields asked about are what the excerpt shows first, without YAML marks or the template's {{date}}.
    expect(hit.snippet).not.toMatch(/---|date|\{\{/);
    expect(hit.snippet).toMatch(/^trade · price · shares · /);
    expect(hit.snippet).toContain('Why I bought');
  });

  it('an excerpt shows the frontmatter property a question asks about, when no passage holds the answer', async () => {
    const index = await built({
      'References/Bass on Top.md': '---\ncategories:\n  - "[[Albums]]"\nartist:\n  - "[[Paul Chambers]]"\nyear: 1957\ngenre: jazz\n---\n![[Albums.base#Artist]]\n',
      'References/Other album.md': '---\nyear: 1960\n---\nA jazz album on top of the charts.\n',
    });
    const hit = (await index.search('what year did the Bass on Top album come out', { mode: 'bm25' })).hits[0];
    expect(hit.path).toBe('References/Bass on Top.md');
    expect(hit.snippet).toMatch(/^categories: Albums · year: 1957 · /);
    expect(hit.snippet).not.toContain('genre');
  });

  it('search says "no close match" before hits that share little of the query', async () => {
    const index = await built({
      'Cooking/Bread.md': 'Knead the dough, let it rise overnight, bake at 220 degrees.\n',
      'Cooking/Soup.md': 'Simmer onions and carrots for soup.\n',
    });
    const off = await index.search('how tall is mount everest compared with the bread tower', { mode: 'bm25' });
    expect(off.hits.length).toBeGreaterThan(0);
    expect(off.notices[0]).toBe(NO_CLOSE_MATCH);
    const on = await index.search('knead dough rise overnight', { mode: 'bm25' });
    expect(on.notices).not.toContain(NO_CLOSE_MATCH);
    expect(on.hits[0].coverage).toBe(1);
  });

  it('leaves out hits that share far less of the query than the best one (a long list saying one common word)', async () => {
    const advice = Array.from({ length: 60 }, (_, i) => `- Bit ${i}: take your time with ${WORDS[i % WORDS.length]}, time and again it pays.`);
    const index = await built({
      'Clippings/Advice.md': `Sixty bits of advice.\n\n${advice.join('\n')}\n`,
      'Algorithms/Quicksort.md': 'Quicksort runs in n log n time on average; its worst-case complexity is quadratic.\n',
      'Algorithms/Mergesort.md': 'Mergesort keeps its time complexity at n log n, and is stable.\n',
      'Cooking/Bread.md': 'Knead the dough, let it rise overnight.\n',
    });
    const hits = (await index.search('time complexity of quicksort', { mode: 'bm25' })).hits.map((h) => h.path);
    expect(hits[0]).toBe('Algorithms/Quicksort.md');
    // Mergesort shares two of the three words: kept. The advice list shares the commonest one only: left out.
    expect(hits).toContain('Algorithms/Mergesort.md');
    expect(hits).not.toContain('Clippings/Advice.md');
    // Asked alone, the common word still finds the list.
    expect((await index.search('time', { mode: 'bm25' })).hits.map((h) => h.path)).toContain('Clippings/Advice.md');
  });

  it('quotes the passage whose own heading names what is asked, not a section under it that says the words more', async () => {
    const pad = 'Teams read it at every stand-up and planning meeting of the quarter. '.repeat(8);
    const index = await built({
      'Management/Data race and race condition.md': [
        '## What is a data race?',
        `A data race: two threads touch the same data at once, one of them writes, and no lock orders them. ${pad}`,
        '## Data race vs. race condition',
        `One is about memory access, the other about the timing and order of events. ${pad}`,
        '### Other cases',
        `A race condition without a data race: two atomic writes in the wrong order. ${pad}`,
      ].join('\n\n'),
      'Other/Bread.md': 'Knead the dough.\n',
    });
    const hit = (await index.search('difference between data race and race condition', { mode: 'bm25' })).hits[0];
    expect(hit.path).toBe('Management/Data race and race condition.md');
    // Its own heading, not a child's heading path that holds the same words.
    expect(hit.heading).toBe('Data race vs. race condition');
    expect(hit.snippet).toContain('timing and order');
    // Words of the note's title name every section: a heading that names another word of the question wins.
    const index2 = await built({
      'Frontend/Prevent Layout Thrashing.md': [
        '## What is layout thrashing',
        `Layout thrashing: the browser computes a layout, then another layout, thrashing in a loop. ${pad}${pad}`,
        '## How to debug',
        `Record a trace in the performance panel of the browser and look for forced reflows. ${pad}${pad}`,
      ].join('\n\n'),
      'Other/Bread.md': 'Knead the dough.\n',
    });
    const debug = (await index2.search('how to debug layout thrashing in the browser', { mode: 'bm25' })).hits[0];
    expect(debug.heading).toBe('How to debug');
  });

  it('a word of a short title does not outrank the passage that holds the rest of the question', async () => {
    const filler = (w: string): string => `${w} ${'notes on other matters and more words here. '.repeat(3)}`;
    const index = await built({
      // The devbox case of dwarvesf-brain: "Effective" stems as "effect", "Development" matches too.
      'devbox/Effective Development Environment.md': filler('A guide to shells and packages.'),
      'Frontend/useEffect double calls in React 18.md': filler('In development mode React runs every effect twice to find missing cleanups.'),
      'Other/Filler one.md': filler('Development of a garden.'),
      'Other/Filler two.md': filler('The effect of rain.'),
    });
    const hits = (await index.search('my effect runs twice in development mode', { mode: 'bm25' })).hits;
    expect(hits[0].path).toBe('Frontend/useEffect double calls in React 18.md');
  });

  it('finds a note by what its frontmatter says (author, guests), not only by its body', async () => {
    const index = await built({
      'Clippings/68 Bits of Unsolicited Advice.md': '---\ncategories: ["[[Clippings]]"]\nauthor: ["[[Kevin Kelly]]"]\nurl: https://kk.org/68\ncreated: 2023-09-12\n---\nIt is my birthday. Here are bits of advice.\n',
      // Without the frontmatter, this note says "birthday advice" more and wins.
      'References/Machines.md': 'Birthday advice: birthday advice for a machine is advice on oiling it.\n',
    });
    const hit = (await index.search('Kevin Kelly birthday advice', { mode: 'bm25' })).hits[0];
    expect(hit.path).toBe('Clippings/68 Bits of Unsolicited Advice.md');
    // Addresses and dates are not words of the note.
    expect((await index.search('kk.org', { mode: 'bm25' })).hits).toEqual([]);
  });

  it('indexes an Excalidraw drawing by its text elements, not its scene data', async () => {
    const scene = JSON.stringify({ elements: [{ type: 'rectangle', roundness: { type: 3 }, strokeColor: '#1e1e1e' }] }, null, 1);
    const index = await built({
      'Excalidraw/Pipeline.excalidraw.md': `---\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n---\n# Text Elements\nFetch decode execute ^Jb6eox1v\n\n%%\n# Drawing\n\`\`\`json\n${scene}\n\`\`\`\n%%\n`,
      'Math/Rounding.md': 'Rounding a number to the nearest integer.\n',
    });
    expect((await index.search('fetch decode execute', { mode: 'bm25' })).hits[0].path).toBe('Excalidraw/Pipeline.excalidraw.md');
    expect((await index.search('roundness strokeColor', { mode: 'bm25' })).hits.map((h) => h.path)).not.toContain('Excalidraw/Pipeline.excalidraw.md');
    expect((await index.search('Jb6eox1v', { mode: 'bm25' })).hits).toEqual([]);
  });

  it('a map of contents that names a note ranks below the note itself', async () => {
    const links = Array.from({ length: 60 }, (_, i) => `- [[Topic ${i}|Topic ${i} on ${WORDS[i % WORDS.length]}]]`);
    links.splice(30, 0, '- [[How Discord stores messages|How Discord Stores Messages: From MongoDB To Cassandra]]');
    const index = await built({
      'Engineering MOC.md': `A map of content.\n\n## Engineering\n\n${links.join('\n')}\n`,
      'Cooking/Bread.md': 'Knead the dough, let it rise overnight, bake at 220 degrees.\n',
      'Cooking/Soup.md': 'Simmer onions and carrots for soup, then post the recipe.\n',
      'How Discord stores messages.md': `In 2017 the team left MongoDB for Cassandra. ${'They measured reads, writes, compaction and garbage collection pauses for months. '.repeat(14)}`,
    });
    const hits = (await index.search('the post about Discord moving messages from MongoDB to Cassandra', { mode: 'bm25' })).hits;
    expect(hits.map((h) => h.path).slice(0, 2)).toEqual(['How Discord stores messages.md', 'Engineering MOC.md']);
  });
});
