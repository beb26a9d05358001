// The host is the vault's one writer (docs/ARCHITECTURE.md invariant 3): with `engram serve` live, `engram forget`,
// `restructure --apply`, `extract`, `import` and `index --rebuild` are run by the host (its log says so) and its index answers
// for the change at once; the files are the same as without a host; without a host the CLI works alone and starts none.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostConnection } from '../../sidecar/hosting/connection.js';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, pidsFromLocks, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

const transcript = path.join(repoRoot, 'tests/fixtures/extract/markers-c.jsonl');
const claudeExport = path.join(repoRoot, 'tests/fixtures/extract/claude-ai-export.json');
const chatgptExport = path.join(repoRoot, 'tests/fixtures/extract/chatgpt-export.json');
const notes: Record<string, string> = {
  'Notes/Use pnpm.md': '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository.\n',
  'Notes/Use pnpm please.md': '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository!\n',
  'Notes/Index.md': 'See [[Use pnpm please|the rule]].\n',
  'Engram/Inbox/Wrong claim.md': '---\nengram_id: w1\n---\nZebra migrations happen every Tuesday, a claim that turned out wrong.\n',
};

/** Every file of the vault with its text; times of day masked (a log line or a note stamped a second later). */
function vaultFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      // The host's lease (.engram/) is there only while a host runs.
      if (r === '.engram') continue;
      if (e.isDirectory()) walk(r);
      else out[r] = fs.readFileSync(path.join(dir, r), 'utf8').replace(/\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?/g, 'hh:mm');
    }
  };
  walk('');
  return out;
}

function hostLog(sb: Sandbox): string {
  const dir = path.join(sb.engramHome, 'logs');
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => n.startsWith('host-')) : undefined;
  return file ? fs.readFileSync(path.join(dir, file), 'utf8') : '';
}

function hostSocket(sb: Sandbox): Promise<string> {
  return waitFor(() => {
    const d = path.join(sb.env.XDG_RUNTIME_DIR!, 'engram');
    const f = fs.existsSync(d) ? fs.readdirSync(d).find((n) => n.endsWith('.sock')) : undefined;
    return f && path.join(d, f);
  }, 10_000, 'the socket');
}

async function ask(sb: Sandbox, method: string, params: unknown): Promise<unknown> {
  const socket = await hostSocket(sb);
  const conn = await HostConnection.open({ socket, env: sb.env, deadline: Date.now() + 10_000, client: 'test' });
  try {
    return await conn.request(method, params, Date.now() + 10_000);
  } finally {
    conn.close();
  }
}

/** A request with progress notifications: the notifications received, then the result, in the order they came. */
async function streamed(sb: Sandbox, method: string, params: Record<string, unknown>): Promise<{ events: Array<{ method: string; params: unknown } | { result: unknown }> }> {
  const socket = await hostSocket(sb);
  const conn = await HostConnection.open({ socket, env: sb.env, deadline: Date.now() + 10_000, client: 'test' });
  const events: Array<{ method: string; params: unknown } | { result: unknown }> = [];
  conn.onNotification = (method, p) => events.push({ method, params: p });
  try {
    events.push({ result: await conn.request(method, params, Date.now() + 30_000) });
  } finally {
    conn.close();
  }
  return { events };
}

async function recallPaths(sb: Sandbox, query: string): Promise<string[]> {
  const r = (await ask(sb, 'recall', { query, limit: 20 })) as { hits: Array<{ path: string }> };
  return r.hits.map((h) => h.path);
}

function sandbox(): Sandbox {
  const sb = makeSandbox();
  // The vault with a host and the one without are the same machine: one device id, so one change log name.
  fs.writeFileSync(path.join(sb.engramHome, 'device.json'), JSON.stringify({ format: 1, id: '0123456789abcdef0123456789abcdef' }));
  for (const [rel, text] of Object.entries(notes)) sb.writeNote(rel, text);
  return sb;
}

async function startHost(sb: Sandbox): Promise<number> {
  const child = sb.serve({}, { embeddings: false });
  await waitFor(() => (JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout || '{}') as { host?: { index?: { ready?: boolean } } }).host?.index?.ready, 15_000, 'the host index');
  return child.pid!;
}

