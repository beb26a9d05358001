// Backfill and setup's backlog never list Engram's own nested calls (docs/ARCHITECTURE.md invariant 7): a `-engram-nested-XXXXXX`
// project folder (a nested call's temporary cwd), or a transcript whose first user message starts with the marker.
// tests/real/nested-claude.test.ts does the same with transcripts the real Claude Code CLI wrote.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listClaudeTranscripts } from '../../sidecar/install/transcripts.js';
import { isNestedCallFolder } from '../../sidecar/hosting/transcript-files.js';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

const fixtures = path.join(repoRoot, 'tests', 'fixtures', 'transcripts');

describe('transcript listing skips Engram\'s own calls', () => {
  let sb: Sandbox | undefined;
  afterEach(async () => {
    await sb?.cleanup();
    sb = undefined;
  });

  it('lists the user\'s session only', async () => {
    sb = makeSandbox();
    const projects = path.join(sb.home, '.claude', 'projects');
    const put = (folder: string, name: string, fixture: string) => {
      fs.mkdirSync(path.join(projects, folder), { recursive: true });
      fs.copyFileSync(path.join(fixtures, fixture), path.join(projects, folder, name));
    };
    put('-home-dev-projects-orbit', 'aaaaaaaa-0000-4000-8000-000000000001.jsonl', 'claude-all-types.jsonl');
    // An old nested call's transcript: its folder gives it away even though its user message has no marker.
    put('-tmp-engram-nested-AbC123', 'bbbbbbbb-0000-4000-8000-000000000002.jsonl', 'claude-all-types.jsonl');
    put('-private-var-folders-xy-T-engram-nested-Zz9Yy8', 'cccccccc-0000-4000-8000-000000000003.jsonl', 'claude-all-types.jsonl');
    // A transcript of Engram's prompt in an ordinary folder: the marker opens its first user message.
    put('-home-dev-projects-orbit', 'dddddddd-0000-4000-8000-000000000004.jsonl', 'engram-internal.jsonl');

    const listed = await listClaudeTranscripts({ HOME: sb.home, CLAUDE_CONFIG_DIR: path.join(sb.home, '.claude') });
    expect(listed.map((f) => f.sessionId)).toEqual(['aaaaaaaa-0000-4000-8000-000000000001']);
    const backfill = runCli(['backfill'], { env: { ...sb.env, ENGRAM_BACKEND: 'rules' } });
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(backfill.stdout).toMatch(/^1 transcripts,/m);
  });

  it('knows a nested call\'s folder from a user\'s folder of a similar name', () => {
    expect(isNestedCallFolder('-tmp-engram-nested-AbC123')).toBe(true);
    expect(isNestedCallFolder('-home-me-engram-nested-notes')).toBe(false);
    expect(isNestedCallFolder('-home-me-src-engram')).toBe(false);
  });
});
