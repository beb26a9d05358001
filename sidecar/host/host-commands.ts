// The host is the one writer of its vault (DESIGN invariant 3): the CLI's write commands (forget, review/restructure/
// maintain --apply, extract, import, index) and the MCP curation tools run here, in the host process, through its vault port,
// and the engine takes in what they wrote before the caller hears back (a search right after sees the change).
import fs from 'node:fs';
import { EngramError } from '../../src/core/errors.js';
import { CLI_OUTPUT, type CliOutput, type CliResult, type Params } from '../../src/core/protocol/index.js';
import { commands } from '../cli/commands.js';
import type { CommandContext } from '../cli/types.js';
import type { RunningHost } from './daemon.js';
import type { Notify } from './server.js';

type Options = CommandContext['options'];

/** The client's parsed options, checked (they arrive as JSON); the global ones are the host's to set. */
function checkOptions(raw: unknown): Options {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new EngramError('usage', 'options must be an object');
  const out: Options = {};
  for (const [k, val] of Object.entries(raw as Record<string, unknown>)) {
    if (k === 'vault' || k === 'json' || k === 'help') continue;
    const ok = ['string', 'number', 'boolean'].includes(typeof val) || (Array.isArray(val) && val.every((x) => typeof x === 'string'));
    if (!ok) throw new EngramError('usage', `option --${k} has a value of the wrong kind`);
    out[k] = val as Options[string];
  }
  return out;
}

// Curation runs one command at a time (two applies never interleave); extraction goes through the job queue.
let curationChain: Promise<unknown> = Promise.resolve();
function serialized(fn: () => Promise<void>): Promise<void> {
  const run = curationChain.then(fn, fn);
  curationChain = run.catch(() => {});
  return run;
}

let seq = 0;
/** An explicit `engram extract` or `engram import` is a job like the hooks' ones: it waits its turn behind (never beside) them. */
function viaQueue(host: RunningHost, kind: string, task: () => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const id = `cli-${kind}:${++seq}`;
    host.queue.push(id, { sessionId: id, minBytes: 0, force: true, files: [], task: () => task().then(resolve, reject) });
  });
}

async function indexInHost(host: RunningHost, options: Options, json: boolean, out: CliResult): Promise<number> {
  const { engine, state } = host;
  const started = Date.now();
  const rebuild = Boolean(options.rebuild);
  // Without its snapshot, the index reads every note again; the fresh snapshot is saved right after.
  if (rebuild) {
    fs.rmSync(state.snapshot, { force: true });
    await engine.reindex();
  } else await engine.reconcile();
  await engine.save();
  let bytes = 0;
  try {
    bytes = fs.statSync(state.snapshot).size;
  } catch {
    // the built-in fallback index keeps no snapshot
  }
  const ms = Date.now() - started;
  if (json) {
    out.stdout.push(JSON.stringify({ vault: state.vault, snapshot: state.snapshot, snapshotBytes: bytes, host: { pid: process.pid }, rebuilt: rebuild, notes: engine.noteCount(), mode: engine.index.mode, ms }, null, 2));
    return 0;
  }
  out.stdout.push(`Indexed ${state.vault}: ${engine.noteCount()} notes (${(ms / 1000).toFixed(1)} s), by the running host (pid ${process.pid})`);
  out.stdout.push(`  ${rebuild ? 'full rebuild' : 'brought up to date'}; search mode: ${engine.index.mode}`);
  out.stdout.push(`  snapshot: ${state.snapshot} (${(bytes / 1e6).toFixed(1)} MB)`);
  return 0;
}

/** Runs one CLI write command in the host and returns what the CLI would have printed. */
export async function runHostCommand(host: RunningHost, env: NodeJS.ProcessEnv, req: Params<'cli'>, notify?: Notify): Promise<CliResult> {
  await host.engine.whenReady();
  const options = checkOptions(req.options);
  const json = Boolean(req.json);
  const out: CliResult = { stdout: [], stderr: [], exitCode: 0 };
  const run = async (): Promise<void> => {
    try {
      if (req.command === 'index') {
        out.exitCode = await indexInHost(host, options, json, out);
        return;
      }
      const entry = commands.find((c) => c.name === req.command);
      if (!entry) throw new EngramError('usage', `unknown command ${req.command}`);
      const def = (await entry.load()).command;
      const ctx: CommandContext = {
        args: req.args,
        options,
        global: { vault: host.state.vault, json },
        // The vault's Engram log names who acted: the CLI user, or an agent through MCP.
        env: { ...env, ENGRAM_ACTOR: req.actor ?? 'cli' },
        cwd: req.cwd,
        stdout: (t) => out.stdout.push(t.replace(/\n$/, '')),
        // A streamed request sees progress as it happens (an import's conversation count), not all at the end.
        stderr: (t) => {
          const line = t.replace(/\n$/, '');
          if (req.stream && notify) notify(CLI_OUTPUT, { stream: 'stderr', line } satisfies CliOutput);
          else out.stderr.push(line);
        },
        isTTY: false,
        readStdin: () => Promise.resolve(''),
      };
      out.exitCode = await def.run(ctx);
    } catch (e) {
      if (!(e instanceof EngramError)) throw e;
      out.exitCode = 1;
      out.error = { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) };
    } finally {
      // What the command wrote is in the index before the answer goes out.
      await host.engine.reconcile();
    }
  };
  if (req.command === 'extract' || req.command === 'import') await viaQueue(host, req.command, run);
  else await serialized(run);
  host.log('info', `ran \`engram ${req.command}${req.args.length ? ` ${req.args.join(' ')}` : ''}\` for ${req.actor ?? 'cli'} (exit ${out.exitCode})`);
  return out;
}
