// Damaged and adversarial input: how long redaction takes on text built to make a regular expression backtrack, and
// the JSONL reader on a multi-MB torn line. tests/core/transcript/fuzz.test.ts checks each finishes; the times are
// figures (they were bounds in that test: 2 s per text, 3 s per parse, which a loaded machine stretched).
import { performance } from 'node:perf_hooks';
import { rng } from '../src/core/rng.js';
import { parseJsonLine } from '../src/core/transcript/json-records.js';
import { redactText } from '../src/core/transcript/redact.js';
import { adversarialTexts, tornMultiMbLine } from '../tests/fixtures/adversarial-text.js';

export async function run(): Promise<void> {
  const texts = adversarialTexts(rng(16));
  await redactText('warm up the detectors: password: hunter2');
  const times: { ms: number; what: string }[] = [];
  for (const t of texts) {
    const t0 = performance.now();
    await redactText(t);
    times.push({ ms: performance.now() - t0, what: JSON.stringify(t.slice(0, 30)) });
  }
  times.sort((a, b) => b.ms - a.ms);
  const total = times.reduce((a, x) => a + x.ms, 0);
  console.log(`  redaction of ${texts.length} adversarial texts (${(texts.reduce((a, t) => a + t.length, 0) / 1e6).toFixed(1)} M chars): ${total.toFixed(0)} ms in all, slowest ${times[0].ms.toFixed(0)} ms (goal: under 2,000 ms each)`);
  for (const x of times.slice(0, 3)) console.log(`    ${x.ms.toFixed(0)} ms  ${x.what}`);
  const line = tornMultiMbLine();
  const t0 = performance.now();
  const r = parseJsonLine(line);
  console.log(`  a ${(line.length / 1e6).toFixed(1)} MB torn JSONL line: ${(performance.now() - t0).toFixed(0)} ms (torn: ${r.torn}; goal: under 3,000 ms)`);
}
