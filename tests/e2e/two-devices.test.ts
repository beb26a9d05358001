// One vault on two machines, simulated on one box: two devices (separate HOME, ENGRAM_HOME and runtime folders, so two
// device ids) over one vault folder, and over two folders that the test syncs both ways as a sync tool would (a file
// changed on both sides since the last sync keeps one version and leaves a Syncthing-style conflict copy). Capture
// (extract), review, restructure, maintain and forget run on both sides, as real processes: nothing is lost, nothing
// is duplicated, one device hosts at a time, and each device writes its own change log.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { thisDevice } from '../../sidecar/hosting/device.js';
import { leaseFile } from '../../sidecar/hosting/vault-lease.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { installFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { listFiles, makeTempDir, removeDir } from '../helpers/temp.js';

const transcript = path.join(repoRoot, 'tests/fixtures/extract/markers-c.jsonl');
const today = new Date().toISOString().slice(0, 10);
const seed: Record<string, string> = {
  'Notes/Use pnpm.md': '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository.\n',
  'Notes/Use pnpm please.md': '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository!\n',
  'Notes/Index.md': 'See [[Use pnpm please|the rule]] and [[Engram/Working memory/Flaky e2e]].\n',
  'Engram/Working memory/Flaky e2e.md': `---\nproject: app\ntags: [ci]\nreview_after: ${today}\nengram_id: f1\nengram_source: hook-extraction\n---\nThe e2e test flakes because the cache key ignores the lockfile.\n`,
  'Engram/Inbox/Wrong claim.md': '---\nengram_id: w1\n---\nZebra migrations happen every Tuesday, a claim that turned out wrong.\n',
  'Engram/Inbox/Old idea.md': '---\nengram_id: o1\n---\nThe staging cluster runs on spot instances.\n',
  'Engram/Inbox/Expired.md': '---\nforget_after: 2020-01-01\nengram_id: x1\n---\nOkapi sightings are logged in the wiki.\n',
};

interface Device {
  sb: Sandbox;
  vault: string;
  env: NodeJS.ProcessEnv;
  name: string;
  fake: FakeClaude;
}

const boxes: Sandbox[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const sb of boxes.splice(0)) await sb.cleanup();
  for (const d of dirs.splice(0)) removeDir(d);
});

function device(vault: string): Device {
  const sb = makeSandbox();
  boxes.push(sb);
  const fake = installFakeClaude(path.join(sb.root, 'fake'));
  const env = { ...sb.env, ...fake.env, ENGRAM_VAULT: vault, ENGRAM_BACKEND: 'claude' };
  return { sb, vault, env, fake, name: thisDevice(sb.engramHome).name };
}

function seedVault(vault: string): void {
  for (const [rel, text] of Object.entries(seed)) {
    fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
    fs.writeFileSync(path.join(vault, rel), text);
  }
}

const engram = (d: Device, ...args: string[]) => runCli([...args, '--vault', d.vault], { env: d.env });

function ok(d: Device, ...args: string[]): string {
  const r = engram(d, ...args);
  expect(r.stderr, `engram ${args.join(' ')}`).toBe('');
  expect(r.code, `engram ${args.join(' ')}`).toBe(0);
  return r.stdout;
}

