// End to end on real Claude Code transcripts from ../shared/corpus: a scripted model reply that quotes the
// transcript produces the expected notes in a temporary vault; a second run adds nothing; rules runs offline.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCorpus, corpusPath, corpusSkipReason } from '../helpers/shared.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { ScriptedBackend, beatsFor } from '../helpers/extract.js';
import { extractTranscript, readTranscriptFile } from '../../sidecar/hosting/extract-runner.js';
import { hostFacts } from '../../sidecar/hosting/facts.js';
import { vaultKey } from '../../src/core/state.js';
import { parseNote } from '../../src/core/note/frontmatter.js';
import { loadConfig } from '../../sidecar/hosting/config-file.js';

const file = hasCorpus ? corpusPath('transcripts', 'marot-spotter', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl') : '';

describe.skipIf(!hasCorpus)(`extraction on a real transcript (${hasCorpus ? 'corpus present' : corpusSkipReason})`, () => {
  let tmp: string;
  let vault: string;
  let ctx: Parameters<typeof extractTranscript>[0];
  const backend = new ScriptedBackend((req) => beatsFor(req));
  beforeAll(() => {
    tmp = makeTempDir('engram-extract-corpus-');
    vault = path.join(tmp, 'vault');
    fs.mkdirSync(vault);
    const facts = hostFacts({ ...process.env, ENGRAM_HOME: path.join(tmp, 'home'), HOME: tmp, ENGRAM_FAULT: '' });
    ctx = { facts, config: loadConfig(facts).config, vaultRoot: vault, vaultKey: vaultKey(vault, process.platform), backend, transcriptPath: file };
  });
  afterAll(() => removeDir(tmp));

  it('writes one grounded note per scripted beat, and nothing on a second run', async () => {
    const session = await readTranscriptFile(file);
    // A small window, so that this session (about 4,200 tokens of conversation) spans several windows.
    const run = await extractTranscript({ ...ctx, window: { budgetTokens: 1500 } });
    // What the script proposes, computed from the requests the model actually saw: eligible user turns, at most 5 a window.
    const proposed = backend.requests.map((r) => Math.min(5, JSON.parse(beatsFor(r)).beats.length)).reduce((a, b) => a + b, 0);
    expect(run.windows.total).toBeGreaterThan(1);
    expect(run.beats.extracted).toBe(proposed);
    expect(run.beats.created + run.beats.extended + run.beats.duplicates).toBe(proposed);
    const text = session.turns.map((t) => t.text).join('\n');
    const notes = run.notes.filter((n) => n.action === 'created').map((n) => parseNote(fs.readFileSync(path.join(vault, n.path), 'utf8')));
    for (const n of notes) {
      expect(n.data?.engram_session).toBe(session.meta.sessionId);
      const quote = /> \[!quote\]- Source\n> (.*)\n/.exec(n.body)?.[1] ?? '';
      expect(text.replace(/\s+/g, ' ')).toContain(quote.slice(0, 30));
    }
    const calls = backend.calls;
    const again = await extractTranscript({ ...ctx, window: { budgetTokens: 1500 } });
    expect(again.windows.total).toBe(0);
    expect(backend.calls).toBe(calls);
  });

  it('the rules backend runs on it with no network', async () => {
    const run = await extractTranscript({ ...ctx, backend: 'rules', vaultKey: '0123456789abcdef' });
    expect(run.errors).toEqual([]);
    expect(run.windows.total).toBeGreaterThan(0);
  });
});
