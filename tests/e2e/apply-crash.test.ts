// Crash safety of `engram restructure --apply <id>`: for a merge and a split, the real CLI is killed with SIGKILL
// (ENGRAM_FAULT=apply-step:N) after each of its durable steps in turn. After every crash `engram doctor` must
// report the interrupted apply, and a re-run must leave the vault fully applied (or, when the user edited a note
// meanwhile, fully applied or fully rolled back): no dangling link, no heading or block link that misses, and a
// log with one start line and one end line.
// The two pnpm notes say the same thing nearly word for word, as a duplicate must for curation's evidence to propose it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLinks } from '../../src/core/curate/links';
import { LinkResolver } from '../../src/core/curate/link-resolver';
import { headingKey } from '../../src/core/curate/link-rewrite';
import { cliPath, runCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

const section = (name: string, extra: string) => `## ${name}\n\n${`Words about ${name.toLowerCase()} that keep going for a while. `.repeat(95)}\n\n${extra}\n`;
const GUIDE = `---\ntags: [guide]\n---\nThe guide opens here.\n\n${section('Setup', '### Linux\n\nInstall on Linux. ^lin')}\n${section('Usage', 'A paragraph worth citing. ^cite1')}\n${section('Troubleshooting', 'Restart it.')}`;

const notes: Record<string, string> = {
  'Notes/Use pnpm.md': '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository.\n\n## Why\n\nDisk space and speed. ^why\n',
  'Notes/Use pnpm please.md': '---\ntags: [tooling]\n---\nWe use pnpm, not npm, for every install in this repository!\n\n## Why\n\nDisk space and speed, above all. ^why\n',
  'Notes/Index.md': 'See [[Use pnpm please|the rule]], ![[Use pnpm please#Why]], [[Use pnpm please#^why]], [[Use pnpm]], [[Guide#Usage]] and [[Guide#^cite1]].\n',
  'Notes/Other.md': 'Also [[Use pnpm please]], [[Guide#Linux]] and [[Guide#Setup]].\n',
  'Notes/Guide.md': GUIDE,
};

let tmp: string;
let vault: string;
let home: string;
let env: NodeJS.ProcessEnv;
const ids: Record<'merge' | 'split', string> = { merge: '', split: '' };
const applied: Record<string, Record<string, string>> = {};
let untouched: Record<string, string> = {};
const figures: string[] = [];

function files(root: string, skipLog = true): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      const rel = path.relative(root, full).split(path.sep).join('/');
      if (e.isDirectory()) {
        if (e.name.startsWith('.') || (skipLog && rel === 'Engram/Log')) continue;
        walk(full);
      } else if (e.name.endsWith('.md')) out[rel] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return out;
}

function reset(): void {
  for (const [dir, from] of [[vault, `${tmp}/tpl-vault`], [home, `${tmp}/tpl-home`]]) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.cpSync(from, dir, { recursive: true });
  }
}

