// Merge candidates: notes that say the same thing. A pair qualifies only when its vectors are close AND it shares
// a tag or a link: no cosine threshold alone separates duplicates from related notes, so this only proposes.
// Only pairs that share a tag or a link, or are near neighbours, are compared (never all pairs).
import type { NoteCatalog } from './catalog';
import { cosine, neighbourJoin, type VectorMatrix } from './neighbour-join';
import { Evidence, isGenerated, isTemplate, type PairEvidence } from './evidence';
import { inFolder, type CurateSettings } from './settings';

/** Note-level unit vectors, from the index's vector store. */
export interface NoteVectors {
  vector(path: string): Float32Array | undefined;
}

/** Nearest notes by meaning (the index's vector search); used when vectors cannot be read directly. */
export interface NeighbourSource {
  neighbours(path: string, k: number): Promise<Array<{ path: string; score: number }>>;
}

export interface MergeCluster {
  members: string[];
  /** Lowest similarity of the pairs that joined the cluster. */
  minScore: number;
  /** Tags or link targets the members share. */
  shared: string[];
  /** Lowest confidence of the pairs that joined the cluster (0..1). */
  confidence?: number;
  /** What matched and what differs, pair by pair. */
  evidence?: Array<{ a: string; b: string } & PairEvidence>;
}

export interface MergeSearch {
  clusters: MergeCluster[];
  pairsCompared: number;
  /** Of which: pairs compared inside the neighbour buckets, and pairs that share a narrow tag or a link. */
  neighbourPairs: number;
  sharedPairs: number;
  notesConsidered: number;
  notesWithVectors: number;
}

/** Files another plugin keeps its data in (Excalidraw drawings, Kanban boards): never merged or split. */
export function pluginOwned(path: string, text: string): boolean {
  if (/\.excalidraw\.md$/i.test(path)) return true;
  const head = text.slice(0, 2000);
  return /^---\r?\n/.test(head) && /^[\w-]+-plugin\s*:/m.test(head.slice(0, head.indexOf('\n---', 3) >>> 0));
}

/** Notes curation may propose to change: valid frontmatter, unlocked, not a plugin's data file, outside Engram's archive and log. */
export function curatable(catalog: NoteCatalog, settings: CurateSettings, folder?: string): string[] {
  const out: string[] = [];
  for (const n of catalog.notes.values()) {
    if (!n.meta || n.meta.locked || pluginOwned(n.path, n.text)) continue;
    if (inFolder(n.path, settings.folders.archive) || inFolder(n.path, settings.folders.log)) continue;
    // Generated notes and templates are another tool's or the user's machinery, never merged or split.
    if (isTemplate(n.path, settings.templatesFolders) || isGenerated(n.text)) continue;
    if (folder !== undefined && !inFolder(n.path, folder)) continue;
    out.push(n.path);
  }
  return out.sort();
}

function sharedBetween(catalog: NoteCatalog, a: string, b: string): string[] {
  const na = catalog.get(a)!;
  const nb = catalog.get(b)!;
  const tagsB = new Set(nb.tags);
  const shared = na.tags.filter((t) => tagsB.has(t)).map((t) => `#${t}`);
  const outA = catalog.outgoing(a);
  const outB = catalog.outgoing(b);
  if (outA.has(b) || outB.has(a)) shared.push('linked');
  for (const t of outA) if (outB.has(t)) shared.push(`[[${t.replace(/\.md$/i, '')}]]`);
  return shared;
}

class UnionFind {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = new Int32Array(n).map((_, i) => i);
  }
  find(x: number): number {
    while (this.parent[x] !== x) {
      this.parent[x] = this.parent[this.parent[x]];
      x = this.parent[x];
    }
    return x;
  }
  union(a: number, b: number): void {
    this.parent[this.find(a)] = this.find(b);
  }
}

/** Groups of notes from which pairs are drawn: each narrow tag, each note's links, each link target's linkers. */
function pairGroups(catalog: NoteCatalog, index: Map<string, number>, max: number): number[][] {
  const groups: number[][] = [];
  const byTag = new Map<string, number[]>();
  for (const [path, i] of index) {
    for (const t of catalog.get(path)!.tags) {
      const g = byTag.get(t);
      if (g) g.push(i);
      else byTag.set(t, [i]);
    }
    const outs: number[] = [i];
    for (const t of catalog.outgoing(path)) {
      const j = index.get(t);
      if (j !== undefined) outs.push(j);
    }
    if (outs.length > 1 && outs.length <= max) groups.push(outs);
    const ins: number[] = [];
    for (const s of catalog.backlinks(path)) {
      const j = index.get(s);
      if (j !== undefined) ins.push(j);
    }
    if (ins.length > 1 && ins.length <= max) groups.push(ins);
  }
  for (const g of byTag.values()) if (g.length > 1 && g.length <= max) groups.push(g);
  return groups;
}

