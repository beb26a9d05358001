// The `rules` extractor on the real transcripts of the corpus: notes filed per transcript and every title, so that
// precision can be judged by reading them (bench/rules-judged.md holds the last reading). Offline and deterministic.
import fs from 'node:fs';
import path from 'node:path';
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MAX_TITLE_CHARS, endsMidClause } from '../src/core/note/title.js';

// The extraction pipeline imports its prompt files as text.
register('./md-text-loader.mjs', import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const transcripts = path.resolve(process.env.ENGRAM_SHARED_DIR ?? path.join(root, '..', 'shared'), 'corpus', 'transcripts');

export async function run(): Promise<void> {
  if (!fs.existsSync(transcripts)) {
    console.log(`  skipped: no corpus at ${transcripts} (set ENGRAM_SHARED_DIR)`);
    return;
  }
  const { rulesOnCorpus } = await import('./lib/rules-corpus.js');
  const t0 = performance.now();
  const results = await rulesOnCorpus(transcripts);
  const ms = performance.now() - t0;
  let notes = 0;
  let withUser = 0;
  let human = 0;
  let humanTurns = 0;
  let cut = 0;
  for (const r of results) {
    if (r.turns.user > 0 && !r.skipped) withUser++;
    if (r.humanTurns > 0 && !r.skipped) human++;
    humanTurns += r.humanTurns;
    notes += r.notes.length;
    const label = r.skipped ? `skipped (${r.skipped})` : `${r.notes.length} note${r.notes.length === 1 ? '' : 's'}`;
    console.log(`  ${r.file}: ${r.turns.user} user turns (${r.humanTurns} typed by a person), ${label}`);
    for (const n of r.notes) {
      const bad = n.title.length >= MAX_TITLE_CHARS || endsMidClause(n.title);
      if (bad) cut++;
      console.log(`      [${n.type}] ${n.title}${bad ? '   <-- CUT OR TOO LONG' : ''}`);
      const said = n.body.split('\n\n')[0].replace(/\s+/g, ' ');
      console.log(`          "${said.length > 200 ? `${said.slice(0, 199)}…` : said}"`);
    }
    for (const why of r.rejected) console.log(`      rejected: ${why}`);
  }
  console.log(`  ${results.length} transcripts, ${withUser} with user turns, ${human} with text a person typed (${humanTurns} turns)`);
  console.log(`  ${notes} notes: ${(notes / results.length).toFixed(2)} per transcript, ${(notes / Math.max(1, human)).toFixed(2)} per transcript a person typed in, one per ${(humanTurns / Math.max(1, notes)).toFixed(1)} typed turns`);
  console.log(`  titles ≥ ${MAX_TITLE_CHARS} characters or ending mid-clause: ${cut}`);
  console.log(`  time ${(ms / 1000).toFixed(1)} s for the whole corpus (2 shared cores, noisy)`);
}