function serve(d: Device): ChildProcess {
  const child = spawn(process.execPath, [cliPath, 'serve', '--foreground', '--vault', d.vault], { env: d.env, cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  d.sb.children.push(child);
  return child;
}

async function hosting(d: Device): Promise<void> {
  await waitFor(() => (JSON.parse(engram(d, 'status', '--json').stdout || '{}') as { host?: { index?: { ready?: boolean } } }).host?.index?.ready, 20_000, `${d.name}'s host`);
}

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

/** The vault's notes (what Obsidian lists), path to text. */
function notes(vault: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of listFiles(vault)) if (rel.endsWith('.md') && !rel.split('/').some((s) => s.startsWith('.'))) out[rel] = fs.readFileSync(path.join(vault, rel), 'utf8');
  return out;
}

function engramIds(vault: string): string[] {
  return Object.values(notes(vault)).flatMap((t) => [...t.matchAll(/^engram_id: (.+)$/gm)].map((m) => m[1]));
}

const reviewExtend = (d: Device) =>
  d.fake.setScript([{ reply: JSON.stringify({ decisions: [{ action: 'extend', notes: ['Engram/Working memory/Flaky e2e.md'], reason: 'still open', weeks: 2 }] }) }]);

function searchPaths(d: Device, query: string): string[] {
  return (JSON.parse(ok(d, 'search', query, '--json')) as { hits: Array<{ path: string }> }).hits.map((h) => h.path);
}

describe('two devices over one vault folder', () => {
  it('one host at a time (the other names it), capture, review, restructure, maintain and forget from both: nothing lost or doubled', async () => {
    const root = makeTempDir('engram-two-');
    dirs.push(root);
    const vault = path.join(root, 'vault');
    seedVault(vault);
    const [a, b] = [device(vault), device(vault)];
    expect(a.name).not.toBe(b.name);

    // A hosts. B's host does not start, and says which device hosts the vault.
    serve(a);
    await hosting(a);
    const refused = await exited(serve(b));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`device ${a.name}`);
    const bg = engram(b, 'serve');
    expect(bg.code).toBe(1);
    expect(bg.stderr).toContain(`device ${a.name}`);
    expect(ok(b, 'status')).toMatch(new RegExp(`device +device ${a.name} .*hosts this vault`));
    const doctor = JSON.parse(engram(b, 'doctor', '--json').stdout) as Array<{ name: string; status: string; detail: string }>;
    expect(doctor.find((c) => c.name === 'lease')).toMatchObject({ status: 'warn', detail: expect.stringContaining(`device ${a.name}`) as unknown });

    // Capture: the same session extracted on both devices (A through its host, B alone): each beat once.
    ok(a, 'extract', transcript, '--backend', 'rules');
    const afterA = notes(vault);
    ok(b, 'extract', transcript, '--backend', 'rules');
    expect(notes(vault)).toEqual(afterA);
    const ids = engramIds(vault);
    expect(new Set(ids).size).toBe(ids.length);

    // Review on A extends the working note; forget of that curated note on B succeeds at the first try.
    reviewExtend(a);
    const review = JSON.parse(ok(a, 'review', '--json')) as { proposals: Array<{ id: string; kind: string }> };
    expect(review.proposals.map((p) => p.kind)).toEqual(['extend']);
    ok(a, 'review', '--apply', review.proposals[0].id);
    ok(b, 'forget', 'Flaky e2e');
    expect(fs.existsSync(path.join(vault, 'Engram/Archive/Flaky e2e.md'))).toBe(true);

    // Restructure on B merges the pnpm twins; A's dry run then proposes no merge of them again.
    const proposals = JSON.parse(ok(b, 'restructure', '--json')) as { proposals: Array<{ id: string; kind: string }> };
    ok(b, 'restructure', '--apply', proposals.proposals.find((p) => p.kind === 'merge')!.id);
    const again = JSON.parse(ok(a, 'restructure', '--json')) as { proposals: Array<{ kind: string; trash: string[] }> };
    expect(again.proposals.filter((p) => p.kind === 'merge' && p.trash.some((t) => t.includes('pnpm')))).toEqual([]);
    expect(Object.keys(notes(vault)).filter((p) => /pnpm/i.test(p))).toHaveLength(1);

    // Maintain on both: the expired note is archived once.
    ok(a, 'maintain', '--apply');
    ok(b, 'maintain', '--apply');
    expect(Object.keys(notes(vault)).filter((p) => /Expired/.test(p))).toEqual(['Engram/Archive/Expired.md']);

    // Forget on both sides at once: both land, each logged once in its device's own log.
    const both = await Promise.all([
      new Promise<number | null>((r) => spawn(process.execPath, [cliPath, 'forget', 'Wrong claim', '--vault', vault], { env: a.env, stdio: 'ignore' }).on('exit', r)),
      new Promise<number | null>((r) => spawn(process.execPath, [cliPath, 'forget', 'Old idea', '--vault', vault], { env: b.env, stdio: 'ignore' }).on('exit', r)),
    ]);
    expect(both).toEqual([0, 0]);
    expect(fs.existsSync(path.join(vault, 'Engram/Archive/Wrong claim.md'))).toBe(true);
    expect(fs.existsSync(path.join(vault, 'Engram/Archive/Old idea.md'))).toBe(true);
    const logs = fs.readdirSync(path.join(vault, 'Engram/Log')).sort();
    expect(logs.map((f) => f.replace(/ \d{4}-\d{2}\.md$/, '')).sort()).toEqual([a.name, b.name].sort());
    const logA = fs.readFileSync(path.join(vault, 'Engram/Log', logs.find((f) => f.startsWith(a.name))!), 'utf8');
    const logB = fs.readFileSync(path.join(vault, 'Engram/Log', logs.find((f) => f.startsWith(b.name))!), 'utf8');
    expect(logA).toContain('review extend');
    expect(logA).toContain('Wrong claim');
    expect(logB).toContain('Flaky e2e');
    expect(logB).toContain('Old idea');
    for (const log of [logA, logB]) {
      const lines = log.split('\n').filter((l) => l.startsWith('- '));
      expect(new Set(lines).size).toBe(lines.length);
    }

    // A stops: its lease goes with it, and B hosts.
    ok(a, 'serve', '--stop');
    expect(fs.existsSync(leaseFile(vault))).toBe(false);
    serve(b);
    await hosting(b);
    expect(ok(a, 'status')).toContain(`device ${b.name}`);

    // B's host dies without a word (killed): its lease stays until it expires; then A takes over.
    const lease = JSON.parse(fs.readFileSync(leaseFile(vault), 'utf8')) as { pid: number; expires: string };
    process.kill(lease.pid, 'SIGKILL');
    const blocked = await exited(serve(a));
    expect(blocked.stderr).toContain(`device ${b.name}`);
    // Its time runs out (as 90 s without renewal would).
    fs.writeFileSync(leaseFile(vault), JSON.stringify({ ...lease, expires: new Date(Date.now() - 1000).toISOString() }));
    expect(ok(a, 'status')).toMatch(/expired/);
    serve(a);
    await hosting(a);
    expect(JSON.parse(fs.readFileSync(leaseFile(vault), 'utf8'))).toMatchObject({ device: a.name });
  });
});