export async function findMergeCandidates(
  catalog: NoteCatalog,
  settings: CurateSettings,
  source: { vectors?: NoteVectors; neighbours?: NeighbourSource },
  folder?: string,
): Promise<MergeSearch> {
  const paths = curatable(catalog, settings, folder);
  const withVectors: string[] = [];
  const rows: Float32Array[] = [];
  for (const p of paths) {
    const v = source.vectors?.vector(p);
    if (v) {
      withVectors.push(p);
      rows.push(v);
    }
  }
  const index = new Map(withVectors.map((p, i) => [p, i] as [string, number]));
  const evidence = new Evidence(catalog, paths, settings.templatesFolders);
  // Word-count vectors see shared words, not meaning: with them, only text in common counts.
  const meaning = source.vectors !== undefined && (source.vectors as { modelId?: string }).modelId !== 'engram-lexical-hash';
  const verdicts = new Map<string, { a: string; b: string } & PairEvidence>();
  let compared = 0;
  let neighbourPairs = 0;
  /** A pair the vectors or the names found: kept only when the evidence says it is one subject written twice. */
  const check = (a: string, b: string, score?: number): void => {
    const [x, y] = a < b ? [a, b] : [b, a];
    const key = `${x}\n${y}`;
    if (x === y || verdicts.has(key)) return;
    verdicts.set(key, { a: x, b: y, ...evidence.pair(x, y, score, meaning) });
  };
  let m: VectorMatrix | null = null;
  if (rows.length > 1) {
    const dim = rows[0].length;
    const data = new Float32Array(rows.length * dim);
    rows.forEach((r, i) => data.set(r.subarray(0, dim), i * dim));
    m = { data, dim, count: rows.length };
    const join = neighbourJoin(m, settings.neighbours, settings.mergeThreshold);
    compared += join.compared;
    neighbourPairs = join.compared;
    for (const p of join.pairs) check(withVectors[p.a], withVectors[p.b], p.score);
    // Pairs that share a narrow tag or a link, unless the join compared them already.
    const done = new Set<number>();
    for (const g of pairGroups(catalog, index, settings.maxGroupForPairs)) {
      for (let x = 0; x < g.length; x++) {
        for (let y = x + 1; y < g.length; y++) {
          const a = Math.min(g[x], g[y]);
          const b = Math.max(g[x], g[y]);
          if (a === b || join.covered(a, b)) continue;
          const key = a * rows.length + b;
          if (done.has(key)) continue;
          done.add(key);
          compared++;
          const score = cosine(m, a, b);
          if (score >= settings.mergeThreshold) check(withVectors[a], withVectors[b], score);
        }
      }
    }
  } else if (source.neighbours) {
    // No vectors to read: ask the index for each note's neighbours (fine for small vaults and folders).
    for (const p of paths) {
      for (const n of await source.neighbours.neighbours(p, settings.neighbours)) {
        if (n.path === p || !catalog.get(n.path)) continue;
        compared++;
        if (n.score >= settings.mergeThreshold) check(p, n.path, n.score);
      }
    }
    neighbourPairs = compared;
  }
  // The same subject under different names: a name, alias or handle in common, or a rare passage in common.
  const allowed = new Set(paths);
  for (const [a, b] of evidence.candidatePairs(paths)) {
    if (!allowed.has(a) || !allowed.has(b)) continue;
    compared++;
    const i = index.get(a);
    const j = index.get(b);
    check(a, b, m && i !== undefined && j !== undefined ? cosine(m, i, j) : undefined);
  }
  const accepted = [...verdicts.values()].filter((v) => v.duplicate && v.confidence >= settings.mergeConfidence);
  return { clusters: collect(accepted, catalog), pairsCompared: compared, neighbourPairs, sharedPairs: compared - neighbourPairs, notesConsidered: paths.length, notesWithVectors: withVectors.length };
}

function collect(pairs: Array<{ a: string; b: string } & PairEvidence>, catalog: NoteCatalog): MergeCluster[] {
  const paths = [...new Set(pairs.flatMap((p) => [p.a, p.b]))].sort();
  const at = new Map(paths.map((p, i) => [p, i] as [string, number]));
  const uf = new UnionFind(paths.length);
  for (const p of pairs) uf.union(at.get(p.a)!, at.get(p.b)!);
  const groups = new Map<number, string[]>();
  for (const p of paths) {
    const r = uf.find(at.get(p)!);
    const g = groups.get(r);
    if (g) g.push(p);
    else groups.set(r, [p]);
  }
  const clusters: MergeCluster[] = [];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const inside = pairs.filter((p) => members.includes(p.a));
    const shared = new Set<string>();
    for (let x = 1; x < members.length; x++) for (const s of sharedBetween(catalog, members[0], members[x])) shared.add(s);
    const scores = inside.flatMap((p) => (p.similarity === undefined ? [] : [p.similarity]));
    clusters.push({
      members,
      minScore: scores.length ? Math.min(...scores) : 0,
      shared: [...shared],
      confidence: Math.min(...inside.map((p) => p.confidence)),
      evidence: inside,
    });
  }
  return clusters.sort((a, b) => b.members.length - a.members.length || (a.members[0] < b.members[0] ? -1 : 1));
}
