// Curation on the 13,415-note Zettelkasten: finding merge candidates with vectors present, and rewriting the links
// for one merge across the whole vault. Vectors: hashed TF-IDF word vectors (384-d, LexicalVectors), because
// the corpus has no embeddings; random unit vectors are also run to show the pair count does not depend on them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyProposal } from '../src/core/curate/apply.js';
import { loadCatalog } from '../src/core/curate/catalog.js';
import { LexicalVectors } from '../src/core/curate/lexical-vectors.js';
import { curatable, findMergeCandidates, type NoteVectors } from '../src/core/curate/merge-candidates.js';
import { MemoryProposalStore, makeProposal } from '../src/core/curate/proposals.js';
import { mergeDraft } from '../src/core/curate/restructure.js';
import { isSplitCandidate, splitDraft } from '../src/core/curate/split.js';
import { planLinkRewrites } from '../src/core/curate/apply.js';
import { curateSettings } from '../src/core/curate/settings.js';
import { MemoryVault } from '../src/core/ports/memory-vault.js';
import { cosine, neighbourJoin } from '../src/core/curate/neighbour-join.js';
import { NodeVault } from '../sidecar/hosting/node-vault.js';

const vaultDir = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus', 'vaults', 'digitalyoshixi-zettelkasten');

function randomVectors(paths: string[], dim: number): NoteVectors {
  let s = 12345;
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296) - 0.5;
  const map = new Map<string, Float32Array>();
  for (const p of paths) {
    const v = new Float32Array(dim);
    let n = 0;
    for (let i = 0; i < dim; i++) n += (v[i] = rand()) ** 2;
    for (let i = 0; i < dim; i++) v[i] /= Math.sqrt(n);
    map.set(p, v);
  }
  return { vector: (p) => map.get(p) };
}

const ms = (t: number) => `${(performance.now() - t).toFixed(0)} ms`;