/** A sync tool between two folders: changes since the last sync go across; a file changed on both sides keeps the
 * first folder's version and the second's becomes a Syncthing-style conflict copy (on both sides). `dotFolders: false`
 * leaves files in dot folders alone, as Obsidian Sync does (it carries only the config folder). */
function syncer(x: string, y: string, opts: { dotFolders?: boolean } = {}): () => { conflicts: string[] } {
  const last = new Map<string, string | null>();
  const read = (root: string, rel: string) => (fs.existsSync(path.join(root, rel)) ? fs.readFileSync(path.join(root, rel), 'utf8') : null);
  const put = (root: string, rel: string, text: string | null) => {
    const file = path.join(root, rel);
    if (text === null) fs.rmSync(file, { force: true });
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  };
  return () => {
    const conflicts: string[] = [];
    const all = new Set([...listFiles(x), ...listFiles(y), ...last.keys()]);
    for (const rel of [...all].sort()) {
      if (rel.includes('.tmp') || (opts.dotFolders === false && rel.split('/').some((seg) => seg.startsWith('.')))) continue;
      const [tx, ty, before] = [read(x, rel), read(y, rel), last.get(rel) ?? null];
      if (tx === ty) {
        last.set(rel, tx);
        continue;
      }
      if (tx === before) put(x, rel, ty);
      else if (ty === before) put(y, rel, tx);
      else {
        // Changed on both sides: keep x's, and y's version as a conflict copy beside it.
        put(y, rel, tx);
        if (ty !== null && tx !== null) {
          const copy = rel.replace(/\.md$/, '.sync-conflict-20260310-120000-TESTDEV.md');
          put(x, copy, ty);
          put(y, copy, ty);
          last.set(copy, ty);
          conflicts.push(copy);
        } else if (ty !== null) put(x, rel, ty);
      }
      last.set(rel, read(x, rel));
    }
    return { conflicts };
  };
}

