// A test-only `engram serve --foreground`: the real host (sidecar/host/main.ts) as a real process, with the options a
// test needs that a user never sets (fast sweeps, a held job, no embeddings). Run by `sb.serve(env, options)`:
// `node --import tsx tests/helpers/host-entry.ts --vault <path> [--sweep-ms N] [--job-delay-ms N]
// [--defer-retry-ms N] [--idle-ms N] [--no-embeddings]`.
import { register } from 'node:module';
import { parseArgs } from 'node:util';

// Prompt templates are imported as text, as esbuild's `.md` loader does for dist/ (the benchmarks' hook).
register('../../bench/md-text-loader.mjs', import.meta.url);

const { values } = parseArgs({
  options: {
    vault: { type: 'string' },
    'sweep-ms': { type: 'string' },
    'job-delay-ms': { type: 'string' },
    'defer-retry-ms': { type: 'string' },
    'idle-ms': { type: 'string' },
    'no-embeddings': { type: 'boolean' },
  },
  strict: true,
});

function ms(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${flag} takes a positive number of milliseconds, not ${value}`);
  return n;
}

async function serve(): Promise<void> {
  if (!values.vault) throw new Error('--vault <path> is required');
  const { runHost } = await import('../../sidecar/host/main.js');
  const outcome = await runHost({
    vault: values.vault,
    foreground: true,
    env: process.env,
    sweepMs: ms('sweep-ms', values['sweep-ms']),
    jobDelayMs: ms('job-delay-ms', values['job-delay-ms']),
    deferRetryMs: ms('defer-retry-ms', values['defer-retry-ms']),
    idleMs: ms('idle-ms', values['idle-ms']),
    embeddings: !values['no-embeddings'],
  });
  // What `engram serve --foreground` says and does (sidecar/cli/commands/serve.ts).
  if (outcome.kind === 'already-running') {
    process.stdout.write(`engram serve: a host already serves ${values.vault} (pid ${outcome.owner?.pid ?? '?'}, ${outcome.owner?.host ?? 'daemon'}); nothing to do\n`);
    return;
  }
  process.stderr.write(`engram serve: host exited (${outcome.reason})\n`);
  // chokidar and timers may hold the loop open; the host has saved and released everything.
  setTimeout(() => process.exit(0), 50).unref();
}

serve().catch((e: unknown) => {
  process.stderr.write(`engram: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
