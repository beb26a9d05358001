// Transcript parsing: throughput on the largest corpus transcript (target ≥ 50 MB/s), and peak RSS
// while reading a generated 100 MB transcript (target < 150 MB). The RSS runs in a child process
// of plain node on an esbuild bundle of the reader, so neither tsx nor this process's heap counts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import esbuild from 'esbuild';
import { readClaudeCode } from '../src/core/transcript/claude-code.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const transcripts = path.resolve(process.env.ENGRAM_SHARED_DIR ?? path.join(root, '..', 'shared'), 'corpus', 'transcripts');
const MB = 1024 * 1024;

function largestClaudeFile(): string | undefined {
  if (!fs.existsSync(transcripts)) return undefined;
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'codex') walk(p);
      } else if (e.name.endsWith('.jsonl')) files.push(p);
    }
  };
  walk(transcripts);
  return files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
}

function* chunks(buf: Uint8Array, size = MB): Generator<Uint8Array> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function throughput(file: string): Promise<void> {
  const buf = new Uint8Array(fs.readFileSync(file));
  await readClaudeCode(chunks(buf)); // warm up
  let bytes = 0;
  let runs = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < 3000 || runs < 3) {
    await readClaudeCode(chunks(buf));
    bytes += buf.length;
    runs++;
  }
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const mbps = bytes / MB / s;
  // On a shared machine wall time includes waiting for a core; CPU time shows the parser's own speed.
  const perCpu = bytes / MB / ((cpu.user + cpu.system) / 1e6);
  console.log(`  parse throughput (in memory): ${mbps.toFixed(0)} MB/s wall, ${perCpu.toFixed(0)} MB per CPU-second, on ${path.relative(transcripts, file)} (${(buf.length / MB).toFixed(1)} MB, ${runs} runs) [target ≥ 50] ${mbps >= 50 ? 'ok' : 'MISSED'}`);
  console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
  const t1 = performance.now();
  const session = await readClaudeCode(fs.createReadStream(file, { highWaterMark: MB }) as AsyncIterable<Uint8Array>);
  const fromDisk = buf.length / MB / ((performance.now() - t1) / 1000);
  console.log(`  parse throughput (from disk, one cold-ish run): ${fromDisk.toFixed(0)} MB/s; ${session.turns.length} turns kept`);
}

/** ~100 MB of realistic Claude Code JSONL: the corpus file repeated with fresh ids, or synthetic records. */
function generate(target: number, dir: string, template?: string): string {
  const out = path.join(dir, 'big.jsonl');
  const fd = fs.openSync(out, 'w');
  let written = 0;
  let rep = 0;
  const base = template ? fs.readFileSync(template, 'utf8') : synthetic();
  while (written < target) {
    const tag = rep.toString(16).padStart(8, '0');
    const text = base.replace(/"(uuid|parentUuid|leafUuid|logicalParentUuid)":"[0-9a-f]{8}/g, `"$1":"${tag}`).replace(/"id":"msg_/g, `"id":"msg_${tag}`);
    fs.writeSync(fd, text.endsWith('\n') ? text : `${text}\n`);
    written += Buffer.byteLength(text);
    rep++;
  }
  fs.closeSync(fd);
  return out;
}

function synthetic(): string {
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const uuid = `${(i * 7919).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
    if (i % 4 === 0) lines.push(JSON.stringify({ type: 'user', uuid, sessionId: 's', message: { role: 'user', content: `question ${i} about the build ${'detail '.repeat(30)}` } }));
    else if (i % 4 === 1) lines.push(JSON.stringify({ type: 'assistant', uuid, message: { id: `msg_${i}`, role: 'assistant', content: [{ type: 'text', text: `answer ${i} ${'explanation '.repeat(60)}` }, { type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: '/x' } }] } }));
    else if (i % 4 === 2) lines.push(JSON.stringify({ type: 'user', uuid, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i - 1}`, content: 'file contents\n'.repeat(400) }] } }));
    else lines.push(JSON.stringify({ type: 'progress', uuid, data: { type: 'hook_progress', hookEvent: 'PostToolUse' } }));
  }
  return `${lines.join('\n')}\n`;
}

const CHILD = `
import fs from 'node:fs';
import { ClaudeCodeReader, readClaudeCode } from '${path.join(root, 'src/core/transcript/index.ts').replace(/\\/g, '/')}';
const [file, mode] = process.argv.slice(2);
const t0 = performance.now();
let turns = 0;
const src = fs.createReadStream(file, { highWaterMark: 1 << 20 });
if (mode === 'stream') {
  const reader = new ClaudeCodeReader();
  for await (const _t of reader.turns(src)) turns++;
} else if (mode === 'session') {
  turns = (await readClaudeCode(src)).turns.length;
}
const s = (performance.now() - t0) / 1000;
// VmHWM is this process's own peak; getrusage's maxRSS on Linux starts from the parent's peak at fork, so a large
// parent (the other benchmarks) would be counted in it.
let peakKb = process.resourceUsage().maxRSS;
try {
  const hwm = /VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  if (hwm) peakKb = Number(hwm[1]);
} catch {}
process.stdout.write(JSON.stringify({ maxRssKb: peakKb, seconds: s, turns }));
`;

function child(bundle: string, file: string, mode: string): { maxRssKb: number; seconds: number; turns: number } {
  const r = spawnSync(process.execPath, [bundle, file, mode], { encoding: 'utf8', maxBuffer: MB });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { maxRssKb: number; seconds: number; turns: number };
}

export async function run(): Promise<void> {
  const largest = largestClaudeFile();
  if (largest) await throughput(largest);
  else console.log(`  skipped throughput: corpus not found at ${transcripts}`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
  try {
    const entry = path.join(dir, 'child.ts');
    fs.writeFileSync(entry, CHILD);
    const bundle = path.join(dir, 'child.mjs');
    await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
    const big = generate(100 * MB, dir, largest);
    const size = fs.statSync(big).size / MB;
    console.log(`  generated ${size.toFixed(0)} MB transcript from ${largest ? 'the largest corpus file, repeated with fresh ids' : 'synthetic records'}`);
    const base = child(bundle, big, 'none');
    console.log(`  node baseline: ${(base.maxRssKb / 1024).toFixed(0)} MB RSS`);
    for (const mode of ['stream', 'session']) {
      const r = child(bundle, big, mode);
      const rss = r.maxRssKb / 1024;
      const label = mode === 'stream' ? 'streaming turns' : 'whole Session kept';
      console.log(`  peak RSS, ${label}: ${rss.toFixed(0)} MB (${(size / r.seconds).toFixed(0)} MB/s from disk, ${r.turns} turns) [target < 150] ${rss < 150 ? 'ok' : 'MISSED'}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
