// Questions a frontmatter property answers (issue 21, "an excerpt that is raw frontmatter text"): the kepano-obsidian
// questions of bench/recall-sets whose answer is a property of the note (a film's director, a person's twitter, a
// book's author), with the `key: value` text that answers each, found by reading the notes. For each: is the note in
// the top 3 of the index's search, and does the excerpt it shows (what recall, the MCP list and the hooks quote) hold
// that text? Beside it, what a plain excerpt (the file's first 300 characters, as a grep or a naive tool shows) holds.
// `npm run bench -- property-answers`.
import fs from 'node:fs';
import path from 'node:path';
import { VaultIndex } from '../src/core/index/vault-index.js';
import { MemoryVault } from '../src/core/ports/memory-vault.js';
import { corpus, readVaultTexts } from './lib/index-corpus.js';

/**
 * Question id of bench/recall-sets/kepano-obsidian.json -> the property text that answers it (by reading the note), or
 * per answering note when it has several.
 */
const ANSWERS: Record<string, string[] | Record<string, string[]>> = {
  k19: ['director: Ridley Scott', 'cast: Harrison Ford'],
  k20: ['twitter: kepano'],
  k21: ['author: Kevin Kelly', 'year: 1992'],
  k22: ['system: Nintendo Switch'],
  k23: ['host: Steph Ango'],
  k24: ['coordinates: 34.9689499, 135.7692576'],
  k25: ['year: 1957'],
  // The trip note names the city; the city's own note (its title) says where it is.
  k42: { 'Notes/2023 Japan Trip.md': ['loc: Kyoto'], 'References/Kyoto.md': ['loc: Japan'] },
};

export async function run(): Promise<void> {
  const dir = path.join(corpus, 'vaults', 'kepano-obsidian');
  if (!fs.existsSync(dir)) {
    console.log(`  skipped: the kepano-obsidian vault is not at ${dir} (../shared/corpus absent)`);
    return;
  }
  const set = JSON.parse(fs.readFileSync(new URL('./recall-sets/kepano-obsidian.json', import.meta.url), 'utf8')) as { questions: { id: string; q: string; relevant: string[] }[] };
  const texts = readVaultTexts(dir);
  const index = new VaultIndex({ vault: new MemoryVault({ files: texts }) });
  await index.build();
  let found = 0;
  let shown = 0;
  let plain = 0;
  const ids = Object.keys(ANSWERS);
  for (const id of ids) {
    const q = set.questions.find((x) => x.id === id);
    if (!q) throw new Error(`${id} is not in the kepano-obsidian set`);
    const hits = (await index.search(q.q, { limit: 3 })).hits;
    const hit = hits.find((h) => q.relevant.includes(h.path));
    const answers = ANSWERS[id];
    const wantOf = (p: string): string[] => (Array.isArray(answers) ? answers : (answers[p] ?? ['(no answer in this note)']));
    const want = wantOf(hit?.path ?? q.relevant[0]);
    const has = (s: string): boolean => want.every((w) => s.includes(w));
    if (hit) found++;
    if (hit && has(hit.snippet)) shown++;
    const raw = texts[q.relevant[0]].slice(0, 300);
    if (wantOf(q.relevant[0]).every((w) => raw.includes(w))) plain++;
    console.log(`${id} ${q.q}\n    ${hit ? `top 3: ${hit.path}; excerpt ${has(hit.snippet) ? 'answers' : 'MISSES'}: ${JSON.stringify(hit.snippet.slice(0, 160))}` : `not in the top 3 (${hits.map((h) => h.path).join(', ')})`}`);
  }
  console.log(`\n${ids.length} questions a property answers: answering note in the top 3 ${found}/${ids.length}; its excerpt shows the answer as "key: value" text ${shown}/${ids.length}; the file's first 300 characters (plain excerpt) ${plain}/${ids.length}`);
}
