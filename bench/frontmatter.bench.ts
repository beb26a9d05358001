// Frontmatter: parse throughput on the 13,415-note Zettelkasten (target ≥ 5,000 notes/s), the in-memory round-trip
// edit rate, and the wall time of the built `engram check` on the same vault (target < 5 s).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseNote } from '../src/core/note/frontmatter.js';
import { roundtripCheck } from '../src/core/note/roundtrip.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const vault = path.resolve(process.env.ENGRAM_SHARED_DIR ?? path.join(root, '..', 'shared'), 'corpus', 'vaults', 'digitalyoshixi-zettelkasten');

function notes(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

export async function run(): Promise<void> {
  if (!fs.existsSync(vault)) {
    console.log(`  skipped: ${vault} not found (../shared/corpus absent)`);
    return;
  }
  const texts = notes(vault).map((f) => fs.readFileSync(f, 'utf8'));
  console.log(`  vault: digitalyoshixi-zettelkasten, ${texts.length} notes, ${(texts.reduce((n, t) => n + t.length, 0) / 1e6).toFixed(1)} M chars`);

  // Cold (first pass, as `engram check` sees it) and warm (best of three); wall time and this process's CPU time
  // (on a shared machine the wall time measures the neighbours as much as the parser).
  let cold = { wall: 0, cpu: 0 };
  const runs: { wall: number; cpu: number }[] = [];
  for (let r = 0; r < 4; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    let invalid = 0;
    for (const t of texts) if (parseNote(t).problem) invalid++;
    const c = process.cpuUsage(c0);
    const m = { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
    if (r === 0) {
      cold = m;
      console.log(`  invalid frontmatter: ${invalid}`);
    } else runs.push(m);
  }
  const warm = { wall: Math.min(...runs.map((r) => r.wall)), cpu: Math.min(...runs.map((r) => r.cpu)) };
  const rate = (ms: number) => Math.round((texts.length / ms) * 1000);
  const fmt = (m: { wall: number; cpu: number }) => `${rate(m.wall).toLocaleString('en')} notes/s (${rate(m.cpu).toLocaleString('en')} per CPU-second)`;
  console.log(`  parse warm: ${fmt(warm)} (target ≥ 5,000) ${rate(warm.wall) >= 5000 ? 'PASS' : 'FAIL'}`);
  console.log(`  parse cold (first pass, JIT warming up): ${fmt(cold)}`);

  const t1 = performance.now();
  let sideEffects = 0;
  for (const t of texts) if (roundtripCheck(t).status === 'changed-elsewhere') sideEffects++;
  const rt = performance.now() - t1;
  console.log(`  round trip (edit one key, add one, verify): ${rate(rt).toLocaleString('en')} notes/s, ${sideEffects} with side effects`);

  const cli = path.join(root, 'dist', 'engram.mjs');
  if (!fs.existsSync(cli)) {
    console.log('  engram check: skipped (dist/engram.mjs missing: run `npm run build` first)');
    return;
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
  try {
    const walls: number[] = [];
    const cpus: string[] = [];
    // bash's `time` gives the child's CPU seconds as well as the wall time.
    const bash = process.platform !== 'win32' && fs.existsSync('/bin/bash');
    for (let r = 0; r < 2; r++) {
      const t0 = performance.now();
      const env = { ...process.env, ENGRAM_HOME: home, TIMEFORMAT: 'engram-cpu %U %S' };
      const res = bash
        ? spawnSync('/bin/bash', ['-c', 'time "$0" "$1" check --vault "$2"', process.execPath, cli, vault], { env, encoding: 'utf8' })
        : spawnSync(process.execPath, [cli, 'check', '--vault', vault], { env, encoding: 'utf8' });
      walls.push((performance.now() - t0) / 1000);
      const cpu = /engram-cpu ([\d.]+) ([\d.]+)/.exec(res.stderr);
      if (cpu) cpus.push(`${(Number(cpu[1]) + Number(cpu[2])).toFixed(2)} s`);
      if (res.status !== 0) {
        console.log(`  engram check failed: ${res.stderr.trim()}`);
        return;
      }
      if (r === 0) console.log(`  ${res.stdout.trim().split('\n').at(-1)}`);
    }
    const best = Math.min(...walls);
    console.log(`  engram check wall time: ${walls.map((w) => `${w.toFixed(2)} s`).join(', ')} (target < 5 s) ${best < 5 ? 'PASS' : 'FAIL'}`);
    if (cpus.length) console.log(`  engram check CPU time: ${cpus.join(', ')}; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
