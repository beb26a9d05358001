// Capture and recall agree on the project: extraction files a session under the project the hooks recall from, by
// the one resolver (`project` in .claude/engram.local.json, else the git top level's name, else the cwd's name).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { installFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

type HookOut = { hookSpecificOutput: { additionalContext: string } };

describe('one project resolver for capture and recall', () => {
  let sb: Sandbox;
  let fake: FakeClaude;
  let repo: string;
  let deep: string;
  beforeEach(() => {
    sb = makeSandbox();
    fake = installFakeClaude(path.join(sb.root, 'fake'));
    repo = path.join(sb.root, 'code', 'widgetd');
    deep = path.join(repo, 'src', 'deep');
    fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
    fs.mkdirSync(deep, { recursive: true });
  });
  afterEach(async () => sb.cleanup());

  /** The committed transcript, as if its session had run in `cwd`. */
  function transcriptIn(cwd: string): string {
    const text = fs.readFileSync(path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl'), 'utf8').replaceAll('"cwd":"/home/dev/acme"', `"cwd":${JSON.stringify(cwd)}`);
    const file = path.join(sb.root, 'transcripts', `${path.basename(cwd)}-${Date.now()}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  }

  const projectFolders = () => fs.readdirSync(path.join(sb.vault, 'Engram', 'Projects')).sort();

  it('a session in a subfolder of a repository is filed under the repository, and SessionStart there recalls it', async () => {
    fake.setScript([{ echo: true }]);
    const r = runCli(['extract', transcriptIn(deep), '--backend', 'claude'], { env: { ...sb.env, ...fake.env } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(projectFolders()).toEqual(['widgetd']);
    expect(JSON.parse(runCli(['parse', transcriptIn(deep), '--json'], { env: sb.env }).stdout)).toMatchObject({ meta: { project: 'widgetd' } });
    sb.serve();
    const ctx = await waitFor(() => {
      const out = runCli(['hook', 'SessionStart'], { env: sb.env, input: JSON.stringify({ session_id: `s-${Date.now()}`, cwd: deep, source: 'startup' }) }).stdout;
      return out && (JSON.parse(out) as HookOut).hookSpecificOutput.additionalContext;
    }, 15_000, 'SessionStart context');
    expect(ctx).toContain('Engram/Projects/widgetd/');
  });

  it('`project` in .claude/engram.local.json names the project for capture as for recall', () => {
    fs.mkdirSync(path.join(repo, '.claude'));
    fs.writeFileSync(path.join(repo, '.claude', 'engram.local.json'), JSON.stringify({ project: 'widgets' }));
    fake.setScript([{ echo: true }]);
    const r = runCli(['extract', transcriptIn(deep), '--backend', 'claude'], { env: { ...sb.env, ...fake.env } });
    expect(r.code).toBe(0);
    expect(projectFolders()).toEqual(['widgets']);
  });

  it('a session whose folder is gone since is still filed under its repository', () => {
    const gone = path.join(repo, 'tmp', 'scratch');
    fake.setScript([{ echo: true }]);
    const r = runCli(['extract', transcriptIn(gone), '--backend', 'claude'], { env: { ...sb.env, ...fake.env } });
    expect(r.code).toBe(0);
    expect(projectFolders()).toEqual(['widgetd']);
  });
});