function apply(id: string, fault?: string) {
  const r = spawnSync(process.execPath, [cliPath, 'restructure', '--apply', id, '--vault', vault], {
    cwd: repoRoot,
    env: { ...process.env, ...env, ...(fault ? { ENGRAM_FAULT: fault } : {}) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

function doctorApplies(): { status: string; detail: string; fix?: string } {
  const r = runCli(['doctor', '--json', '--vault', vault], { env });
  const all = JSON.parse(r.stdout) as Array<{ name: string; status: string; detail: string; fix?: string }>;
  return all.find((c) => c.name === 'curation applies')!;
}

/** Every link in the vault names a note that exists, and a heading or block link finds its heading or block there. */
function danglingLinks(all: Record<string, string>): string[] {
  const resolver = new LinkResolver(Object.keys(all));
  const bad: string[] = [];
  for (const [p, text] of Object.entries(all)) {
    for (const l of parseLinks(text)) {
      const target = resolver.resolve(l.linkpath, p);
      const shown = text.slice(l.start, l.end);
      if (target === null) {
        bad.push(`${p}: ${shown}`);
        continue;
      }
      const t = all[target];
      if (l.block !== undefined && !new RegExp(`\\s\\^${l.block}[ \\t]*$`, 'm').test(t)) bad.push(`${p}: ${shown} (no block)`);
      if (l.heading !== undefined) {
        const want = headingKey(l.heading.split('#').pop()!);
        const heads = [...t.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)].map((m) => headingKey(m[1]));
        if (!heads.includes(want)) bad.push(`${p}: ${shown} (no heading)`);
      }
    }
  }
  return bad;
}

/** The log lines of one proposal: exactly one start and one end (applied or rolled back). */
function logOutcome(id: string): 'applied' | 'rolled back' {
  const dir = path.join(vault, 'Engram', 'Log');
  const lines = fs.readdirSync(dir).flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n')).filter((l) => l.includes(`proposal \`${id}\``));
  expect(lines.filter((l) => l.endsWith(' · started'))).toHaveLength(1);
  const ends = lines.filter((l) => !l.endsWith(' · started'));
  expect(ends).toHaveLength(1);
  return ends[0].includes('rolled back') ? 'rolled back' : 'applied';
}

beforeAll(() => {
  tmp = makeTempDir('engram-apply-crash-');
  vault = path.join(tmp, 'vault');
  home = path.join(tmp, 'home');
  env = { ENGRAM_HOME: home, HOME: path.join(tmp, 'userhome'), ENGRAM_BACKEND: 'rules', XDG_RUNTIME_DIR: path.join(tmp, 'run') };
  for (const [rel, text] of Object.entries(notes)) {
    fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
    fs.writeFileSync(path.join(vault, rel), text);
  }
  const r = runCli(['restructure', '--json', '--vault', vault], { env });
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { proposals: Array<{ id: string; kind: string }> };
  ids.merge = out.proposals.find((p) => p.kind === 'merge')!.id;
  ids.split = out.proposals.find((p) => p.kind === 'split')!.id;
  fs.cpSync(vault, `${tmp}/tpl-vault`, { recursive: true });
  fs.cpSync(home, `${tmp}/tpl-home`, { recursive: true });
  untouched = files(vault);
  for (const kind of ['merge', 'split'] as const) {
    reset();
    const a = apply(ids[kind]);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    applied[kind] = files(vault);
    expect(danglingLinks(files(vault, false))).toEqual([]);
  }
});
afterAll(() => {
  if (figures.length) process.stdout.write(`\napply crash sweep (kill -9 after each durable step):\n${figures.join('\n')}\n`);
  removeDir(tmp);
});

describe('restructure --apply under kill -9 at every step', () => {
  for (const kind of ['merge', 'split'] as const) {
    it(`${kind}: every crash is reported by doctor and a re-run completes it`, () => {
      let points = 0;
      for (let n = 1; ; n++) {
        reset();
        const crashed = apply(ids[kind], `apply-step:${n}`);
        if (crashed.code === 0) break;
        expect(crashed.signal, `step ${n}: ${crashed.stderr}`).toBe('SIGKILL');
        points++;
        const d = doctorApplies();
        expect(d.status).toBe('fail');
        expect(d.detail).toContain(`proposal ${ids[kind]}`);
        expect(d.fix).toContain(`engram restructure --apply ${ids[kind]}`);
        const again = apply(ids[kind]);
        expect(again.code, `step ${n}: ${again.stdout}${again.stderr}`).toBe(0);
        expect(again.stdout).toContain(`${ids[kind]}: applied`);
        expect(files(vault), `after a crash at step ${n}`).toEqual(applied[kind]);
        expect(danglingLinks(files(vault, false)), `after a crash at step ${n}`).toEqual([]);
        expect(logOutcome(ids[kind])).toBe('applied');
        expect(doctorApplies().status).toBe('ok');
        // Applied once: a third run is refused, and changes nothing.
        expect(apply(ids[kind]).stdout).toContain('was already applied');
      }
      figures.push(`  ${kind}: ${points} crash points, ${points} completed by the re-run, 0 left half-applied`);
      expect(points).toBeGreaterThanOrEqual(kind === 'merge' ? 7 : 8);
    }, 600_000);
  }

  it('merge: an apply a crash interrupted is finished by the next host start, with nobody re-running it', async () => {
    reset();
    const crashed = apply(ids.merge, 'apply-step:3');
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    expect(doctorApplies().status).toBe('fail');
    const host = spawn(process.execPath, [cliPath, 'serve', '--foreground', '--vault', vault], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: 'ignore' });
    try {
      const until = Date.now() + 60_000;
      while (doctorApplies().status !== 'ok') {
        if (Date.now() > until || host.exitCode !== null) throw new Error('the host did not finish the interrupted apply');
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(files(vault)).toEqual(applied.merge);
      expect(danglingLinks(files(vault, false))).toEqual([]);
      expect(logOutcome(ids.merge)).toBe('applied');
    } finally {
      host.kill('SIGTERM');
      await new Promise((r) => (host.exitCode !== null || host.signalCode !== null ? r(null) : host.once('exit', r)));
    }
  }, 120_000);

  it('merge: a note edited after the crash makes the re-run roll back (or keep a finished apply); never half', () => {
    let rolled = 0;
    let completed = 0;
    for (let n = 1; ; n++) {
      reset();
      const crashed = apply(ids.merge, `apply-step:${n}`);
      if (crashed.code === 0) break;
      const index = path.join(vault, 'Notes/Index.md');
      fs.appendFileSync(index, 'Typed after the crash.\n');
      const again = apply(ids.merge);
      const after = files(vault);
      const outcome = logOutcome(ids.merge);
      const base = outcome === 'applied' ? applied.merge : untouched;
      expect(again.code).toBe(outcome === 'applied' ? 0 : 1);
      expect(after).toEqual({ ...base, 'Notes/Index.md': `${base['Notes/Index.md']}Typed after the crash.\n` });
      expect(danglingLinks(files(vault, false))).toEqual([]);
      expect(doctorApplies().status).toBe('ok');
      if (outcome === 'applied') completed++;
      else rolled++;
    }
    figures.push(`  merge with a note edited after the crash: ${rolled} rolled back, ${completed} completed`);
    expect(rolled).toBeGreaterThan(0);
  }, 600_000);
});
