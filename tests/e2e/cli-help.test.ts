// Help that says what each command takes (and only that), options refused where they mean nothing, `hook --help`,
// the progress line and Ctrl-C handling as units, and npm in this repository without warnings.
import { spawn, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../helpers/cli.js';
import { makeSandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { commands } from '../../sidecar/cli/commands.js';
import { handleInterrupts } from '../../sidecar/cli/interrupt.js';
import { sparseProgress, stepProgress, terminalProgress } from '../../sidecar/cli/progress.js';
import type { CommandContext } from '../../sidecar/cli/types.js';

/** Which of --vault and --json mean something for each command (the vault it works on; JSON it prints). */
const meaningful: Record<string, { vault: boolean; json: boolean }> = {
  configure: { vault: true, json: true },
  check: { vault: true, json: true },
  serve: { vault: true, json: false },
  mcp: { vault: true, json: false },
  extract: { vault: true, json: true },
  import: { vault: true, json: true },
  status: { vault: true, json: true },
  activity: { vault: true, json: true },
  stats: { vault: true, json: true },
  setup: { vault: true, json: true },
  backfill: { vault: true, json: false },
  install: { vault: false, json: true },
  uninstall: { vault: false, json: false },
  doctor: { vault: true, json: true },
  'embed-server': { vault: false, json: false },
  hook: { vault: true, json: false },
  parse: { vault: false, json: true },
  review: { vault: true, json: true },
  restructure: { vault: true, json: true },
  maintain: { vault: true, json: true },
  flagged: { vault: true, json: true },
  forget: { vault: true, json: true },
  index: { vault: true, json: true },
  search: { vault: true, json: true },
  model: { vault: false, json: true },
  team: { vault: true, json: true },
  eval: { vault: false, json: true },
};

const env = { ENGRAM_HOME: '/nonexistent/engram-home', ENGRAM_VAULT: '' };
const listed = (help: string, option: string) => new RegExp(`^\\s+(-\\w, )?--${option}\\b`, 'm').test(help);

describe('help', () => {
  it('every command has help, listing only the options it takes (and every option its usage names)', () => {
    expect(commands.map((c) => c.name).sort()).toEqual(Object.keys(meaningful).sort());
    for (const c of commands) {
      const r = runCli([c.name, '--help'], { env });
      expect(r.code, c.name).toBe(0);
      expect(r.stdout, c.name).toMatch(new RegExp(`^Usage: engram ${c.name}\\b`));
      expect(r.stderr, c.name).toBe('');
      expect(listed(r.stdout, 'vault'), `${c.name} --vault`).toBe(meaningful[c.name].vault);
      expect(listed(r.stdout, 'json'), `${c.name} --json`).toBe(meaningful[c.name].json);
      expect(listed(r.stdout, 'help'), `${c.name} --help`).toBe(true);
      const usage = r.stdout.split('\n')[0];
      for (const [, option] of usage.matchAll(/--([a-z][a-z-]*)/g)) expect(listed(r.stdout, option), `${c.name} usage names --${option}`).toBe(true);
    }
  });

  it('`engram help <command>` is the same help; an unknown one is an error', () => {
    expect(runCli(['help', 'search'], { env }).stdout).toBe(runCli(['search', '--help'], { env }).stdout);
    const r = runCli(['help', 'frobnicate'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('`engram hook --help` (and -h) lists the events; the main help names no option only some commands take', () => {
    for (const flag of ['--help', '-h']) {
      const r = runCli(['hook', flag], { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: engram hook /);
      for (const e of ['SessionStart', 'UserPromptSubmit', 'Stop', 'PreCompact', 'SessionEnd']) expect(r.stdout).toMatch(new RegExp(`^\\s+${e}\\s+\\S`, 'm'));
    }
    const main = runCli(['--help'], { env }).stdout;
    expect(listed(main, 'vault')).toBe(false);
    expect(listed(main, 'json')).toBe(false);
    expect(listed(main, 'version')).toBe(true);
  });

  it('`engram hook <Event>` stays silent on stdout when it has nothing to inject, and exits 0', () => {
    const sb = makeSandbox();
    try {
      const r = spawnSync(process.execPath, [cliPath, 'hook', 'UserPromptSubmit'], { cwd: sb.root, env: { ...sb.env, ENGRAM_VAULT: '' }, input: JSON.stringify({ prompt: 'hello', cwd: sb.root, session_id: 's1' }), encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
    } finally {
      void sb.cleanup();
    }
  });
});

describe('options a command does not take are refused, never ignored', () => {
  it('a global option where it means nothing: one clear line, usage, exit 1, nothing run', () => {
    // `engram hook <Event>` is Claude Code's: it never fails on its arguments (below).
    for (const [name, g] of Object.entries(meaningful).filter(([n]) => n !== 'hook')) {
      for (const option of ['vault', 'json'] as const) {
        if (g[option]) continue;
        const args = option === 'vault' ? [name, '--vault', '/tmp/somewhere'] : [name, '--json'];
        const r = runCli(args, { env });
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stdout, args.join(' ')).toBe('');
        const lines = r.stderr.split('\n');
        expect(lines[0]).toBe(`engram ${name}: --${option} does not apply to \`engram ${name}\``);
        expect(lines[1]).toMatch(new RegExp(`^Usage: engram ${name}\\b`));
      }
    }
  });

  it('a hook never fails on its arguments: exit 0, nothing on stdout', () => {
    const r = runCli(['hook', 'UserPromptSubmit', '--json', '--bogus'], { env, input: '{}' });
    expect(r).toMatchObject({ code: 0, stdout: '' });
  });

  it('an option no command has is "unknown option", short or long', () => {
    expect(runCli(['search', 'x', '--colour'], { env }).stderr.split('\n')[0]).toBe('engram search: unknown option: --colour');
    expect(runCli(['search', 'x', '-q'], { env }).stderr.split('\n')[0]).toBe('engram search: unknown option: -q');
    expect(runCli(['status', '--toString'], { env }).stderr.split('\n')[0]).toBe('engram status: unknown option: --toString');
  });

  it('a mistyped command or option names the one meant', () => {
    const cmd = runCli(['stauts'], { env });
    expect(cmd.code).toBe(1);
    expect(cmd.stderr.trim()).toBe('engram: unknown command "stauts". Did you mean `engram status`? Run `engram --help` for the list.');
    expect(runCli(['help', 'restucture'], { env }).stderr).toContain('Did you mean `engram help restructure`?');
    expect(runCli(['status', '--jsno'], { env }).stderr.split('\n')[0]).toBe('engram status: unknown option: --jsno; did you mean --json?');
    expect(runCli(['configure', 'hooks.injcet', 'false'], { env }).stderr).toContain('unknown configuration key "hooks.injcet"; did you mean "hooks.inject"?');
  });
});

describe('the progress line', () => {
  it('on a terminal: carriage return + erase line each time, cut to the width, one newline at the end', () => {
    const out: string[] = [];
    const p = terminalProgress({ write: (s) => out.push(s), columns: () => 20 });
    p.show('indexing 1/3');
    p.show('indexing 2/3 and a long tail that does not fit');
    p.show('indexing 3/3');
    p.done();
    p.done();
    expect(out).toEqual(['\r\x1b[2Kindexing 1/3', '\r\x1b[2Kindexing 2/3 and a…', '\r\x1b[2Kindexing 3/3', '\n']);
  });

  it('elsewhere: nothing for a short run; a long run gets a line after 1 s, then at most one per 5 s, and its last state', () => {
    let now = 0;
    const short: string[] = [];
    const quick = sparseProgress((l) => short.push(l), () => now);
    for (let i = 1; i <= 100; i++) {
      now = i * 5;
      quick.show(`n ${i}`);
    }
    quick.done();
    expect(short).toEqual([]);
    now = 0;
    const lines: string[] = [];
    const slow = sparseProgress((l) => lines.push(l), () => now);
    for (let i = 1; i <= 600; i++) {
      now = i * 100;
      slow.show(`n ${i}`);
    }
    slow.done();
    // 60 s of updates every 100 ms: at 1 s, then every 5 s (12 lines), and the final state.
    expect(lines[0]).toBe('n 10');
    expect(lines.at(-1)).toBe('n 600');
    expect(lines.length).toBeLessThanOrEqual(14);
  });
});

describe('Ctrl-C handling (in-process)', () => {
  const setup = () => {
    const said: string[] = [];
    const exits: number[] = [];
    const signals = new EventEmitter();
    const h = handleInterrupts('index', (l) => said.push(l), (c) => exits.push(c), signals);
    h.leaves('nothing saved');
    return { said, exits, h, ctrlC: () => signals.emit('SIGINT') };
  };

  it('outside shielded work: "interrupted" and what is left, exit 130', () => {
    const { said, exits, ctrlC } = setup();
    ctrlC();
    expect(said).toEqual(['engram index: interrupted; nothing saved']);
    expect(exits).toEqual([130]);
  });

  it('shielded work completes first, then the command stops saying what it left', async () => {
    const { said, exits, h, ctrlC } = setup();
    let release!: () => void;
    const saving = h.shield('saving the snapshot', () => new Promise<string>((r) => (release = () => r('saved'))), 'the snapshot is saved');
    ctrlC();
    expect(said).toEqual(['engram index: interrupted; finishing saving the snapshot first (Ctrl-C again to stop at once)']);
    expect(exits).toEqual([]);
    release();
    expect(await saving).toBe('saved');
    expect(said.at(-1)).toBe('engram index: stopped; the snapshot is saved');
    expect(exits).toEqual([130]);
  });

  it('shielded work that fails says so when the command stops', async () => {
    const { said, exits, h, ctrlC } = setup();
    let fail!: () => void;
    const applying = h.shield('applying a1', () => new Promise((_, reject) => (fail = () => reject(new Error('stale')))), (ok) => `a1 ${ok ? 'was applied' : 'was not applied'}; not applied: b2`);
    ctrlC();
    fail();
    await expect(applying).rejects.toThrow('stale');
    expect(said.at(-1)).toBe('engram index: stopped; a1 was not applied; not applied: b2');
    expect(exits).toEqual([130]);
  });

  it('a second Ctrl-C during shielded work stops at once', () => {
    const { said, exits, h, ctrlC } = setup();
    void h.shield('saving the snapshot', () => new Promise(() => undefined), 'the snapshot is saved');
    ctrlC();
    ctrlC();
    expect(said.at(-1)).toBe('engram index: interrupted while saving the snapshot; nothing saved');
    expect(exits).toEqual([130]);
  });
});

describe('npm in this repository', () => {
  it('prints no "Unknown project config" warning, and skips dependencies\' install scripts (the CUDA download)', async () => {
    const r = await new Promise<{ stderr: string; stdout: string; code: number | null }>((resolve) => {
      // As from a shell: none of the npm_config_* variables npx/npm set for the test runner itself.
      const shellEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
      const child = spawn('npm', ['config', 'get', 'ignore-scripts'], { cwd: repoRoot, env: shellEnv });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ stdout, stderr, code }));
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/Unknown project config/);
    expect(r.stdout.trim()).toBe('true');
  });

  it("a host's steps: one line per step in a pipe; redrawn in place with the step's seconds on a terminal", () => {
    const err: string[] = [];
    const ctx = (extra: Partial<CommandContext>) => ({ global: { json: false }, stderr: (l: string) => err.push(l), ...extra }) as unknown as CommandContext;
    const piped = stepProgress(ctx({}))!;
    piped.show({ step: 'reading every note', done: 1, total: 3 });
    piped.show({ step: 'reading every note', done: 2, total: 3 });
    piped.show({ step: 'saving the snapshot' });
    piped.done();
    expect(err).toEqual(['reading every note: 1/3', 'saving the snapshot']);
    expect(stepProgress({ ...ctx({}), global: { json: true } } as CommandContext)).toBeUndefined();

    const out: string[] = [];
    let now = 0;
    const drawn = stepProgress(ctx({ terminal: { write: (s) => out.push(s), columns: () => 80 } }), () => now, 60_000)!;
    drawn.show({ step: 'planning merges and splits over 40 notes' });
    now = 2400;
    drawn.show({ step: 'planning merges and splits over 40 notes' });
    drawn.show({ step: 'saving' });
    drawn.done();
    expect(out).toEqual(['\r\x1b[2Kplanning merges and splits over 40 notes (0 s)', '\r\x1b[2Kplanning merges and splits over 40 notes (2 s)', '\r\x1b[2Ksaving (0 s)', '\n']);
  });
});