export async function run(): Promise<void> {
  if (!fs.existsSync(vaultDir)) {
    console.log(`  skipped: ${vaultDir} not found (../shared/corpus absent)`);
    return;
  }
  const settings = curateSettings();
  let t = performance.now();
  const catalog = await loadCatalog(new NodeVault(vaultDir));
  console.log(`  read ${catalog.notes.size} notes (text, frontmatter, links): ${ms(t)}`);
  t = performance.now();
  let links = 0;
  for (const n of catalog.notes.values()) links += n.links.length;
  catalog.backlinks('x');
  console.log(`  link graph: ${links} links parsed, backlink map built: ${ms(t)}`);
  const paths = curatable(catalog, settings);

  t = performance.now();
  const lexical = new LexicalVectors(catalog, paths);
  console.log(`  word vectors (hashed TF-IDF, 384-d) for ${paths.length} notes: ${ms(t)} (setup, not part of the search)`);

  for (const [label, vectors] of [['word vectors', lexical], ['random unit vectors', randomVectors(paths, 384)]] as const) {
    t = performance.now();
    const found = await findMergeCandidates(catalog, settings, { vectors });
    const took = performance.now() - t;
    const merges = found.clusters.filter((c) => c.members.length <= 5).length;
    const allPairs = (found.notesWithVectors * (found.notesWithVectors - 1)) / 2;
    if (label === 'word vectors') for (const c of found.clusters.slice(0, 5)) console.log(`    e.g. ${c.members.join(' + ')} (≥ ${c.minScore.toFixed(2)}; ${c.shared.slice(0, 3).join(', ')})`);
    console.log(
      `  merge candidates (${label}): ${took.toFixed(0)} ms (target < 15000), ${found.pairsCompared} pairs compared of ${allPairs} (${((100 * found.pairsCompared) / allPairs).toFixed(1)}%: ${found.neighbourPairs} near neighbours, ${found.sharedPairs} sharing a tag or link), ` +
        `${found.clusters.length} clusters (${merges} merges, ${found.clusters.length - merges} hubs)`,
    );
  }

  t = performance.now();
  let splits = 0;
  let parts = 0;
  for (const p of paths) {
    const n = catalog.get(p)!;
    if (!isSplitCandidate(n.text, n.body.length, settings)) continue;
    const d = splitDraft(catalog, p);
    if (d) {
      splits++;
      parts += d.writes.length - 1;
    }
  }
  console.log(`  split candidates (> ${settings.splitMinChars} chars, ≥ ${settings.splitMinSections} top-level sections): ${splits} notes into ${parts} parts, found and drafted in ${ms(t)}`);

  // How many near-duplicate pairs the bucketed join misses: exact scans for a sample of notes.
  {
    const rows = paths.filter((p) => lexical.vector(p));
    const dim = 384;
    const data = new Float32Array(rows.length * dim);
    rows.forEach((p, i) => data.set(lexical.vector(p)!, i * dim));
    const m = { data, dim, count: rows.length };
    const floor = 0.6; // below the merge threshold, so the check has enough pairs to mean something
    const join = neighbourJoin(m, settings.neighbours, floor);
    const found = new Set(join.pairs.map((p) => `${p.a}:${p.b}`));
    let exact = 0;
    let hit = 0;
    let exactHigh = 0;
    let hitHigh = 0;
    const sample = 500;
    for (let s = 0; s < sample; s++) {
      const a = Math.floor((s * rows.length) / sample);
      for (let b = 0; b < rows.length; b++) {
        if (b === a) continue;
        const sim = cosine(m, a, b);
        if (sim < floor) continue;
        const got = found.has(`${Math.min(a, b)}:${Math.max(a, b)}`);
        exact++;
        if (got) hit++;
        if (sim >= settings.mergeThreshold) {
          exactHigh++;
          if (got) hitHigh++;
        }
      }
    }
    console.log(`  join recall check (${sample} notes scanned exactly): ≥ ${settings.mergeThreshold}: ${hitHigh} of ${exactHigh} pairs found; ≥ ${floor}: ${hit} of ${exact}`);
  }

  // One merge: the most-linked note absorbs a neighbour; rewrite every link to the absorbed one across the vault.
  const byBacklinks = paths.filter((p) => catalog.get(p)!.meta).sort((a, b) => catalog.backlinks(b).size - catalog.backlinks(a).size);
  const absorbed = byBacklinks[0];
  const keeper = byBacklinks[1];
  t = performance.now();
  const draft = mergeDraft(catalog, { members: [keeper, absorbed], minScore: 1, shared: [] });
  const rewrites = planLinkRewrites(catalog, draft);
  const edits = rewrites.reduce((n, r) => n + r.edits.length, 0);
  console.log(`  link rewrites for one merge (${draft.redirect?.kind === 'move' ? draft.redirect.moves[0][0] : absorbed} → ${draft.writes[0].path}): ${edits} links in ${rewrites.length} notes planned in ${ms(t)} (target < 2000)`);

  // The same merge applied end to end on an in-memory copy (re-reads the whole vault, writes, trashes, logs).
  const files: Record<string, string> = {};
  for (const n of catalog.notes.values()) files[n.path] = n.text;
  const vault = new MemoryVault({ files });
  const store = new MemoryProposalStore();
  const p = makeProposal(draft, Date.now(), 7);
  await store.save(p);
  t = performance.now();
  const r = await applyProposal({ vault, store, settings, clock: { now: () => Date.now() } }, p.id);
  console.log(`  apply that merge end to end (fresh vault read + ${r.relinked.length} notes relinked + trash + log): ${ms(t)}`);

  // And on disk, as `engram restructure --apply` does it (a temporary copy of the vault; ../shared is never written).
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-curate-bench-'));
  try {
    fs.cpSync(vaultDir, copy, { recursive: true });
    const diskStore = new MemoryProposalStore();
    await diskStore.save(p);
    t = performance.now();
    const d = await applyProposal({ vault: new NodeVault(copy), store: diskStore, settings, clock: { now: () => Date.now() } }, p.id);
    console.log(`  the same on disk (NodeVault: read all ${catalog.notes.size} notes, ${d.relinked.length} rewritten atomically, trash, log): ${ms(t)}`);
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}
