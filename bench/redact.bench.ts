// Redaction: secrets caught on the fake-secrets set (per format), false positives on the code lines of the
// corpus transcripts, and throughput: each detector alone and together on the corpus sessions' turn text,
// and the Claude Code parse of the largest corpus transcript with redaction off and on.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readClaudeCode } from '../src/core/transcript/claude-code.js';
import { detectFormat, readSession } from '../src/core/transcript/detect.js';
import { redactTexts } from '../src/core/transcript/redact.js';
import { findEngramSecrets } from '../src/core/transcript/secret-rules.js';
import { findSecretlintSecrets } from '../src/core/transcript/secretlint.js';
import { secretSamples } from '../tests/fixtures/redact-secrets.js';
import { codeIn, walk } from '../tests/helpers/corpus-code.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const transcripts = path.resolve(process.env.ENGRAM_SHARED_DIR ?? path.join(root, '..', 'shared'), 'corpus', 'transcripts');
const MB = 1024 * 1024;

async function caught(): Promise<void> {
  const samples = secretSamples();
  const results = await redactTexts(samples.map((s) => s.text));
  let ok = 0;
  const lines: string[] = [];
  samples.forEach((s, i) => {
    const hit = !results[i]!.text.includes(s.secret) && (results[i]!.counts[s.kind] ?? 0) > 0;
    if (hit) ok++;
    lines.push(`    ${hit ? 'caught' : 'MISSED'}  ${s.format} (${s.kind})`);
  });
  console.log(`  secrets caught on the fake set: ${ok}/${samples.length} samples, ${new Set(samples.map((s) => s.format)).size} formats`);
  console.log(lines.join('\n'));
}

async function falsePositives(): Promise<string[]> {
  const files = walk(transcripts, /\.jsonl$/);
  let lines = 0;
  let hits = 0;
  const prose: string[] = [];
  for (const f of files) {
    for (const raw of fs.readFileSync(f, 'utf8').split('\n')) {
      for (const code of codeIn(raw)) {
        const ls = code.split('\n');
        lines += ls.length;
        for (const r of await redactTexts(ls)) if (Object.keys(r.counts).length) hits++;
      }
    }
    const format = detectFormat(fs.readFileSync(f, 'utf8').slice(0, 4000), f);
    if (format !== 'claude-code' && format !== 'codex') continue;
    const s = await readSession(fs.createReadStream(f), format, { source: f, redact: false });
    for (const t of s.turns) prose.push(t.text, ...t.errors);
  }
  const proseLines = prose.flatMap((p) => p.split('\n'));
  let proseHits = 0;
  for (const r of await redactTexts(proseLines)) if (Object.keys(r.counts).length) proseHits++;
  console.log(`  false positives: ${hits} in ${lines} corpus code lines; ${proseHits} in ${proseLines.length} lines of the sessions' own prose`);
  return prose;
}

function rate(bytes: number, ms: number): string {
  return `${(bytes / MB / (ms / 1000)).toFixed(1)} MB/s`;
}

async function throughput(prose: string[]): Promise<void> {
  const bytes = prose.reduce((a, t) => a + t.length, 0);
  // Batches as the readers make them: the turns finished while one 64 KB chunk is read.
  const batches: string[][] = [];
  for (let i = 0, size = 0, cur: string[] = []; i < prose.length; i++) {
    cur.push(prose[i]!);
    size += prose[i]!.length;
    if (size > 64 * 1024 || i === prose.length - 1) {
      batches.push(cur);
      cur = [];
      size = 0;
    }
  }
  let t0 = performance.now();
  for (const t of prose) findEngramSecrets(t);
  const own = performance.now() - t0;
  t0 = performance.now();
  for (const b of batches) await findSecretlintSecrets(b);
  const sl = performance.now() - t0;
  t0 = performance.now();
  for (const b of batches) await redactTexts(b);
  const both = performance.now() - t0;
  console.log(`  redaction of the corpus turn text (${(bytes / MB).toFixed(2)} MB, ${prose.length} texts in ${batches.length} batches): Engram rules ${rate(bytes, own)}, secretlint ${rate(bytes, sl)}, both ${rate(bytes, both)}`);
}

async function parse(): Promise<void> {
  const files = walk(transcripts, /\.jsonl$/).filter((f) => !f.includes(`${path.sep}codex${path.sep}`));
  const file = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  if (!file) return;
  const buf = new Uint8Array(fs.readFileSync(file));
  const chunks = function* (): Generator<Uint8Array> {
    for (let i = 0; i < buf.length; i += MB) yield buf.subarray(i, i + MB);
  };
  const measure = async (redact: boolean): Promise<number> => {
    await readClaudeCode(chunks(), { redact });
    let runs = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < 3000 || runs < 3) {
      await readClaudeCode(chunks(), { redact });
      runs++;
    }
    return (buf.length * runs) / MB / ((performance.now() - t0) / 1000);
  };
  const off = await measure(false);
  const on = await measure(true);
  console.log(`  parse throughput on ${path.relative(transcripts, file)} (${(buf.length / MB).toFixed(1)} MB): ${off.toFixed(0)} MB/s without redaction, ${on.toFixed(0)} MB/s with it (ratio ${(on / off).toFixed(2)})`);
}

export async function run(): Promise<void> {
  await caught();
  if (!fs.existsSync(transcripts)) {
    console.log(`  corpus not found at ${transcripts}: false positives and throughput skipped`);
    return;
  }
  const prose = await falsePositives();
  await throughput(prose);
  await parse();
  console.log(`  load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores (shared machine: figures are noisy)`);
}
