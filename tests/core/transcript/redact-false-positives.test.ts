// False positives of the redactor on ordinary code: this repository's own source (src/, sidecar/,
// tests/ without the secret samples) and, when ../shared is present, the code that appears in the
// corpus transcripts (files written or edited, files read). Target: at most 1 per 10,000 lines.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactTexts } from '../../../src/core/transcript/redact.js';
import { detectFormat, readSession } from '../../../src/core/transcript/detect.js';
import { repoRoot, hasCorpus, corpusPath, corpusSkipReason } from '../../helpers/shared.js';
import { codeIn, walk } from '../../helpers/corpus-code.js';

const MAX_RATE = 1 / 10_000;
// Files that hold secret samples on purpose.
const SAMPLE_FILES = [/tests\/core\/transcript\/redact[^/]*\.ts$/, /tests\/fixtures\/transcripts\//, /tests\/fixtures\/redact-secrets\.ts$/, /tests\/sidecar\/redact[^/]*\.ts$/];


interface Hit {
  where: string;
  line: string;
}

/** Redacts each line of `text` (both detectors, one batch) and records the lines that changed. */
async function scan(name: string, text: string, hits: Hit[]): Promise<number> {
  const lines = text.split('\n');
  const results = await redactTexts(lines);
  lines.forEach((line, i) => {
    const r = results[i]!;
    if (Object.keys(r.counts).length) hits.push({ where: `${name}:${i + 1}`, line: `${line.trim().slice(0, 160)} -> ${JSON.stringify(r.counts)}` });
  });
  return lines.length;
}

describe('redaction false positives', () => {
  it('this repository: at most 1 per 10,000 lines', async () => {
    const files = ['src', 'sidecar', 'tests'].flatMap((d) => walk(path.join(repoRoot, d), /\.(ts|mts|mjs|js|json|md)$/)).filter((f) => !SAMPLE_FILES.some((re) => re.test(f.replace(/\\/g, '/'))));
    const hits: Hit[] = [];
    let lines = 0;
    for (const f of files) lines += await scan(path.relative(repoRoot, f), fs.readFileSync(f, 'utf8'), hits);
    console.log(`redaction false positives, repository: ${hits.length} in ${lines} lines`, hits);
    expect(lines).toBeGreaterThan(1000);
    expect(hits.length / lines, JSON.stringify(hits, null, 1)).toBeLessThanOrEqual(MAX_RATE);
  });

  describe.skipIf(!hasCorpus)(`corpus transcripts' code (${hasCorpus ? 'present' : corpusSkipReason})`, () => {
    it('code written, edited and read in the corpus sessions: at most 1 per 10,000 lines', async () => {
      const files = walk(corpusPath('transcripts'), /\.jsonl$/);
      const hits: Hit[] = [];
      let lines = 0;
      for (const f of files) {
        const name = path.relative(corpusPath('transcripts'), f);
        for (const raw of fs.readFileSync(f, 'utf8').split('\n')) {
          for (const code of codeIn(raw)) lines += await scan(name, code, hits);
        }
      }
      console.log(`redaction false positives, corpus code: ${hits.length} in ${lines} lines`, hits);
      expect(lines).toBeGreaterThan(10_000);
      expect(hits.length / lines, JSON.stringify(hits, null, 1)).toBeLessThanOrEqual(MAX_RATE);
    });

    it("the sessions' own prose (user and assistant turns, as parsed): at most 1 per 10,000 lines", async () => {
      const files = walk(corpusPath('transcripts'), /\.jsonl$/);
      const hits: Hit[] = [];
      let lines = 0;
      for (const f of files) {
        const head = fs.readFileSync(f, 'utf8').slice(0, 4000);
        const format = detectFormat(head, f);
        if (format !== 'claude-code' && format !== 'codex') continue;
        const s = await readSession(fs.createReadStream(f), format, { source: f, redact: false });
        const name = path.relative(corpusPath('transcripts'), f);
        for (const t of s.turns) lines += await scan(`${name}#${t.index}`, t.text, hits);
      }
      console.log(`redaction false positives, corpus prose: ${hits.length} in ${lines} lines`, hits);
      expect(lines).toBeGreaterThan(10_000);
      expect(hits.length / lines, JSON.stringify(hits, null, 1)).toBeLessThanOrEqual(MAX_RATE);
    });
  });
});