describe('two devices over two folders synced both ways', () => {
  it('the same work on both before a sync converges: no conflict copies, nothing doubled; a real conflict stays out of recall', async () => {
    const root = makeTempDir('engram-two-sync-');
    dirs.push(root);
    const [va, vb] = [path.join(root, 'a'), path.join(root, 'b')];
    seedVault(va);
    seedVault(vb);
    const sync = syncer(va, vb);
    expect(sync().conflicts).toEqual([]);
    const [a, b] = [device(va), device(vb)];

    // A hosts; the lease reaches B by the sync, and B's host does not start.
    serve(a);
    await hosting(a);
    sync();
    const refused = await exited(serve(b));
    expect(refused.stderr).toContain(`device ${a.name}`);

    // The same session captured on both before a sync: byte-identical notes, so the sync has nothing to conflict on.
    ok(a, 'extract', transcript, '--backend', 'rules');
    ok(b, 'extract', transcript, '--backend', 'rules');
    expect(sync().conflicts).toEqual([]);
    expect(notes(va)).toEqual(notes(vb));
    const ids = engramIds(va);
    expect(new Set(ids).size).toBe(ids.length);

    // Review on A, forget on B of other notes, restructure on B, maintain on both, before one sync: all of it arrives.
    reviewExtend(a);
    const review = JSON.parse(ok(a, 'review', '--json')) as { proposals: Array<{ id: string }> };
    ok(a, 'review', '--apply', review.proposals[0].id);
    ok(b, 'forget', 'Wrong claim');
    // The same merge applied on both devices before a sync (A through its host): dated by the notes, not by each
    // machine's clock, it is the same bytes on both, so the sync has nothing to conflict on.
    for (const d of [b, a]) {
      const merge = (JSON.parse(ok(d, 'restructure', '--json')) as { proposals: Array<{ id: string; kind: string; trash: string[] }> }).proposals.find((p) => p.kind === 'merge' && p.trash.some((t) => t.includes('pnpm')))!;
      ok(d, 'restructure', '--apply', merge.id);
    }
    ok(a, 'maintain', '--apply');
    ok(b, 'maintain', '--apply');
    const synced = sync();
    // Each device's log is its own file: no conflict on the logs; the archive move made on both sides agrees.
    expect(synced.conflicts.filter((c) => c.startsWith('Engram/Log/'))).toEqual([]);
    expect(synced.conflicts).toEqual([]);
    expect(notes(va)).toEqual(notes(vb));
    const paths = Object.keys(notes(va));
    expect(paths).toContain('Engram/Archive/Wrong claim.md');
    expect(paths).toContain('Engram/Archive/Expired.md');
    expect(paths.filter((p) => /Expired/.test(p))).toHaveLength(1);
    expect(paths.filter((p) => /pnpm/i.test(p))).toHaveLength(1);
    expect(notes(va)['Engram/Working memory/Flaky e2e.md']).toMatch(/review_after: \d{4}-\d{2}-\d{2}/);
    expect(fs.readdirSync(path.join(va, 'Engram/Log')).map((f) => f.replace(/ \d{4}-\d{2}\.md$/, '')).sort()).toEqual([a.name, b.name].sort());

    // Forget on B of the note A's review curated: works after the sync.
    ok(b, 'forget', 'Flaky e2e');
    sync();
    expect(fs.existsSync(path.join(va, 'Engram/Archive/Flaky e2e.md'))).toBe(true);

    // The user edits one note on both machines before a sync: the sync tool keeps a conflict copy. It is kept out of
    // recall on both devices, and doctor and maintain show it with what differs.
    const note = 'Notes/Index.md';
    fs.appendFileSync(path.join(va, note), 'Kiwi deploys on Fridays are banned.\n');
    fs.appendFileSync(path.join(vb, note), 'Kiwi deploys on Fridays are allowed.\n');
    const { conflicts } = sync();
    expect(conflicts).toEqual(['Notes/Index.sync-conflict-20260310-120000-TESTDEV.md']);
    await waitFor(() => searchPaths(a, 'kiwi').includes(note), 10_000, "A's host to see the edit");
    expect(searchPaths(a, 'kiwi')).toEqual([note]);
    expect(searchPaths(b, 'kiwi')).toEqual([note]);
    const doctor = JSON.parse(engram(b, 'doctor', '--json').stdout) as Array<{ name: string; status: string; detail: string }>;
    expect(doctor.find((c) => c.name === 'sync conflicts')).toMatchObject({ status: 'warn', detail: expect.stringContaining(conflicts[0]) as unknown });
    const maintain = ok(b, 'maintain');
    expect(maintain).toContain(`${conflicts[0]}: a copy of ${note} left by Syncthing`);
    expect(maintain).toContain('- Kiwi deploys on Fridays are banned.');
    expect(maintain).toContain('+ Kiwi deploys on Fridays are allowed.');

    // B resolves it from the terminal: `engram review` lists it with what differs and the id of each choice; merge both
    // keeps both lines in the note, the copy goes to the trash, and the sync brings the result to A.
    const listed = ok(b, 'review', '--backend', 'rules');
    expect(listed).toContain(`${conflicts[0]}: a copy of ${note} left by Syncthing`);
    expect(listed).toMatch(/keep mine {2}: engram review --apply [0-9a-f]{12}/);
    const plan = JSON.parse(ok(b, 'review', '--backend', 'rules', '--json')) as { conflicts: Array<{ path: string; choices: Record<string, string> }> };
    expect(plan.conflicts.map((c) => c.path)).toEqual(conflicts);
    ok(b, 'review', '--apply', plan.conflicts[0].choices.merge);
    sync();
    for (const v of [va, vb]) {
      const text = fs.readFileSync(path.join(v, note), 'utf8');
      expect(text).toContain('Kiwi deploys on Fridays are banned.\nKiwi deploys on Fridays are allowed.');
      expect(fs.existsSync(path.join(v, conflicts[0]))).toBe(false);
    }
    expect(fs.readFileSync(path.join(vb, '.trash', conflicts[0]), 'utf8')).toContain('allowed');
    expect((JSON.parse(ok(a, 'review', '--backend', 'rules', '--json')) as { conflicts: unknown[] }).conflicts).toEqual([]);
  });
});

