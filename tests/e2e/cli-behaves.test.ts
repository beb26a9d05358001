// The command line as a user meets it in a shell: piped into `head`, stopped with Ctrl-C, watched on a terminal,
// asked for help. Real processes, real pipes, real signals, and a real pseudo-terminal (util-linux `script`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../helpers/cli.js';
import { installFakeClaude } from '../helpers/fake-claude.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const noStack = (text: string) => expect(text).not.toMatch(/^\s+at |EPIPE|unexpected error/m);

/** A child with its output collected, and a way to wait (without sleeping) until the output shows something. */
function watch(child: ChildProcess) {
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  child.stdout?.on('data', (d: Buffer) => ((out += d.toString('utf8')), poke()));
  child.stderr?.on('data', (d: Buffer) => ((err += d.toString('utf8')), poke()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return {
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    exited,
    /** Resolves when `test(stdout + stderr)` holds; fails if the child exits first. */
    async until(test: (all: string) => boolean, what: string): Promise<void> {
      let done = false;
      void exited.then(() => poke());
      while (!test(out + err)) {
        if (done) throw new Error(`the command ended before ${what}:\n${out}\n${err}`);
        await new Promise<void>((r) => waiters.push(r));
        done = child.exitCode !== null || child.signalCode !== null;
      }
    },
  };
}

/** `engram <args>` inside a pseudo-terminal: `script` gives it a TTY for stdin, stdout and stderr. */
function inTerminal(sb: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  // A pty made by `script` from a pipe has no size: give it a usual terminal's width.
  const command = `stty cols 120 rows 40; ${['exec', process.execPath, cliPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`;
  return spawn('script', ['-qfec', command, '/dev/null'], { cwd: repoRoot, env: { ...sb.env, SHELL: '/bin/sh', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
}

function writeNotes(sb: Sandbox, n: number, folder = 'Notes'): void {
  const words = ['socket', 'daemon', 'vault', 'index', 'spool', 'model', 'vector', 'merge', 'split', 'graph', 'token', 'queue'];
  for (let i = 0; i < n; i++) {
    const text = Array.from({ length: 80 }, (_, j) => `${words[(i * 7 + j * 13 + j * j) % words.length]}${j % 9}`).join(' ');
    sb.writeNote(`${folder}/Note ${i}.md`, `---\ntags: [t${i % 40}]\nsummary: Note ${i} about the socket and the ${words[i % words.length]} of the vault\n---\n# Note ${i}\nsocket ${text}\n`);
  }
}

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

describe('a reader that stops early (EPIPE)', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = makeSandbox();
    writeNotes(sb, 400);
    sb.writeNote('Dup/Use pnpm.md', '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository.\n');
    sb.writeNote('Dup/Use pnpm please.md', '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository!\n');
    sb.writeNote('Dup/Index.md', 'See [[Use pnpm please|the rule]].\n');
  });
  afterAll(() => sb.cleanup());

  it('`engram search … | head -1`: one line, no stack trace, engram exits 0', () => {
    // 400 hits of several lines each are far more than a pipe holds: engram is still writing when head exits.
    const script = `"${process.execPath}" "${cliPath}" search socket -n 400 --mode bm25 | head -1; echo "engram exit \${PIPESTATUS[0]}" >&2`;
    const r = spawnSync('bash', ['-c', script], { cwd: repoRoot, env: sb.env, encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    noStack(r.stderr);
    expect(r.stderr.trim()).toBe('engram exit 0');
  });

  it('`engram restructure --apply <id>` with stdout already closed: the apply completes, exit 0, no trace', async () => {
    const listed = runCli(['restructure', '--json', '--folder', 'Dup'], { env: sb.env });
    expect(listed.code).toBe(0);
    const merge = (JSON.parse(listed.stdout) as { proposals: Array<{ id: string; kind: string; trash: string[] }> }).proposals.find((p) => p.kind === 'merge')!;
    expect(merge.trash.sort()).toEqual(['Dup/Use pnpm please.md', 'Dup/Use pnpm.md']);
    const child = spawn(process.execPath, [cliPath, 'restructure', '--apply', merge.id], { cwd: repoRoot, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader goes away before engram prints a word: every line it prints meets a closed pipe.
    child.stdout!.destroy();
    const w = watch(child);
    expect(await w.exited).toEqual({ code: 0, signal: null });
    noStack(w.err);
    expect(w.err).toBe('');
    const kept = ['Use pnpm', 'Use pnpm please'].find((n) => fs.existsSync(path.join(sb.vault, 'Dup', `${n}.md`)))!;
    expect(kept).toBeDefined();
    expect(fs.readFileSync(path.join(sb.vault, 'Dup', 'Index.md'), 'utf8')).toBe(`See [[${kept}|the rule]].\n`);
    expect(files(path.join(sb.vault, '.trash', 'Dup')).sort()).toEqual(['Use pnpm please.md', 'Use pnpm.md']);
    expect(files(path.join(sb.vault, 'Engram', 'Log'))).toHaveLength(1);
  });
});

describe('progress and Ctrl-C in `engram index`', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = makeSandbox();
    writeNotes(sb, 3000);
  });
  afterAll(() => sb.cleanup());

  const snapshotFiles = () => files(sb.engramHome).filter((f) => /snapshot/.test(f));

  it.skipIf(!hasScript)('on a terminal: Ctrl-C after the bar appears says "interrupted" and what is kept, exit 130, no snapshot half written', async () => {
    const child = inTerminal(sb, ['index']);
    const w = watch(child);
    await w.until((all) => /\r\x1b\[2Kindexing \[/.test(all), 'the progress bar');
    // The terminal's Ctrl-C: the pty turns it into SIGINT for the foreground process.
    child.stdin!.write('\x03');
    expect((await w.exited).code).toBe(130);
    expect(w.out).toMatch(/\nengram index: interrupted; no snapshot was saved; `engram index` again starts from the beginning\r?\n/);
    noStack(w.out);
    expect(snapshotFiles()).toEqual([]);
  });

  it.skipIf(!hasScript)('on a terminal: the bar is one line redrawn in place (\\r, erase line), not a line per update', async () => {
    const child = inTerminal(sb, ['index']);
    const w = watch(child);
    expect((await w.exited).code).toBe(0);
    const redraws = w.out.match(/\r\x1b\[2Kindexing \[/g) ?? [];
    expect(redraws.length).toBeGreaterThan(1);
    // Every redraw of the indexing phase is on one terminal line: between the first and the last there is no newline.
    const first = w.out.indexOf('\r\x1b[2Kindexing [');
    const last = w.out.lastIndexOf('\r\x1b[2Kindexing [');
    expect(w.out.slice(first, last)).not.toMatch(/\n/);
    expect(w.out.slice(last)).toMatch(/^\r\x1b\[2Kindexing \[#{30}\] 3000\/3000 notes[^\n]*\r?\n/);
    expect(w.out).toMatch(/Indexed .*: 3000 notes/);
    expect(snapshotFiles()).toHaveLength(1);
  });

  it('off a terminal: sparse progress lines on stderr; a real SIGINT keeps the snapshot from before, exit 130', async () => {
    const [snapshot] = snapshotFiles();
    if (!snapshot) expect(runCli(['index'], { env: sb.env }).code).toBe(0);
    const file = path.join(sb.engramHome, snapshotFiles()[0]);
    const before = fs.readFileSync(file);
    // Off a terminal the first progress line comes after a second: enough notes that the rebuild takes longer.
    writeNotes(sb, 3000, 'More');
    writeNotes(sb, 3000, 'Even more');
    const child = spawn(process.execPath, [cliPath, 'index', '--rebuild'], { cwd: repoRoot, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const w = watch(child);
    await w.until((all) => /^indexing \[/m.test(all), 'a progress line');
    child.kill('SIGINT');
    expect(await w.exited).toEqual({ code: 130, signal: null });
    expect(w.err).not.toMatch(/\r/);
    expect(w.err.split('\n').filter((l) => l.startsWith('indexing ['))).toHaveLength(1);
    expect(w.err).toMatch(/^engram index: interrupted; nothing of this run was saved: the snapshot from before is kept \(.*\); `engram index` again reads what changed since it$/m);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(snapshotFiles()).toEqual([path.relative(sb.engramHome, file)]);
  });
});

describe.skipIf(!hasScript)('Ctrl-C at setup\'s question', () => {
  let sb: Sandbox;
  let other: string;
  beforeAll(() => {
    sb = makeSandbox();
    other = path.join(sb.root, 'Other vault');
    fs.mkdirSync(other);
    const cfg = path.join(sb.home, '.config', 'obsidian');
    fs.mkdirSync(cfg, { recursive: true });
    fs.writeFileSync(path.join(cfg, 'obsidian.json'), JSON.stringify({ vaults: { a: { path: other, ts: 1000 }, b: { path: sb.vault, ts: 2000 } } }));
  });
  afterAll(() => sb.cleanup());

  const state = () => [...files(sb.home), ...files(sb.engramHome)];

  it('the Ctrl-C key: "cancelled; nothing changed", exit 130, nothing written', async () => {
    const before = state();
    const child = inTerminal(sb, ['setup'], { ENGRAM_VAULT: '' });
    const w = watch(child);
    await w.until((all) => /Which one\? \[1-2/.test(all), 'the question');
    child.stdin!.write('\x03');
    expect((await w.exited).code).toBe(130);
    expect(w.out).toMatch(/engram setup: cancelled; nothing changed\r?\n/);
    noStack(w.out);
    expect(state()).toEqual(before);
  });

  it('a SIGINT from outside while it waits: "interrupted; nothing changed", exit 130', async () => {
    const before = state();
    const child = inTerminal(sb, ['setup'], { ENGRAM_VAULT: '' });
    const w = watch(child);
    await w.until((all) => /Which one\? \[1-2/.test(all), 'the question');
    // `script` runs engram as its only child (exec): that is the process to signal.
    const pid = Number(fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
    process.kill(pid, 'SIGINT');
    expect((await w.exited).code).toBe(130);
    expect(w.out).toMatch(/engram setup: interrupted; nothing changed\r?\n/);
    noStack(w.out);
    expect(state()).toEqual(before);
  });
});

describe('Ctrl-C in `engram import`', () => {
  let sb: Sandbox;
  beforeAll(() => (sb = makeSandbox()));
  afterAll(() => sb.cleanup());

  it('after the first conversation: "interrupted", what is kept and how to resume, exit 130', async () => {
    // The model answers the first conversation at once and takes its time over the second.
    const fake = installFakeClaude(path.join(sb.root, 'fake'), [{ echo: true }, { sleep: 30_000 }]);
    const exportFile = path.join(repoRoot, 'tests/fixtures/extract/claude-ai-export.json');
    const child = spawn(process.execPath, [cliPath, 'import', exportFile, '--backend', 'claude'], {
      cwd: repoRoot,
      env: { ...sb.env, ...fake.env, ENGRAM_FAULT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const w = watch(child);
    await w.until((all) => /\] 1\/3 conversations/.test(all), 'the first conversation');
    // As a terminal's Ctrl-C does: SIGINT to the whole foreground process group (engram and the model's CLI).
    process.kill(-child.pid!, 'SIGINT');
    expect(await w.exited).toEqual({ code: 130, signal: null });
    expect(w.err).toMatch(new RegExp(`^engram import: interrupted; the conversations imported so far are kept; \`engram import ${exportFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` again resumes after them$`, 'm'));
    noStack(w.err);
    const notes = files(sb.vault).filter((f) => f.endsWith('.md') && fs.readFileSync(path.join(sb.vault, f), 'utf8').includes('engram_source: import-claude'));
    expect(notes.length).toBeGreaterThanOrEqual(1);
  });
});

describe('engram maintain', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = makeSandbox();
    for (const d of ['A', 'B']) sb.writeNote(`Engram/${d}/Use pnpm.md`, `---\ntype: decision\nengram_id: id${d}\nengram_source: manual\n---\nWe use pnpm workspaces because npm installs took four minutes in the monorepo.\n`);
  });
  afterAll(() => sb.cleanup());

  it('lists two notes alike in title and text once', () => {
    const r = runCli(['maintain'], { env: sb.env });
    expect(r.code).toBe(0);
    const section = r.stdout.slice(r.stdout.indexOf('Possible duplicates'));
    expect(section).toBe('Possible duplicates: 1\n  same text and title: Engram/A/Use pnpm.md, Engram/B/Use pnpm.md\n');
    const j = JSON.parse(runCli(['maintain', '--json'], { env: sb.env }).stdout) as { duplicates: unknown[] };
    expect(j.duplicates).toEqual([{ why: 'same text and title', notes: ['Engram/A/Use pnpm.md', 'Engram/B/Use pnpm.md'] }]);
  });
});
