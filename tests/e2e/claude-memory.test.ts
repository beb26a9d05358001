// Claude Code's own auto memory through a real host: each memory file becomes a note with its provenance (in the
// activity record too), follows the file's changes, leaves a note the user edited alone, never touches the files,
// and the MEMORY.md index (which Claude Code loads itself) is never injected while a topic file may be.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { hostListening, makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import type { ActivityEntry, ActivityResult } from '../../src/core/activity/record.js';

const INDEX = '# Memory index\n- [Kafka retention](kafka_retention.md): kafka retention for acme topics is seven days\n';
const TOPIC = '---\nname: Kafka retention\ndescription: Kafka retention for acme topics is seven days\ntype: project\n---\nKafka retention for acme topics is seven days; compaction stays off.\n';

describe("Claude Code's own memory", () => {
  let sb: Sandbox;
  let memory: string;
  const memoryEntries = () => (JSON.parse(runCli(['activity', '--kind', 'memory', '--json'], { env: sb.env }).stdout) as ActivityResult).entries as Extract<ActivityEntry, { kind: 'memory' }>[];

  beforeEach(() => {
    sb = makeSandbox();
    memory = path.join(sb.home, '.claude', 'projects', '-home-dev-acme', 'memory');
    fs.mkdirSync(memory, { recursive: true });
    fs.writeFileSync(path.join(memory, 'MEMORY.md'), INDEX);
    fs.writeFileSync(path.join(memory, 'kafka_retention.md'), TOPIC);
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
  });
  afterEach(async () => sb.cleanup());

  it('imports each file as a note, follows its changes, and never edits the files', async () => {
    // The test host runs from the sources (tsx): its start is waited for on its own, then the import.
    await hostListening(sb, sb.serve({}, { sweepMs: 200 }));
    const first = await waitFor(() => {
      const e = memoryEntries();
      return e.length === 2 && e;
    }, 20_000, 'both files imported', sb.logs);
    expect(first.map((e) => [path.basename(e.source), e.action, e.path]).sort()).toEqual([
      ['MEMORY.md', 'created', 'Engram/Claude memory/acme/Claude memory index (acme).md'],
      ['kafka_retention.md', 'created', 'Engram/Claude memory/acme/Kafka retention.md'],
    ]);
    const topic = path.join(sb.vault, 'Engram/Claude memory/acme/Kafka retention.md');
    const note = fs.readFileSync(topic, 'utf8');
    expect(note).toMatch(/^engram_source: claude-memory$/m);
    expect(note).toMatch(/^project: acme$/m);
    expect(note).toContain('compaction stays off');
    expect(note).toMatch(/Imported from `[^`]*\/memory\/kafka_retention\.md`/);
    expect(fs.readFileSync(path.join(sb.vault, 'Engram/Claude memory/acme/Claude memory index (acme).md'), 'utf8')).toMatch(/^inject: false$/m);

    // The file changes: the note follows.
    fs.writeFileSync(path.join(memory, 'kafka_retention.md'), TOPIC.replace('seven days', 'fourteen days').replace('seven days', 'fourteen days'));
    await waitFor(() => fs.readFileSync(topic, 'utf8').includes('fourteen days'), 20_000, 'the note updated');
    // The user edits the note in the vault; the next change of the file leaves it alone, and says so.
    fs.appendFileSync(topic, '\nMy own remark.\n');
    fs.writeFileSync(path.join(memory, 'kafka_retention.md'), TOPIC.replace('seven days', 'thirty days'));
    const left = await waitFor(() => memoryEntries().find((e) => e.action === 'left alone'), 20_000, 'the edited note left alone');
    expect(left.why).toMatch(/edited in the vault/);
    expect(fs.readFileSync(topic, 'utf8')).toContain('My own remark.');
    expect(fs.readFileSync(topic, 'utf8')).not.toContain('thirty days');
    // Claude Code's files are as it wrote them.
    expect(fs.readFileSync(path.join(memory, 'MEMORY.md'), 'utf8')).toBe(INDEX);
    expect(fs.readdirSync(memory).sort()).toEqual(['MEMORY.md', 'kafka_retention.md']);
  });

  it('never injects the MEMORY.md index (Claude Code loads it itself); a topic file may be injected', async () => {
    // The test host runs from the sources (tsx): its start is waited for on its own, then the import.
    await hostListening(sb, sb.serve({}, { sweepMs: 200 }));
    await waitFor(() => memoryEntries().length === 2, 20_000, 'both files imported', sb.logs);
    const cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    const out = await waitFor(() => {
      const r = runCli(['hook', 'UserPromptSubmit'], { env: sb.env, input: JSON.stringify({ session_id: `s-${Date.now()}`, cwd, hook_event_name: 'UserPromptSubmit', prompt: 'what is the kafka retention for acme topics?' }) });
      return r.stdout.includes('Kafka retention') && r.stdout;
    }, 20_000, 'the topic note injected', sb.logs);
    expect(out).not.toContain('Claude memory index');
    const injects = (JSON.parse(runCli(['activity', '--kind', 'inject', '--json'], { env: sb.env }).stdout) as ActivityResult).entries as Extract<ActivityEntry, { kind: 'inject' }>[];
    expect(injects.flatMap((e) => e.withheld)).toContainEqual({ path: 'Engram/Claude memory/acme/Claude memory index (acme).md', why: 'inject: false in its frontmatter' });
  });
});
