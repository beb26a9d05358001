// Issue 25, item 9: 50 UserPromptSubmit hooks at once with no host running, on the 13,415-note vault (the shared
// corpus's digitalyoshixi-zettelkasten, copied into a sandbox): how many get context, how many hosts start, and the
// hooks' wall times beside fifty concurrent `node -e 0` in the same run (and the same 50 hooks with the host warm).
// The host starts from the saved index and note cache, as after an idle exit or a reboot (a host ran once first).
// Also the host's CPU from exec to its first context answer (bench/lib/first-answer.ts): the figure the load on a
// shared machine moves least.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { builtCli } from './lib/built-cli.js';
import { cliPath, runCli } from '../tests/helpers/cli.js';
import { makeSandbox, waitFor } from '../tests/helpers/host.js';
import { corpusDir } from '../tests/helpers/shared.js';
import { firstAnswer } from './lib/first-answer.js';

const N = 50;
// A question one note of the vault answers (American Fuzzy Lop.md, read for this).
const PROMPT = 'how do I compile an AFL harness with instrumentation for fuzzing with afl-cc?';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

interface Timed {
  ms: number;
  stdout: string;
}

function timed(args: string[], env: NodeJS.ProcessEnv, cwd: string, input: string): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', () => resolve({ ms: performance.now() - t0, stdout }));
    // A process that exits before reading its input (a hook given up on a loaded machine) must not end the bench.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

const burst = (make: (i: number) => Promise<Timed>) => Promise.all(Array.from({ length: N }, (_, i) => make(i)));

function describe(label: string, runs: Timed[], base: Timed[]): string {
  const withContext = runs.filter((r) => r.stdout.includes('additionalContext')).length;
  return `${label}: ${withContext}/${N} got context; p50 ${pct(runs.map((r) => r.ms), 50).toFixed(0)} ms, p95 ${pct(runs.map((r) => r.ms), 95).toFixed(0)} ms (p95 ${(pct(runs.map((r) => r.ms), 95) / pct(base.map((r) => r.ms), 95)).toFixed(2)}× node -e 0)`;
}

export async function run(): Promise<void> {
  const source = path.join(corpusDir, 'vaults', 'digitalyoshixi-zettelkasten');
  if (!fs.existsSync(source)) {
    console.log(`  skipped: ${source} is absent (the shared corpus)`);
    return;
  }
  builtCli();
  const sb = makeSandbox();
  try {
    fs.cpSync(source, sb.vault, { recursive: true });
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
    const indexed = runCli(['index'], { env: sb.env, timeout: 600_000 });
    if (indexed.code !== 0) throw new Error(`engram index failed: ${indexed.stderr}`);
    console.log(`  ${indexed.stdout.trim().split('\n').pop()}`);
    // As after an idle exit or a reboot: a host ran once (it saved the index and its note cache) and is gone.
    const ran = spawn(process.execPath, [cliPath, 'serve', '--foreground', '--vault', sb.vault], { env: sb.env, stdio: 'ignore' });
    await waitFor(() => JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout).host?.index?.ready, 120_000, 'the first host ready');
    runCli(['serve', '--stop'], { env: sb.env });
    await new Promise((r) => (ran.exitCode === null ? ran.on('exit', r) : r(null)));
    // The load-robust figure: the host's own CPU from exec to its first answer (best of 3), beside its wall time.
    if (fs.existsSync('/proc/self/stat')) {
      const firsts = [];
      for (let i = 0; i < 3; i++) firsts.push(await firstAnswer(cliPath, sb.vault, sb.env, PROMPT));
      const best = firsts.reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a));
      console.log(`  one host from its saved index to its first context answer (${best.chars} chars): CPU ${best.cpuMs.toFixed(0)} ms (best of 3; ${firsts.map((f) => f.cpuMs.toFixed(0)).join(', ')}), wall ${best.ms.toFixed(0)} ms; load average ${os.loadavg()[0].toFixed(1)}`);
    }
    const input = (i: number) => JSON.stringify({ session_id: `burst-${i}-${Date.now()}`, cwd: sb.root, hook_event_name: 'UserPromptSubmit', prompt: PROMPT });

    // This figure is only as good as the machine is quiet: its load is printed beside it.
    console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} on ${os.cpus().length} cores`);
    const base = await burst(() => timed(['-e', '0'], sb.env, sb.root, ''));
    console.log(`  ${N} concurrent node -e 0: p50 ${pct(base.map((r) => r.ms), 50).toFixed(0)} ms, p95 ${pct(base.map((r) => r.ms), 95).toFixed(0)} ms`);

    const cold = await burst((i) => timed([cliPath, 'hook', 'UserPromptSubmit'], sb.env, sb.root, input(i)));
    const log = fs.readFileSync(path.join(sb.engramHome, 'logs', 'hook.log'), 'utf8');
    const started = (log.match(/started one \(pid \d+\)/g) ?? []).length;
    console.log(`  ${describe(`${N} concurrent UserPromptSubmit, no host`, cold, base)}; ${started} host${started === 1 ? '' : 's'} started`);
    for (const why of new Set(log.split('\n').filter((l) => /no context/.test(l)).map((l) => l.replace(/^\S+ /, '').replace(/\d+ ms/, 'N ms')))) console.log(`    ${why}`);

    await waitFor(() => JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout).host?.index?.ready, 60_000, 'the host ready');
    const base2 = await burst(() => timed(['-e', '0'], sb.env, sb.root, ''));
    const warm = await burst((i) => timed([cliPath, 'hook', 'UserPromptSubmit'], sb.env, sb.root, input(i + N)));
    console.log(`  ${describe(`${N} concurrent UserPromptSubmit, host warm`, warm, base2)}`);
    runCli(['serve', '--stop'], { env: sb.env });
  } finally {
    await sb.cleanup();
  }
}