describe('two devices over a sync that leaves dot folders out (as Obsidian Sync does)', () => {
  it('the lease cannot reach the other machine, and the other machine says so by name once the first one curates', async () => {
    const root = makeTempDir('engram-two-nodot-');
    dirs.push(root);
    const [va, vb] = [path.join(root, 'a'), path.join(root, 'b')];
    seedVault(va);
    seedVault(vb);
    const sync = syncer(va, vb, { dotFolders: false });
    sync();
    const [a, b] = [device(va), device(vb)];
    serve(a);
    await hosting(a);
    ok(a, 'forget', 'Wrong claim');
    sync();
    // A's lease and device record stayed behind; its change log (a note) arrived.
    expect(fs.existsSync(leaseFile(vb))).toBe(false);
    expect(fs.readdirSync(path.join(vb, 'Engram/Log')).some((f) => f.startsWith(a.name))).toBe(true);
    const doctor = JSON.parse(engram(b, 'doctor', '--json').stdout) as Array<{ name: string; status: string; detail: string; fix?: string }>;
    const lease = doctor.find((c) => c.name === 'lease')!;
    expect(lease).toMatchObject({ status: 'warn', detail: expect.stringContaining(`device ${a.name} writes to this vault`) as unknown });
    expect(lease.fix).toMatch(/one machine at a time/);
    expect(ok(b, 'status')).toContain(`but device ${a.name} writes to this vault`);
    // On A, whose sync brought nothing of B's, nothing is said.
    expect((JSON.parse(ok(a, 'status', '--json')) as { lease: { unseen: string[] } }).lease.unseen).toEqual([]);
  });
});
