// Restructure: proposals to merge notes that say the same thing (2–5 notes), to gather a larger cluster
// under a hub note (6+), and to split notes that grew too large. Runs only when asked; applies only by id.
import { isoWithOffset } from '../note/write-beat';
import type { NoteCatalog } from './catalog';
import { planLinkRewrites } from './apply';
import { rewriteLinks, moveRedirect } from './link-rewrite';
import { findMergeCandidates, curatable, type MergeCluster, type NeighbourSource, type NoteVectors } from './merge-candidates';
import { folderOf, freePath, renderNote, wikilink } from './note-text';
import { makeProposal, type Proposal, type ProposalDraft, type ProposalStore } from './proposals';
import type { CurateSettings } from './settings';
import { isSplitCandidate, splitDraft } from './split';
import { parseNote } from '../note/frontmatter';

export const MAX_MERGE = 5;

/** The note that absorbs the others: most linked, then Engram's own, then the longest. */
function primaryOf(catalog: NoteCatalog, members: string[]): string {
  const score = (p: string): [number, number, number] => {
    const n = catalog.get(p)!;
    return [catalog.backlinks(p).size, n.meta?.engramId ? 1 : 0, n.body.length];
  };
  return [...members].sort((a, b) => {
    const [x1, x2, x3] = score(a);
    const [y1, y2, y3] = score(b);
    return y1 - x1 || y2 - x2 || y3 - x3 || (a < b ? -1 : 1);
  })[0];
}

function union(lists: string[][]): string[] {
  return [...new Set(lists.flat())];
}

export function mergeDraft(catalog: NoteCatalog, cluster: MergeCluster, now: number): ProposalDraft {
  const primary = primaryOf(catalog, cluster.members);
  const others = cluster.members.filter((m) => m !== primary);
  const p = catalog.get(primary)!;
  const moves: Array<[string, string]> = others.map((o) => [o, primary]);
  const after = catalog.resolver.with({ remove: others });
  const ctx = { before: catalog.resolver, after, redirect: moveRedirect(new Map(moves)) };
  const data = { ...(parseNote(p.text).data ?? {}) };
  const memberLinks = new Set(cluster.members.map((m) => wikilink(m).toLowerCase()));
  data.tags = union(cluster.members.map((m) => catalog.get(m)!.meta!.tags));
  // Old titles become aliases, so searches and the link suggester still find them.
  data.aliases = union([p.meta!.aliases, ...others.map((o) => [catalog.get(o)!.meta!.title, ...catalog.get(o)!.meta!.aliases])]);
  data.related = union(cluster.members.map((m) => catalog.get(m)!.meta!.related)).filter((r) => !memberLinks.has(r.toLowerCase()));
  data.updated = isoWithOffset(now);
  const sections = [rewriteLinks(p.body, primary, primary, ctx).text.replace(/\s+$/, '')];
  for (const o of others) {
    const n = catalog.get(o)!;
    sections.push(`## ${n.meta!.title}\n\n${rewriteLinks(n.body, o, primary, ctx).text.trim()}`);
  }
  const text = renderNote(data, sections.join('\n\n'));
  return {
    family: 'restructure',
    kind: 'merge',
    title: `merge ${others.map(wikilink).join(', ')} into ${wikilink(primary)}`,
    reason: `similarity ≥ ${cluster.minScore.toFixed(3)}; shared: ${cluster.shared.slice(0, 6).join(', ')}`,
    sources: cluster.members.map((m) => ({ path: m, hash: catalog.hash(m) })),
    writes: [{ path: primary, text }],
    trash: [...cluster.members],
    moves: [],
    redirect: { kind: 'move', moves },
    linkRewrites: [],
  };
}

export function hubDraft(catalog: NoteCatalog, cluster: MergeCluster, now: number): ProposalDraft {
  const counts = new Map<string, number>();
  for (const m of cluster.members) for (const t of catalog.get(m)!.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  const topTag = [...counts.entries()].filter(([, c]) => c >= 2).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  const primary = primaryOf(catalog, cluster.members);
  const label = topTag ?? catalog.get(primary)!.meta!.title;
  const path = freePath(folderOf(primary), `${label} hub`, (x) => catalog.resolver.has(x));
  const created = isoWithOffset(now);
  const lines = cluster.members.map((m) => {
    const meta = catalog.get(m)!.meta!;
    return `- ${wikilink(m)}${meta.summary ? `: ${meta.summary}` : ''}`;
  });
  const body = `These ${cluster.members.length} notes say much the same thing (similarity ≥ ${cluster.minScore.toFixed(2)}). Merge the ones that are duplicates.\n\n${lines.join('\n')}`;
  return {
    family: 'restructure',
    kind: 'hub',
    title: `hub note ${wikilink(path)} for ${cluster.members.length} similar notes`,
    reason: `cluster of ${cluster.members.length} notes (more than ${MAX_MERGE} to merge); shared: ${cluster.shared.slice(0, 6).join(', ')}`,
    sources: cluster.members.map((m) => ({ path: m, hash: catalog.hash(m) })),
    writes: [{ path, text: renderNote({ type: 'reference', tags: topTag ? [topTag] : [], created, updated: created, engram_source: 'restructure' }, body) }],
    trash: [],
    moves: [],
    redirect: null,
    linkRewrites: [],
  };
}

export interface RestructurePlan {
  proposals: Proposal[];
  pairsCompared: number;
  notesConsidered: number;
  notesWithVectors: number;
  splitCandidates: number;
}

/** Finds merge, hub and split proposals and stores them (nothing in the vault changes). */
export async function planRestructure(
  catalog: NoteCatalog,
  settings: CurateSettings,
  source: { vectors?: NoteVectors; neighbours?: NeighbourSource },
  store: ProposalStore | null,
  now: number,
  folder?: string,
): Promise<RestructurePlan> {
  const search = await findMergeCandidates(catalog, settings, source, folder);
  const drafts: ProposalDraft[] = [];
  for (const c of search.clusters) drafts.push(c.members.length <= MAX_MERGE ? mergeDraft(catalog, c, now) : hubDraft(catalog, c, now));
  let splits = 0;
  for (const path of curatable(catalog, settings, folder)) {
    const n = catalog.get(path)!;
    if (!isSplitCandidate(n.text, n.body.length, settings)) continue;
    const d = splitDraft(catalog, path, now);
    if (d) {
      drafts.push(d);
      splits++;
    }
  }
  const proposals: Proposal[] = [];
  for (const d of drafts) {
    d.linkRewrites = planLinkRewrites(catalog, d).map(({ path, edits }) => ({ path, edits }));
    const p = makeProposal(d, now, settings.proposalDays);
    if (store) await store.save(p);
    proposals.push(p);
  }
  return { proposals, pairsCompared: search.pairsCompared, notesConsidered: search.notesConsidered, notesWithVectors: search.notesWithVectors, splitCandidates: splits };
}
