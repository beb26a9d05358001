// `engram review | restructure | maintain | forget` as real processes on a vault on disk, with a temporary
// ENGRAM_HOME; the review's model is the fake `claude` replaying a scripted reply.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { installFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

let tmp: string;
let vault: string;
let env: NodeJS.ProcessEnv;
let fake: FakeClaude;

const today = new Date().toISOString().slice(0, 10);
const notes: Record<string, string> = {
  'Notes/Use pnpm.md': '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository.\n',
  'Notes/Use pnpm please.md': '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository!\n',
  'Notes/Locked twin.md': '---\ntags: [tooling]\nlocked: true\n---\nWe use pnpm, not npm, for every install in this repository.\n',
  'Notes/Index.md': 'See [[Use pnpm please|the rule]], ![[Use pnpm please#Why]] and [[Locked twin]].\n',
  'Engram/Working memory/Flaky e2e.md': `---\nproject: app\ntags: [ci]\nreview_after: ${today}\n---\nThe e2e test flakes because the cache key ignores the lockfile.\n`,
  'Engram/Inbox/Wrong claim.md': '---\nengram_id: w1\n---\nA claim that turned out wrong.\n',
};

function write(rel: string, text: string): void {
  const file = path.join(vault, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function read(rel: string): string | undefined {
  const file = path.join(vault, rel);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

function engram(...args: string[]) {
  return runCli([...args, '--vault', vault], { env });
}

beforeAll(() => {
  tmp = makeTempDir('engram-curate-cli-');
  vault = path.join(tmp, 'vault');
  for (const [rel, text] of Object.entries(notes)) write(rel, text);
  fake = installFakeClaude(path.join(tmp, 'fake'));
  env = { ...fake.env, ENGRAM_HOME: path.join(tmp, 'home'), HOME: path.join(tmp, 'userhome'), ENGRAM_BACKEND: 'claude' };
});
afterAll(() => removeDir(tmp));

describe('engram restructure (CLI)', () => {
  let mergeId = '';
  it('lists proposals without changing the vault and stores them under ENGRAM_HOME', () => {
    const r = engram('restructure', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { pairsCompared: number; vectors: string; proposals: Array<{ id: string; kind: string; trash: string[] }> };
    expect(out.pairsCompared).toBeGreaterThan(0);
    const merge = out.proposals.find((p) => p.kind === 'merge')!;
    expect(merge.trash.sort()).toEqual(['Notes/Use pnpm please.md', 'Notes/Use pnpm.md']);
    mergeId = merge.id;
    for (const [rel, text] of Object.entries(notes)) expect(read(rel)).toBe(text);
    const dirs = fs.readdirSync(path.join(tmp, 'home', 'vaults'));
    expect(fs.existsSync(path.join(tmp, 'home', 'vaults', dirs[0], 'proposals', `${mergeId}.json`))).toBe(true);
  });

  it('applies by id in a later run: merged note written, links rewritten, originals in .trash, log entry, locked twin untouched', () => {
    const r = engram('restructure', '--apply', mergeId);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${mergeId}: applied merge`);
    const keeper = read('Notes/Use pnpm please.md') !== undefined ? 'Use pnpm please' : 'Use pnpm';
    const gone = keeper === 'Use pnpm' ? 'Use pnpm please' : 'Use pnpm';
    expect(read(`Notes/${gone}.md`)).toBeUndefined();
    expect(read(`.trash/Notes/${gone}.md`)).toBe(notes[`Notes/${gone}.md`]);
    expect(read(`.trash/Notes/${keeper}.md`)).toBe(notes[`Notes/${keeper}.md`]);
    expect(read(`Notes/${keeper}.md`)).toContain(`aliases:\n  - ${gone}\n`);
    expect(read('Notes/Index.md')).toBe(`See [[${keeper}|the rule]], ![[${keeper}#Why]] and [[Locked twin]].\n`);
    expect(read('Notes/Locked twin.md')).toBe(notes['Notes/Locked twin.md']);
    const logs = fs.readdirSync(path.join(vault, 'Engram', 'Log'));
    expect(logs).toHaveLength(1);
    expect(fs.readFileSync(path.join(vault, 'Engram', 'Log', logs[0]), 'utf8')).toContain(`cli · restructure merge · proposal \`${mergeId}\``);
  });

  it('refuses to apply twice, unknown ids, and --apply with --dry-run (one line, exit 1)', () => {
    expect(engram('restructure', '--apply', mergeId).stdout).toMatch(/already applied/);
    const unknown = engram('restructure', '--apply', 'abcdef123456');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/no proposal with id abcdef123456/);
    const both = engram('restructure', '--apply', 'abcdef123456', '--dry-run');
    expect(both.code).toBe(1);
    expect(both.stderr.split('\n')[0]).toBe('engram restructure: --dry-run and --apply cannot be used together');
  });

  it('refuses a stale proposal', () => {
    // Two notes Engram wrote (two ids; `A dup 2` is how it names the second): near-identical, yet not a sync copy.
    write('Notes/A dup.md', '---\ntags: [build]\nengram_id: d1\n---\nRun the build with esbuild and keep the bundle small.\n');
    write('Notes/A dup 2.md', '---\ntags: [build]\nengram_id: d2\n---\nRun the build with esbuild and keep the bundle small!\n');
    const out = JSON.parse(engram('restructure', '--json', '--folder', 'Notes').stdout) as { proposals: Array<{ id: string; kind: string; trash: string[] }> };
    const p = out.proposals.find((x) => x.trash.includes('Notes/A dup.md'))!;
    write('Notes/A dup.md', '---\ntags: [build]\n---\nEdited by the user meanwhile.\n');
    const r = engram('restructure', '--apply', p.id);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/stale: Notes\/A dup(?: 2)?\.md changed/);
    expect(read('Notes/A dup 2.md')).toContain('keep the bundle small!');
    expect(read('Notes/A dup.md')).toBe('---\ntags: [build]\n---\nEdited by the user meanwhile.\n');
  });
});

describe('engram review (CLI, fake claude)', () => {
  it('proposes from the model\'s reply and applies the promotion by id', () => {
    fake.setScript([
      {
        reply: JSON.stringify({
          decisions: [{ action: 'promote', notes: ['Engram/Working memory/Flaky e2e.md'], reason: 'cause known', note: { title: 'E2E flake: cache key ignores lockfile', summary: 'Stale CI cache.', type: 'problem', tags: ['ci'], links: [], body: 'The e2e test flaked because the CI cache key ignored the lockfile.' } }],
        }),
      },
    ]);
    const r = engram('review', '--json');
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { due: unknown[]; proposals: Array<{ id: string; kind: string }> };
    expect(out.due).toHaveLength(1);
    expect(out.proposals.map((p) => p.kind)).toEqual(['promote']);
    expect(fake.calls()).toHaveLength(1);
    expect(read('Engram/Working memory/Flaky e2e.md')).toBe(notes['Engram/Working memory/Flaky e2e.md']);
    const a = engram('review', '--apply', out.proposals[0].id);
    expect(a.code).toBe(0);
    expect(read('Engram/Projects/app/E2E flake cache key ignores lockfile.md')).toContain('The e2e test flaked because the CI cache key ignored the lockfile.');
    expect(read('.trash/Engram/Working memory/Flaky e2e.md')).toBe(notes['Engram/Working memory/Flaky e2e.md']);
  });

  it('rejects a bad horizon with one line', () => {
    const r = engram('review', '--due-within', 'soon');
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('engram review: --due-within takes a number of days such as 7d or 2w, got "soon"');
  });
});

describe('engram forget and maintain (CLI)', () => {
  it('forget moves the note to the archive at once; maintain --dry-run changes nothing', () => {
    const r = engram('forget', 'Wrong claim');
    expect(r.code).toBe(0);
    expect(read('Engram/Archive/Wrong claim.md')).toBe(notes['Engram/Inbox/Wrong claim.md']);
    expect(read('Engram/Inbox/Wrong claim.md')).toBeUndefined();
    write('Engram/Inbox/Expired.md', '---\nforget_after: 2020-01-01\nengram_id: x1\n---\nOld.\n');
    const dry = engram('maintain');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Engram/Inbox/Expired.md → Engram/Archive/Expired.md');
    expect(read('Engram/Inbox/Expired.md')).toBeDefined();
    const apply = engram('maintain', '--apply');
    expect(apply.code).toBe(0);
    expect(read('Engram/Archive/Expired.md')).toBeDefined();
    expect(read('Engram/Inbox/Expired.md')).toBeUndefined();
    expect(engram('forget', 'Locked twin').stderr).toMatch(/locked/);
    expect(engram('forget', 'Nothing like this').code).toBe(1);
  });
});
