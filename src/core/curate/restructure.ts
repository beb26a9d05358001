// Restructure: proposals to merge notes that say the same thing (2–5 notes), to gather a larger cluster
// under a hub note (6+), and to split notes that grew too large. Runs only when asked; applies only by id.
import type { NoteCatalog } from './catalog';
import { planLinks } from './apply';
import { headingKey, rewriteLinks, moveRedirect, type Renames } from './link-rewrite';
import { codeRanges } from './links';
import { editFrontmatter, type FrontmatterValue } from '../note/frontmatter-edit';
import { findMergeCandidates, curatable, type MergeCluster, type NeighbourSource, type NoteVectors } from './merge-candidates';
import { folderOf, renderNote, wikilink } from './note-text';
import { uniqueNotePath } from '../note/filename';
import { makeProposal, type MergeRename, type Proposal, type ProposalDraft, type ProposalStore } from './proposals';
import type { CurateSettings } from './settings';
import { isSplitCandidate, splitDraft } from './split';
import { findFrontmatter, parseNote } from '../note/frontmatter';
import { normaliseUnit } from './note-units';
import { knownUnits, whatItAdds } from './what-it-adds';
import { groundedMerge } from './grounded-merge';
import type { LlmBackend } from '../extract/backends/types';
import { notesTime } from './notes-time';

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

