// Hooks with no host running (issue 12): 20 and 50 `engram hook Stop` processes at once. How many `serve`
// processes they start (one is right) and how long each hook takes. ENGRAM_BENCH_CLI=<path to engram.mjs> measures
// another build (e.g. an older checkout's dist/) for comparison.
import fs from 'node:fs';
import { builtCli } from './lib/built-cli.js';
import { cliPath } from '../tests/helpers/cli.js';
import { makeSandbox } from '../tests/helpers/host.js';
import { hookBurst } from '../tests/helpers/hook-burst.js';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export async function run(): Promise<void> {
  const cli = builtCli(process.env.ENGRAM_BENCH_CLI ?? cliPath);
  console.log(`cli ${cli}`);
  for (const n of [20, 50]) {
    const sb = makeSandbox();
    try {
      fs.writeFileSync(`${sb.engramHome}/config.json`, JSON.stringify({ version: 1, backend: 'rules' }));
      const r = await hookBurst(sb, n, cli);
      console.log(`${n} concurrent Stop hooks, no host: ${r.hostsStarted} serve process${r.hostsStarted === 1 ? '' : 'es'} started; hook p50 ${pct(r.hookMs, 50).toFixed(0)} ms, p95 ${pct(r.hookMs, 95).toFixed(0)} ms`);
    } finally {
      await sb.cleanup();
    }
  }
}
