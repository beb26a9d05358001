// What each MCP tool gives an agent, through the SDK's real client over stdio against the built `engram mcp` and a
// real host: text the client forwards (no structuredContent), sized for a model, and tools that act only as a user
// would expect (issue 10, "What reaches the model" and "Tools that do what they say").
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, runCli } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';

type Result = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown };

const engramNote = (id: string, body: string, extra = '') => `---\ntype: decision\nscope: general\n${extra}engram_id: ${id}\nengram_source: hook-extraction\n---\n${body}\n`;

let sb: Sandbox;
let client: Client;
afterEach(async () => {
  await client?.close().catch(() => undefined);
  await sb?.cleanup();
});

async function connect(env: NodeJS.ProcessEnv = sb.env, cwd = sb.root): Promise<Client> {
  client = new Client({ name: 'vitest', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp'], env: env as Record<string, string>, cwd, stderr: 'pipe' }));
  return client;
}

async function call(name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

describe('MCP results reach the model: text only, fenced note bodies, under 20,000 characters', () => {
  it('recall and read put the note body inside the fence, and no tool answers with structuredContent', async () => {
    sb = makeSandbox();
    sb.writeNote('Engram/Inbox/Use pnpm workspaces.md', engramNote('e1', 'We moved the monorepo to pnpm workspaces; installs went from 4 minutes to 40 seconds.'));
    await connect();
    // The compact list (the default) names the note and where to read it; `detail: full` adds the top notes' text.
    const list = await call('recall', { query: 'pnpm workspaces monorepo installs' });
    expect(list.content[0].text).toMatch(/- Use pnpm workspaces · Engram\/Inbox\/Use pnpm workspaces\.md · ~\d+ tok/);
    const recall = await call('recall', { query: 'pnpm workspaces monorepo installs', detail: 'full' });
    const read = await call('read', { ref: 'Use pnpm workspaces' });
    for (const r of [recall, read]) {
      expect(r.isError, r.content[0].text).toBeFalsy();
      expect(r.structuredContent).toBeUndefined();
      const t = r.content[0].text;
      const open = t.indexOf('<engram-memory');
      const close = t.indexOf('</engram-memory>');
      expect(open).toBeGreaterThanOrEqual(0);
      expect(t.indexOf('4 minutes to 40 seconds')).toBeGreaterThan(open);
      expect(t.indexOf('4 minutes to 40 seconds')).toBeLessThan(close);
    }
    for (const [name, args] of [['remember', { text: 'The CI cache key includes the lockfile hash.', type: 'insight' }], ['status', {}], ['review', {}], ['restructure', {}], ['reindex', {}], ['configure', { key: 'recall.prompt_items', value: 4 }]] as const) {
      const r = await call(name, args);
      expect(r.isError, `${name}: ${r.content[0].text}`).toBeFalsy();
      expect(r.structuredContent, name).toBeUndefined();
      expect(r.content[0].text.trimStart().startsWith('{'), `${name} answers with readable text, not raw JSON`).toBe(false);
    }
  });

  it('restructure on a vault with hundreds of proposals answers in under 20,000 characters, and shows one proposal in full on request', async () => {
    sb = makeSandbox();
    const topics = Array.from({ length: 160 }, (_, i) => `topic${i}`);
    for (const t of topics) {
      const text = `The ${t} service must restart its worker pool after every configuration reload, or stale connections linger for hours. ${'Details follow. '.repeat(40)}`;
      sb.writeNote(`Notes/${t} restart rule.md`, `---\ntags: [${t}]\n---\n${text}\n`);
      sb.writeNote(`Notes/${t} restart rule again.md`, `---\ntags: [${t}]\n---\n${text}!\n`);
    }
    await connect();
    const list = await call('restructure');
    expect(list.isError, list.content[0].text).toBeFalsy();
    const text = list.content[0].text;
    expect(text.length).toBeLessThanOrEqual(20_000);
    const ids = [...text.matchAll(/^- (\w+) · merge · /gm)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(10);
    expect(text).toMatch(/more lines not shown/);
    const one = await call('restructure', { show: ids[0] });
    expect(one.isError, one.content[0].text).toBeFalsy();
    expect(one.content[0].text.length).toBeLessThanOrEqual(20_000);
    expect(one.content[0].text).toContain(`Proposal ${ids[0]} (merge)`);
    expect(one.content[0].text).toMatch(/restart its worker pool after every configuration reload/);
    const unknown = await call('restructure', { show: 'nope' });
    expect(unknown.content[0].text).toMatch(/No current restructure proposal has id nope/);
  }, 120_000);
});

describe('engram mcp without a usable vault', () => {
  it('completes the handshake, lists its tools, and answers each tool with the problem and the fix', async () => {
    sb = makeSandbox();
    const env = { ...sb.env };
    delete env.ENGRAM_VAULT;
    await connect(env);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('recall');
    for (const name of ['recall', 'status']) {
      const r = await call(name, name === 'recall' ? { query: 'anything' } : {});
      expect(r.isError).toBe(true);
      expect(r.content[0].text).toMatch(/no vault configured/);
      expect(r.content[0].text).toMatch(/engram setup/);
    }
  });

  it('names a vault folder that does not exist', async () => {
    sb = makeSandbox();
    await connect({ ...sb.env, ENGRAM_VAULT: path.join(sb.root, 'gone') });
    const r = await call('recall', { query: 'anything' });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/vault path does not exist: .*gone/);
  });
});

describe('tools that do what they say', () => {
  it('forget refuses a title several notes share, listing their paths, and moves nothing (MCP and CLI)', async () => {
    sb = makeSandbox();
    sb.writeNote('01_literature/hr/mbti/note.md', engramNote('n1', 'MBTI reading notes.'));
    sb.writeNote('Projects/app/note.md', engramNote('n2', 'App notes.'));
    await connect();
    const r = await call('forget', { ref: 'note' });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toContain('01_literature/hr/mbti/note.md');
    expect(r.content[0].text).toContain('Projects/app/note.md');
    const cli = runCli(['forget', 'note'], { env: sb.env });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('01_literature/hr/mbti/note.md');
    expect(fs.existsSync(path.join(sb.vault, '01_literature/hr/mbti/note.md'))).toBe(true);
    expect(fs.existsSync(path.join(sb.vault, 'Projects/app/note.md'))).toBe(true);
    expect(fs.existsSync(path.join(sb.vault, 'Engram/Archive'))).toBe(false);
  });

  it('MCP forget acts only on notes Engram created; the user archives their own note only by its exact path in a terminal', async () => {
    sb = makeSandbox();
    sb.writeNote('Journal/My own thoughts.md', '---\ntags: [me]\n---\nThese are my own words.\n');
    await connect();
    for (const ref of ['My own thoughts', 'Journal/My own thoughts.md']) {
      const r = await call('forget', { ref });
      expect(r.isError, ref).toBe(true);
      expect(r.content[0].text).toMatch(/not a note Engram created/);
    }
    expect(fs.existsSync(path.join(sb.vault, 'Journal/My own thoughts.md'))).toBe(true);
    const byTitle = runCli(['forget', 'My own thoughts'], { env: sb.env });
    expect(byTitle.code).toBe(1);
    expect(byTitle.stderr).toContain('engram forget "Journal/My own thoughts.md"');
    const byPath = runCli(['forget', 'Journal/My own thoughts.md'], { env: sb.env });
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(fs.existsSync(path.join(sb.vault, 'Engram/Archive/My own thoughts.md'))).toBe(true);
  });

  it('never forgets a symbolic link, and never reads or recalls a link that leads out of the vault', async () => {
    sb = makeSandbox();
    const outside = path.join(sb.root, 'private');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.md'), 'The staging database password hint is zebra-harbor-42.\n');
    fs.mkdirSync(path.join(sb.vault, 'Notes'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(sb.vault, 'Notes/leak.md'));
    fs.symlinkSync(outside, path.join(sb.vault, 'Linked folder'));
    sb.writeNote('Engram/Inbox/Real note.md', engramNote('r1', 'The staging database lives in eu-west-1.'));
    fs.symlinkSync(path.join(sb.vault, 'Engram/Inbox/Real note.md'), path.join(sb.vault, 'Engram/Inbox/Alias of real.md'));
    await connect();
    const recall = await call('recall', { query: 'staging database password hint zebra harbor' });
    expect(recall.content[0].text).not.toContain('zebra-harbor-42');
    for (const ref of ['Notes/leak.md', 'leak', 'Linked folder/secret.md']) {
      const r = await call('read', { ref });
      expect(r.isError, ref).toBe(true);
      expect(r.content[0].text).not.toContain('zebra-harbor-42');
    }
    const link = await call('forget', { ref: 'Engram/Inbox/Alias of real.md' });
    expect(link.isError).toBe(true);
    expect(link.content[0].text).toMatch(/symbolic link/);
    expect(fs.lstatSync(path.join(sb.vault, 'Engram/Inbox/Alias of real.md')).isSymbolicLink()).toBe(true);
  });

  it('read finds a note by the title a user would say, or lists the closest titles', async () => {
    sb = makeSandbox();
    sb.writeNote('Zettel/202211141287 - Go JSON Parsing.md', '# Go JSON Parsing\n\nUse json.Decoder with DisallowUnknownFields for strict input.\n');
    sb.writeNote('Zettel/202211141290 - Go error wrapping.md', 'Wrap with %w.\n');
    await connect();
    const r = await call('read', { ref: 'Go JSON Parsing' });
    expect(r.isError, r.content[0].text).toBeFalsy();
    expect(r.content[0].text).toContain('DisallowUnknownFields');
    const miss = await call('read', { ref: 'Go JSON decoding' });
    expect(miss.isError).toBe(true);
    expect(miss.content[0].text).toMatch(/closest: .*202211141287 - Go JSON Parsing\.md/);
  });

  it('remember refuses blank text and unknown types (naming the vocabulary), and the same text twice writes one note', async () => {
    sb = makeSandbox();
    await connect();
    const blank = await call('remember', { text: '   \n\t ' });
    expect(blank.isError).toBe(true);
    expect(blank.content[0].text).toMatch(/empty or only whitespace/);
    const badType = await call('remember', { text: 'Prefer tabs in Makefiles.', type: 'banana' });
    expect(badType.isError).toBe(true);
    expect(badType.content[0].text).toMatch(/unknown note type "banana".*decision, correction, insight, problem, failed-approach, reference/);
    const first = await call('remember', { text: 'Releases are cut on Tuesdays, never on Fridays.', type: 'decision', scope: 'general' });
    expect(first.content[0].text).toMatch(/^Saved as Engram\/Inbox\/Releases are cut on Tuesdays, never on Fridays\.md$/);
    const second = await call('remember', { text: 'Releases are cut on Tuesdays,  never on Fridays.\n', type: 'decision', scope: 'general' });
    expect(second.isError).toBeFalsy();
    expect(second.content[0].text).toMatch(/^Already remembered in Engram\/Inbox\/Releases are cut on Tuesdays, never on Fridays\.md: nothing was written/);
    expect(fs.readdirSync(path.join(sb.vault, 'Engram/Inbox'))).toHaveLength(1);
    const note = fs.readFileSync(path.join(sb.vault, 'Engram/Inbox/Releases are cut on Tuesdays, never on Fridays.md'), 'utf8');
    // The note layer's key order (docs/ARCHITECTURE.md "Note format") and provenance.
    expect(note).toMatch(/^---\ntype: decision\nscope: general\nsummary: .*\ntags: \[\]\nrelated: \[\]\ncreated: .*\nupdated: .*\nengram_id: \w+\nengram_source: manual\n---\n/);
  });

  it('recall for a project with no notes says so and never returns another project\'s notes', async () => {
    sb = makeSandbox();
    sb.writeNote('Engram/Projects/alpha/Alpha deploys on Mondays.md', '---\ntype: decision\nscope: project\nproject: alpha\n---\nAlpha deploys happen on Mondays after the standup.\n');
    sb.writeNote('Engram/Inbox/Deploy checklist.md', '---\ntype: reference\nscope: general\n---\nEvery deploy runs the smoke checklist first.\n');
    await connect();
    const r = await call('recall', { query: 'when do deploys happen', project: 'beta' });
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toMatch(/No notes are filed under project "beta" yet/);
    expect(r.content[0].text).not.toContain('Mondays after the standup');
    expect(r.content[0].text).not.toContain('Alpha deploys on Mondays');
    // The compact list (recall's default) names the note by path; its text is one read away.
    const alpha = await call('recall', { query: 'when do deploys happen', project: 'alpha' });
    expect(alpha.content[0].text).not.toMatch(/No notes are filed under/);
    expect(alpha.content[0].text).toContain('Engram/Projects/alpha/Alpha deploys on Mondays.md');
  });

  it('since takes the same forms in MCP and the CLI, and names them when it cannot read one', async () => {
    sb = makeSandbox();
    sb.writeNote('Engram/Inbox/Cache rule.md', engramNote('c1', 'The build cache is keyed by the lockfile.'));
    await connect();
    for (const since of ['12h', '7d', '2w', '3m', '2025-01-01', 'last week']) {
      const r = await call('recall', { query: 'build cache lockfile', since });
      expect(r.isError, `${since}: ${r.content[0].text}`).toBeFalsy();
      const cli = runCli(['search', 'build cache lockfile', '--since', since], { env: sb.env });
      expect(cli.code, `${since}: ${cli.stderr}`).toBe(0);
    }
    const bad = await call('recall', { query: 'build cache', since: 'soonish' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/12h, 7d, 2w, 3m/);
    const badCli = runCli(['search', 'build cache', '--since', 'soonish'], { env: sb.env });
    expect(badCli.code).toBe(1);
    expect(badCli.stderr).toMatch(/12h, 7d, 2w, 3m/);
  });

  it('configure takes the CLI\'s keys with the CLI\'s ranges, and refuses the rest', async () => {
    sb = makeSandbox();
    await connect();
    const ok = await call('configure', { key: 'recall.prompt_items', value: 7 });
    expect(ok.isError, ok.content[0].text).toBeFalsy();
    const shown = runCli(['configure', '--json'], { env: sb.env });
    expect(JSON.stringify(JSON.parse(shown.stdout))).toMatch(/"recall\.prompt_items".*?7/);
    const oldName = await call('configure', { key: 'prompt_max_items', value: 3 });
    expect(oldName.isError).toBe(true);
    expect(oldName.content[0].text).toMatch(/recall\.prompt_items \(0–50\)/);
    const tooBig = await call('configure', { key: 'recall.prompt_items', value: 51 });
    expect(tooBig.isError).toBe(true);
    expect(tooBig.content[0].text).toMatch(/a whole number from 0 to 50/);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'configure')?.description).toContain('recall.prompt_items (0–50)');
  });
});

describe('search: the whole vault as a compact list, each hit opened by its id', () => {
  it('lists ten hits in under 1,500 characters, narrowed by folder and tag, and read opens a hit by the id it gave', async () => {
    sb = makeSandbox();
    const places = ['Lisbon', 'Porto', 'Madrid', 'Seville', 'Granada', 'Valencia', 'Bilbao', 'Toledo', 'Cordoba', 'Malaga', 'Cadiz', 'Girona', 'Braga', 'Faro'];
    for (const [i, place] of places.entries()) {
      sb.writeNote(`Travel/Iberia/${place} trip with a rather long file name to test the width.md`, `---\ntags: [${i % 2 ? 'rail' : 'bus'}]\n---\n# ${place}\n\nIntro about ${place}.\n\n## Getting there by overnight train\n\nThe overnight train to ${place} leaves at 22:10 and the sleeper berth costs ${40 + i} euros. ${'Bring earplugs and water for the long journey. '.repeat(30)}\n`);
    }
    sb.writeNote('Work/Overnight train expenses.md', 'Overnight train tickets are claimed as travel expenses within 30 days.\n');
    sb.writeNote('Engram/Projects/alpha/Release train.md', '---\ntype: decision\nscope: project\nproject: alpha\n---\nThe release train leaves every second Tuesday; an overnight train metaphor only.\n');
    await connect();
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'search')!;
    expect(tool.annotations?.readOnlyHint).toBe(true);
    // The schema is the host's own check (protocol params), so a bad argument is refused before the host sees it.
    expect(Object.keys((tool.inputSchema as { properties: object }).properties).sort()).toEqual(['folders', 'limit', 'query', 'since', 'tags', 'types']);
    expect((await call('search', { query: '' })).isError).toBe(true);
    expect((await call('search', { query: 'train', limit: 51 })).isError).toBe(true);

    const all = await call('search', { query: 'overnight train' });
    expect(all.isError, all.content[0].text).toBeFalsy();
    const t = all.content[0].text;
    expect(t.length, t).toBeLessThan(1500);
    const lines = t.split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toHaveLength(10);
    // Any project's notes and the user's own are searched (recall keeps to the current project).
    const everywhere = await call('search', { query: 'overnight train expenses claimed' });
    expect(everywhere.content[0].text).toContain('Work/Overnight train expenses.md');
    for (const line of lines) expect(line).toMatch(/^- .+ · \S.*\.md(#.+)? · ~\d+ tok(: .+)?$/);

    const inFolder = await call('search', { query: 'overnight train', folders: ['Work'] });
    const folderIds = inFolder.content[0].text.split('\n').filter((l) => l.startsWith('- ')).map((l) => l.split(' · ')[1]);
    expect(folderIds).toEqual(['Work/Overnight train expenses.md']);
    const rail = await call('search', { query: 'overnight train', tags: ['rail'], limit: 20 });
    const railIds = rail.content[0].text.split('\n').filter((l) => l.startsWith('- ')).map((l) => l.split(' · ')[1]);
    expect(railIds).toHaveLength(7);
    for (const id of railIds) expect(places.filter((_, i) => i % 2).some((p) => id.startsWith(`Travel/Iberia/${p} trip`)), id).toBe(true);

    // The id is whole (a long path is never cut) and read opens that passage, not the note's first lines.
    const id = lines.map((l) => l.split(' · ')[1]).find((x) => x.startsWith('Travel/'))!;
    expect(id).toMatch(/^Travel\/Iberia\/\w+ trip with a rather long file name to test the width\.md(#.+)?$/);
    const read = await call('read', { ref: id });
    expect(read.isError, read.content[0].text).toBeFalsy();
    expect(read.content[0].text).toMatch(/overnight train to \w+ leaves at 22:10/);
    expect(read.content[0].text).not.toMatch(/tags: \[/);
  });
});