const HEADING_LINE = /^(#{1,6}[ \t]+)([^\r\n]+?)([ \t#]*\r?)$/gm;
const BLOCK_ID = /([ \t]\^)([A-Za-z0-9-]+)([ \t]*\r?)$/gm;

/** Heading texts of a note body, outside code. */
function headingsIn(body: string): string[] {
  const code = codeRanges(body, 0).filter(([a, b]) => body.slice(a, b).includes('\n'));
  return [...body.matchAll(HEADING_LINE)].filter((m) => !code.some(([a, b]) => m.index >= a && m.index < b)).map((m) => m[2].trim());
}

function blocksIn(body: string): string[] {
  return [...body.matchAll(BLOCK_ID)].map((m) => m[2]);
}

function unique(wanted: string, taken: (s: string) => boolean): string {
  if (!taken(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken(`${wanted} ${n}`)) return `${wanted} ${n}`;
}

/**
 * A merged note's body with its headings and block ids renamed where they clash with what the merged note already
 * has (`## Why` becomes `## Why (Other note)`, `^why` becomes `^why-2`), so that links to them land on their own text.
 */
function renameClashes(body: string, title: string, headings: Set<string>, blocks: Set<string>): { body: string; renames: Renames } {
  const renames: Renames = { headings: new Map(), blocks: new Map() };
  const code = codeRanges(body, 0).filter(([a, b]) => body.slice(a, b).includes('\n'));
  let out = body.replace(HEADING_LINE, (line: string, hashes: string, text: string, tail: string, at: number) => {
    if (code.some(([a, b]) => at >= a && at < b)) return line;
    const key = headingKey(text);
    if (!headings.has(key)) {
      headings.add(key);
      return line;
    }
    const next = unique(`${text.trim()} (${title})`, (h) => headings.has(headingKey(h)));
    if (!renames.headings.has(key)) renames.headings.set(key, next);
    headings.add(headingKey(next));
    return `${hashes}${next}${tail}`;
  });
  const codeAfter = codeRanges(out, 0).filter(([a, b]) => out.slice(a, b).includes('\n'));
  out = out.replace(BLOCK_ID, (m: string, lead: string, id: string, tail: string, at: number) => {
    if (codeAfter.some(([a, b]) => at >= a && at < b)) return m;
    if (!blocks.has(id)) {
      blocks.add(id);
      return m;
    }
    const next = unique(id, (b) => blocks.has(b.replace(/ /g, '-'))).replace(/ /g, '-');
    renames.blocks.set(id, next);
    blocks.add(next);
    return `${lead}${next}${tail}`;
  });
  return { body: out, renames };
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Headings of a note that links elsewhere point at (keys). */
function linkedHeadings(catalog: NoteCatalog, path: string): Set<string> {
  const out = new Set<string>();
  for (const from of catalog.backlinks(path)) {
    for (const l of catalog.get(from)!.links) {
      if (l.heading && catalog.resolver.resolve(l.linkpath, from) === path) out.add(headingKey(l.heading.split('#').pop()!));
    }
  }
  return out;
}

/** Why a merge was proposed, in plain words: confidence, what matched, what differs. */
export function mergeReason(cluster: MergeCluster): string {
  if (!cluster.evidence?.length) return `similarity ≥ ${cluster.minScore.toFixed(3)}; shared: ${cluster.shared.slice(0, 6).join(', ')}`;
  const parts = cluster.evidence.map((e) => `${e.matched.join('; ')}${e.differs.length ? `; differs: ${e.differs.join('; ')}` : ''}`);
  return `confidence ${(cluster.confidence ?? 0).toFixed(2)}: ${[...new Set(parts)].join(' | ')}`;
}

/**
 * Why a hub was proposed, in the merge's words: its confidence (the weakest pair that joined the notes), then what
 * matched and what differs, pair by pair (the first four; the count of the rest).
 */
export function hubReason(cluster: MergeCluster): string {
  const why = `${cluster.members.length} notes, more than ${MAX_MERGE} to merge at once: a hub links them, to merge by hand`;
  if (!cluster.evidence?.length) return `${why}; similarity ≥ ${cluster.minScore.toFixed(3)}; shared: ${cluster.shared.slice(0, 6).join(', ')}`;
  const name = (p: string): string => p.replace(/^.*\//, '').replace(/\.md$/i, '');
  const pairs = cluster.evidence.map((e) => `${name(e.a)} and ${name(e.b)}: ${e.matched.join('; ')}${e.differs.length ? `; differs: ${e.differs.join('; ')}` : ''}`);
  const more = pairs.length > 4 ? ` | and ${pairs.length - 4} more pair${pairs.length - 4 === 1 ? '' : 's'}` : '';
  return `confidence ${(cluster.confidence ?? 0).toFixed(2)}: ${why} | ${pairs.slice(0, 4).join(' | ')}${more}`;
}

export function mergeDraft(catalog: NoteCatalog, cluster: MergeCluster): ProposalDraft {
  // A note that already holds another whole, or the original of Obsidian's "X 1", is the one kept; else the most linked.
  const holder = cluster.evidence?.find((e) => e.keep && cluster.members.includes(e.keep))?.keep;
  const primary = holder ?? primaryOf(catalog, cluster.members);
  const others = cluster.members.filter((m) => m !== primary);
  const p = catalog.get(primary)!;
  const moves: Array<[string, string]> = others.map((o) => [o, primary]);
  const set = mergedFrontmatter(catalog, cluster, primary, others);
  const { bodies, renames, renameMaps } = renamedBodies(catalog, p.body, others);
  const held = heldSections(cluster, primary, p.body);
  const after = catalog.resolver.with({ remove: others });
  const ctx = { before: catalog.resolver, after, redirect: moveRedirect(new Map(moves), renameMaps, new Map(held)) };
  const sections = [rewriteLinks(p.body, primary, primary, ctx).text.replace(/\s+$/, '')];
  // The kept note gains only what it lacks: no sentence, list item or code block twice; a heading only over new text.
  const known = knownUnits(p.body);
  for (const b of bodies) {
    // Headings other notes link to stay (their links must land), unless they clashed: those links go to the kept
    // note's own heading of that name when the section brought nothing new.
    const renamed = renameMaps.get(b.path)!;
    const renamedTo = new Set([...renamed.headings.values()].map(headingKey));
    const linked = linkedHeadings(catalog, b.path);
    const adds = whatItAdds(b.body, known, (h) => !renamedTo.has(headingKey(h)) && linked.has(headingKey(h)));
    const kept = new Set(headingsIn(adds).map(headingKey));
    for (const [key, next] of [...renamed.headings]) if (!kept.has(headingKey(next))) renamed.headings.delete(key);
    const entry = renames.find((r) => r.path === b.path);
    if (entry) entry.headings = entry.headings.filter(([, next]) => kept.has(headingKey(next)));
    if (adds) sections.push(`## ${b.title}\n\n${rewriteLinks(adds, b.path, primary, ctx).text}`);
  }
  return {
    family: 'restructure',
    kind: 'merge',
    title: `merge ${others.map(wikilink).join(', ')} into ${wikilink(primary)}`,
    reason: mergeReason(cluster),
    sources: cluster.members.map((m) => ({ path: m, hash: catalog.hash(m) })),
    writes: [{ path: primary, text: withBody(p.text, set, `${sections.join('\n\n')}\n`, primary) }],
    trash: [...cluster.members],
    moves: [],
    redirect: { kind: 'move', moves, ...(renames.length ? { renames } : {}), ...(held.length ? { sections: held } : {}) },
    linkRewrites: [],
  };
}

/**
 * The frontmatter keys a merge changes on the kept note (the rest stays byte for byte): tags, aliases (old titles,
 * so searches and the link suggester still find them) and related joined, keys it lacks from the merged notes,
 * and `updated` dated by the notes, not the clock (the same merge on two devices writes the same bytes).
 */
function mergedFrontmatter(catalog: NoteCatalog, cluster: MergeCluster, primary: string, others: string[]): Record<string, FrontmatterValue> {
  const p = catalog.get(primary)!;
  const meta = p.meta!;
  const memberLinks = new Set(cluster.members.map((m) => wikilink(m).toLowerCase()));
  const tags = union(cluster.members.map((m) => catalog.get(m)!.meta!.tags));
  const aliases = union([meta.aliases, ...others.map((o) => [catalog.get(o)!.meta!.title, ...catalog.get(o)!.meta!.aliases])]);
  const related = union(cluster.members.map((m) => catalog.get(m)!.meta!.related)).filter((r) => !memberLinks.has(r.toLowerCase()));
  const set: Record<string, FrontmatterValue> = {};
  if (!sameList(tags, meta.tags)) set.tags = tags;
  if (!sameList(aliases, meta.aliases)) set.aliases = aliases;
  if (!sameList(related, meta.related)) set.related = related;
  // Keys the kept note lacks come from the merged notes (first one wins); keys it has stay as written.
  const own = parseNote(p.text).data ?? {};
  for (const o of others) {
    for (const [k, v] of Object.entries(parseNote(catalog.get(o)!.text).data ?? {})) {
      if (k in own || k in set || k === 'title' || k === 'aliases' || v === null || v === undefined || v === '') continue;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))) set[k] = v;
    }
  }
  const time = notesTime(catalog, cluster.members);
  if (time && time.ms > (meta.updated ?? -Infinity)) set.updated = time.stamp;
  return set;
}

/**
 * The merged notes' bodies, each under a heading of its title, with their headings and block ids renamed where they
 * clash with the kept note's (whose own stay), so that links follow them.
 */
function renamedBodies(catalog: NoteCatalog, keptBody: string, others: string[]): { bodies: Array<{ path: string; title: string; body: string }>; renames: MergeRename[]; renameMaps: Map<string, Renames> } {
  const headings = new Set(headingsIn(keptBody).map(headingKey));
  const blocks = new Set(blocksIn(keptBody));
  const bodies: Array<{ path: string; title: string; body: string }> = [];
  const renames: MergeRename[] = [];
  const renameMaps = new Map<string, Renames>();
  for (const o of others) {
    const n = catalog.get(o)!;
    const title = unique(n.meta!.title, (h) => headings.has(headingKey(h)));
    headings.add(headingKey(title));
    const r = renameClashes(n.body.trim(), n.meta!.title, headings, blocks);
    bodies.push({ path: o, title, body: r.body });
    renameMaps.set(o, r.renames);
    if (r.renames.headings.size || r.renames.blocks.size) {
      const written = new Map(headingsIn(n.body).map((h) => [headingKey(h), h]));
      renames.push({ path: o, headings: [...r.renames.headings].map(([k, v]) => [written.get(k) ?? k, v]), blocks: [...r.renames.blocks] });
    }
  }
  return { bodies, renames, renameMaps };
}

/**
 * The merged notes the kept note already held under a heading, with that heading: links to them land on it (an
 * embed still shows that text, not the whole kept note).
 */
function heldSections(cluster: MergeCluster, primary: string, keptBody: string): Array<[string, string]> {
  const held: Array<[string, string]> = [];
  const written = headingsIn(keptBody);
  for (const e of cluster.evidence ?? []) {
    if (e.keep !== primary || e.section === undefined) continue;
    const o = e.a === primary ? e.b : e.a;
    const h = written.find((x) => normaliseUnit(x) === e.section);
    if (h !== undefined && !held.some(([x]) => x === o)) held.push([o, h]);
  }
  return held;
}

/** The kept note's text with the merge's frontmatter keys set and the merged body in place of its own. */
function withBody(text: string, set: Record<string, FrontmatterValue>, body: string, path: string): string {
  try {
    const edited = editFrontmatter(text, { set }, path).text;
    const fm = findFrontmatter(edited);
    const bodyStart = fm && 'bodyStart' in fm ? fm.bodyStart : 0;
    return edited.slice(0, bodyStart) + body;
  } catch {
    // Frontmatter the splice editor declines (one flow map): written afresh.
    return renderNote({ ...(parseNote(text).data ?? {}), ...set }, body);
  }
}

export function hubDraft(catalog: NoteCatalog, cluster: MergeCluster): ProposalDraft {
  const counts = new Map<string, number>();
  for (const m of cluster.members) for (const t of catalog.get(m)!.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  const topTag = [...counts.entries()].filter(([, c]) => c >= 2).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  const primary = primaryOf(catalog, cluster.members);
  const label = topTag ?? catalog.get(primary)!.meta!.title;
  const path = uniqueNotePath(folderOf(primary), `${label} hub`, (x) => catalog.resolver.has(x));
  const created = notesTime(catalog, cluster.members)?.stamp;
  const lines = cluster.members.map((m) => {
    const meta = catalog.get(m)!.meta!;
    return `- ${wikilink(m)}${meta.summary ? `: ${meta.summary}` : ''}`;
  });
  const sure = cluster.confidence !== undefined ? `confidence ${cluster.confidence.toFixed(2)}` : `similarity ≥ ${cluster.minScore.toFixed(2)}`;
  const body = `These ${cluster.members.length} notes say much the same thing (${sure}). Merge the ones that are duplicates.\n\n${lines.join('\n')}`;
  return {
    family: 'restructure',
    kind: 'hub',
    title: `hub note ${wikilink(path)} for ${cluster.members.length} similar notes`,
    reason: hubReason(cluster),
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
  /** Drafts left out as rejected before. */
  rejected: number;
}

/** Finds merge, hub and split proposals and stores them (nothing in the vault changes). */
export async function planRestructure(
  catalog: NoteCatalog,
  settings: CurateSettings,
  source: { vectors?: NoteVectors; neighbours?: NeighbourSource },
  store: ProposalStore | null,
  now: number,
  folder?: string,
  /** Drafts the user rejected before (same notes, unchanged): left out. */
  isRejected: (d: ProposalDraft) => boolean = () => false,
  /** A model that rewrites each merge into one note, grounded in the notes (else the rule merge stays). */
  writer?: LlmBackend,
  /** Why a note is private (note/private-zone.ts): a merge of one is never sent to the writer. */
  isPrivate: (path: string) => string | undefined = () => undefined,
): Promise<RestructurePlan> {
  const search = await findMergeCandidates(catalog, settings, source, folder);
  const drafts: ProposalDraft[] = [];
  for (const c of search.clusters) drafts.push(c.members.length <= MAX_MERGE ? mergeDraft(catalog, c) : hubDraft(catalog, c));
  let splits = 0;
  for (const path of curatable(catalog, settings, folder)) {
    const n = catalog.get(path)!;
    if (!isSplitCandidate(n.text, n.body.length, settings, n.meta?.title ?? path.replace(/^.*\//, '').replace(/\.md$/i, ''))) continue;
    const d = splitDraft(catalog, path);
    if (d) {
      d.reason += '; its sections are separate subjects (they do not all speak of its title, and it is not one article or course)';
      drafts.push(d);
      splits++;
    }
  }
  const proposals: Proposal[] = [];
  let rejected = 0;
  for (const d of drafts) {
    if (isRejected(d)) {
      rejected++;
      continue;
    }
    const zone = writer && d.kind === 'merge' ? d.sources.map((x) => isPrivate(x.path)).find(Boolean) : undefined;
    if (zone) d.reason += `; the rule merge is shown: a note is in a ${zone}, never sent to a model`;
    else if (writer && d.kind === 'merge') {
      const g = await groundedMerge(writer, d.writes[0].text);
      if ('text' in g) {
        d.writes[0] = { ...d.writes[0], text: g.text };
        d.reason += `; written by ${writer.name} from the notes' own sentences (none added, none left out)`;
      } else d.reason += `; the rule merge is shown: ${writer.name}'s was not used (${g.problem})`;
    }
    const links = planLinks(catalog, d);
    d.linkRewrites = links.rewrites.map(({ path, edits }) => ({ path, edits }));
    if (links.leftAlone.length) d.leftAlone = links.leftAlone;
    const p = makeProposal(d, now, settings.proposalDays);
    if (store) await store.save(p);
    proposals.push(p);
  }
  return { proposals, pairsCompared: search.pairsCompared, notesConsidered: search.notesConsidered, notesWithVectors: search.notesWithVectors, splitCandidates: splits, rejected };
}