describe('CLI write commands with a live host', () => {
  const boxes: Sandbox[] = [];
  const box = () => {
    const sb = sandbox();
    boxes.push(sb);
    return sb;
  };
  afterEach(async () => {
    for (const sb of boxes.splice(0)) await sb.cleanup();
  });

  it('engram forget and maintain --apply: the host archives the notes, recall drops them at once, same files and output as without a host', async () => {
    const direct = box();
    const alone = runCli(['forget', 'Wrong claim'], { env: direct.env });
    expect(alone.code).toBe(0);
    // No host was started for it.
    expect(pidsFromLocks(direct.engramHome)).toEqual([]);
    expect(hostLog(direct)).toBe('');

    const hosted = box();
    await startHost(hosted);
    expect(await recallPaths(hosted, 'zebra migrations Tuesday')).toContain('Engram/Inbox/Wrong claim.md');
    const r = runCli(['forget', 'Wrong claim'], { env: hosted.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(alone.stdout);
    expect(hostLog(hosted)).toContain('forget Wrong claim for cli');
    expect(await recallPaths(hosted, 'zebra migrations Tuesday')).not.toContain('Engram/Inbox/Wrong claim.md');
    expect(vaultFiles(hosted.vault)).toEqual(vaultFiles(direct.vault));

    // maintain --apply too: the expired note is archived by the host and leaves recall at once.
    const expired = '---\nforget_after: 2020-01-01\nengram_id: x1\n---\nOkapi sightings are logged in the wiki.\n';
    for (const sb of [direct, hosted]) sb.writeNote('Engram/Inbox/Expired.md', expired);
    const maintainAlone = runCli(['maintain', '--apply'], { env: direct.env });
    expect(maintainAlone.code).toBe(0);
    await waitFor(async () => (await recallPaths(hosted, 'okapi sightings wiki')).includes('Engram/Inbox/Expired.md'), 10_000, 'the host to see the new note');
    const maintained = runCli(['maintain', '--apply'], { env: hosted.env });
    expect(maintained.code).toBe(0);
    // (The stale list differs by design: the host's recall above counts as a recall of that note.)
    const archivedPart = (out: string) => out.split('\nStale')[0];
    expect(archivedPart(maintained.stdout)).toBe(archivedPart(maintainAlone.stdout));
    expect(maintained.stdout).toContain('Archived 1 note.');
    expect(hostLog(hosted)).toContain('maintain.run for cli');
    expect(await recallPaths(hosted, 'okapi sightings wiki')).not.toContain('Engram/Inbox/Expired.md');
    expect(vaultFiles(hosted.vault)).toEqual(vaultFiles(direct.vault));
    expect(pidsFromLocks(direct.engramHome)).toEqual([]);

    // An error is the CLI's own one line, exit 1.
    const missing = runCli(['forget', 'Nothing like this'], { env: hosted.env });
    expect(missing.code).toBe(1);
    expect(missing.stderr.split('\n')[0]).toMatch(/^engram forget: /);
  });

  it('engram restructure --apply: the host applies the merge; recall sees only the kept note; same files as without a host', async () => {
    const mergeId = (sb: Sandbox) => {
      const list = runCli(['restructure', '--json'], { env: sb.env });
      return (JSON.parse(list.stdout) as { proposals: Array<{ id: string; kind: string }> }).proposals.find((p) => p.kind === 'merge')!.id;
    };
    const direct = box();
    const alone = runCli(['restructure', '--apply', mergeId(direct)], { env: direct.env });
    expect(alone.code).toBe(0);
    expect(pidsFromLocks(direct.engramHome)).toEqual([]);

    const hosted = box();
    await startHost(hosted);
    const id = mergeId(hosted);
    const r = runCli(['restructure', '--apply', id, '--json'], { env: hosted.env });
    expect(r.code).toBe(0);
    const applied = (JSON.parse(r.stdout) as { applied: Array<{ id: string; ok: boolean; result: { trashed: string[] } }> }).applied;
    expect(applied[0]).toMatchObject({ id, ok: true });
    expect(hostLog(hosted)).toContain(`curate.apply ${id} for cli`);
    const hits = await recallPaths(hosted, 'pnpm install repository');
    const present = Object.keys(notes).filter((p) => p.startsWith('Notes/Use') && fs.existsSync(path.join(hosted.vault, p)));
    expect(present).toHaveLength(1);
    expect(hits.filter((p) => p.startsWith('Notes/Use'))).toEqual(present);
    expect(vaultFiles(hosted.vault)).toEqual(vaultFiles(direct.vault));
  });

  it('engram extract (rules backend): run as a host job; the new notes are found at once; same files and output as without a host', async () => {
    const direct = box();
    const alone = runCli(['extract', transcript, '--backend', 'rules'], { env: direct.env });
    expect(alone.code).toBe(0);
    expect(pidsFromLocks(direct.engramHome)).toEqual([]);

    const hosted = box();
    await startHost(hosted);
    expect(await recallPaths(hosted, 'deploys release branch')).toEqual([]);
    const r = runCli(['extract', transcript, '--backend', 'rules'], { env: hosted.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(alone.stdout);
    expect(hostLog(hosted)).toContain(`extract ${transcript} for cli`);
    expect((await recallPaths(hosted, 'deploys release branch')).length).toBeGreaterThan(0);
    expect(vaultFiles(hosted.vault)).toEqual(vaultFiles(direct.vault));
    // Nothing new the second time, through the host too.
    expect(runCli(['extract', transcript, '--backend', 'rules'], { env: hosted.env }).stdout).toMatch(/nothing new to extract/);
  });

  it('engram import (Claude.ai and ChatGPT exports): run as one host job; the notes are found at once; same output and files as without a host; a second import adds nothing', async () => {
    const imports = (sb: Sandbox) => [
      runCli(['import', claudeExport, '--backend', 'rules'], { env: sb.env }),
      runCli(['import', chatgptExport, '--backend', 'rules', '--json'], { env: sb.env }),
    ];
    // Durations differ between two runs; everything else must not.
    const masked = (out: string) => out.replace(/"(ms|durationMs|elapsedMs)": \d+/g, '"$1": 0');
    const direct = box();
    const alone = imports(direct);
    for (const r of alone) expect(r.code).toBe(0);
    expect(pidsFromLocks(direct.engramHome)).toEqual([]);

    const hosted = box();
    await startHost(hosted);
    expect(await recallPaths(hosted, 'passport expires renew')).toEqual([]);
    const [claude, gpt] = imports(hosted);
    expect(claude.code).toBe(0);
    expect(claude.stdout).toBe(alone[0].stdout);
    expect(claude.stdout).toMatch(/3 conversations \(0 already done\), wrote 3 notes/);
    // The progress lines of a run without a terminal, printed when the host's run ends.
    expect(claude.stderr).toBe(alone[0].stderr);
    expect(claude.stderr).toMatch(/\[#+\] 3\/3 conversations/);
    expect(gpt.code).toBe(0);
    expect(masked(gpt.stdout)).toBe(masked(alone[1].stdout));
    expect((JSON.parse(gpt.stdout) as { conversations: number; created: number }).created).toBe(1);
    expect(hostLog(hosted)).toContain(`import ${claudeExport} for cli`);
    expect(hostLog(hosted)).toContain(`import ${chatgptExport} for cli`);
    const claudeNote = (await recallPaths(hosted, 'passport expires renew')).find((p) => fs.readFileSync(path.join(hosted.vault, p), 'utf8').includes('engram_source: import-claude'));
    expect(claudeNote).toBeDefined();
    const gptNote = (await recallPaths(hosted, 'home server backups NAS')).find((p) => fs.readFileSync(path.join(hosted.vault, p), 'utf8').includes('engram_source: import-chatgpt'));
    expect(gptNote).toBeDefined();
    expect(vaultFiles(hosted.vault)).toEqual(vaultFiles(direct.vault));
    // Nothing new the second time, through the host too.
    const before = vaultFiles(hosted.vault);
    const again = runCli(['import', claudeExport, '--backend', 'rules'], { env: hosted.env });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/3 conversations \(3 already done\), wrote 0 notes/);
    expect(vaultFiles(hosted.vault)).toEqual(before);
    // Streamed, the progress lines come as notifications before the answer, not in it.
    const { events } = await streamed(hosted, 'import.run', { path: chatgptExport, backend: 'rules' });
    const last = events.at(-1) as { result: { conversations: number; resumed: number; created: number } };
    expect(last.result).toMatchObject({ conversations: 1, resumed: 1, created: 0 });
    expect(events.slice(0, -1)).toEqual([{ method: 'import.progress', params: { done: 1, total: 1, created: 0 } }]);
    // A missing file is refused by the CLI itself, as without a host.
    const missing = runCli(['import', path.join(hosted.root, 'nope.json')], { env: hosted.env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such file/);
  });

  it('engram index --rebuild: the host rebuilds and saves its snapshot (no second writer)', async () => {
    const hosted = box();
    const pid = await startHost(hosted);
    hosted.writeNote('Notes/Quokka.md', 'Quokkas live on Rottnest Island.\n');
    const r = runCli(['index', '--rebuild', '--json'], { env: hosted.env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { host: { pid: number }; rebuilt: boolean; notes: number; snapshot: string; snapshotBytes: number };
    expect(out).toMatchObject({ host: { pid }, rebuilt: true, notes: Object.keys(notes).length + 1 });
    expect(fs.statSync(out.snapshot).size).toBe(out.snapshotBytes);
    expect(await recallPaths(hosted, 'quokka Rottnest')).toContain('Notes/Quokka.md');
    expect(hostLog(hosted)).toMatch(/index rebuilt: \d+ notes/);
    // In a pipe, without --json: one line per step the host reports, on stderr, then the result on stdout.
    const piped = runCli(['index', '--rebuild'], { env: hosted.env });
    expect(piped.code).toBe(0);
    expect(piped.stderr.trim().split('\n')).toEqual([`rebuilding the index: reading every note (${Object.keys(notes).length + 1})`, 'saving the snapshot']);
    expect(piped.stdout).toMatch(/by the running host/);
    const planned = runCli(['restructure'], { env: hosted.env });
    expect(planned.code).toBe(0);
    expect(planned.stderr.trim().split('\n')).toEqual([`planning merges and splits over ${Object.keys(notes).length + 1} notes`]);
  });
});
