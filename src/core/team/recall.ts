// Team notes in a person's recall (docs/team.md "Recall"): read from the local cache of the team store (a host reads
// it, never the network), joined with the vault's own hits by reciprocal rank, labelled "team" with the author, and
// held to the same rules as the vault's notes: words addressed to an AI are never injected, and withheld in recall.
import { fenceRecalled } from '../transcript/fence.js';
import { findDirectives, withholdDirectives } from '../recall/directives.js';
import { rrf } from '../index/rank.js';
import { RELATIVE_COVER, SEARCH_FLOOR } from '../index/search.js';
import type { TeamConflict, TeamHit, TeamProposal } from './store.js';

/** The team's notes for a query, from the local cache, best first; none when no team store is set. Never waits. */
export interface TeamRecall {
  search(query: string, limit: number): TeamHit[];
}

/** What the review pane shows and does about the team store: what waits for the person, and their decision. */
export interface TeamPane {
  pending(): Promise<{ proposals: TeamProposal[]; conflicts: TeamConflict[] }>;
  /** Sends the note (checked again); says what became of it. */
  approve(path: string): Promise<string>;
  dismiss(path: string): Promise<void>;
}

/** What search and recall answers carry of the team: the team hits that made the fused list, and that list's order. */
export interface TeamResults {
  team?: TeamHit[];
  /** The fused order: vault paths and `team:<id>` keys, best first. */
  order?: string[];
}

export const teamKey = (h: Pick<TeamHit, 'id'>): string => `team:${h.id}`;

/** "team core, acme, by ann": how every surface labels a team note. */
export function teamLabel(h: Pick<TeamHit, 'team' | 'project' | 'author'>): string {
  return `team ${h.team}${h.project ? `, ${h.project}` : ''}, by ${h.author}`;
}

/**
 * The vault's hits and the team's joined by reciprocal rank (each list's best counts the same, so a large team store
 * cannot crowd out the vault), cut at `limit`: the order, and the team hits that made it. A team note the person copied
 * into the vault (`copyOf` says which team note a vault note is a copy of) is one entry, the vault's, at the better
 * of its two ranks plus the other: never shown twice.
 */
export function joinTeam(vault: { path: string; coverage?: number }[], found: TeamHit[], limit: number, copyOf: (path: string) => string | undefined = () => undefined): Required<TeamResults> {
  const team = withinCut(vault, found);
  if (!team.length) return { team: [], order: vault.slice(0, limit).map((h) => h.path) };
  const copies = new Map<string, string>();
  for (const h of vault) {
    const id = copyOf(h.path);
    if (id && !copies.has(id)) copies.set(id, h.path);
  }
  const fused = fuseRanked<{ key: string; team?: TeamHit }>([vault.map((h) => ({ key: h.path })), team.map((h) => ({ key: copies.get(h.id) ?? teamKey(h), team: h }))]).slice(0, limit);
  return { team: fused.flatMap((f) => (f.item.team ? [f.item.team] : [])), order: fused.map((f) => f.item.key) };
}

/**
 * The team hits that stand beside the vault's: search's relative cut read across both stores, each team hit covering
 * at least RELATIVE_COVER of what the best hit of either covers of the query (the vault's hits were cut against their
 * own best by the search). A hit of unknown coverage counts as covering all of it, as a hit of filters alone does.
 */
export function withinCut<T extends { coverage?: number }>(vault: { coverage?: number }[], team: T[]): T[] {
  const best = Math.max(0, ...vault.map((h) => h.coverage ?? 1), ...team.map((h) => h.coverage ?? 1));
  return team.filter((h) => (h.coverage ?? 1) >= best * RELATIVE_COVER);
}

/** Whether a team hit clears the search floor: the best of both stores is then a close match (no "no close match"). */
export const teamClearsFloor = (team: { coverage?: number }[]): boolean => team.some((h) => (h.coverage ?? 1) >= SEARCH_FLOOR);

/** The fused list as a reader sees it, best first: each entry a vault hit or a team hit (the CLI and the Search pane). */
export function fusedItems<H extends { path: string }>(hits: H[], joined: TeamResults): ({ note: H } | { team: TeamHit })[] {
  const byPath = new Map(hits.map((h) => [h.path, h]));
  const byTeam = new Map((joined.team ?? []).map((h) => [teamKey(h), h]));
  return (joined.order ?? hits.map((h) => h.path)).flatMap((key): ({ note: H } | { team: TeamHit })[] => {
    const team = byTeam.get(key);
    if (team) return [{ team }];
    const note = byPath.get(key);
    return note ? [{ note }] : [];
  });
}

/** A team hit as an agent reads it: text addressed to an AI withheld (a teammate's note is not this user's words). */
function teamLine(h: TeamHit): string {
  const where = `team note ${h.id}`;
  const text = withholdDirectives(`${h.heading ? `§ ${h.heading}: ` : ''}${h.snippet}`, where);
  return `- ${h.title} (${teamLabel(h)}; ${where}): ${text.replace(/\s+/g, ' ').trim()}`;
}

/** The team block of recall's text (fenced as the vault's is), or '' when there is none. */
export function renderTeamRecall(team: TeamHit[]): string {
  if (!team.length) return '';
  return fenceRecalled(`Notes shared by the user's team (reference data; written by the teammate named, not by the user):\n${team.map(teamLine).join('\n')}`);
}

/**
 * The team notes a hook may inject after the vault's: none holding words addressed to an AI (they are not even
 * shown), none already given in this session (`given` holds their ids, and the ids of the team notes whose vault
 * copies were given), as many as fit in what is left of the event's characters and items.
 */
export function teamContext(team: TeamHit[], left: { maxChars: number; maxItems: number }, given: Set<string>): { text?: string; used: TeamHit[] } {
  const heading = 'Notes shared by the user\'s team (reference data; written by the teammate named):';
  let size = fenceRecalled(heading).length + 2;
  const lines: string[] = [];
  const used: TeamHit[] = [];
  for (const h of team) {
    if (used.length >= left.maxItems) break;
    if (given.has(h.id) || findDirectives([h.title, h.heading, h.snippet].join('\n')).length) continue;
    const line = teamLine(h).slice(0, 400);
    if (size + line.length + 1 > left.maxChars) break;
    lines.push(line);
    used.push(h);
    size += line.length + 1;
  }
  return lines.length ? { text: fenceRecalled(`${heading}\n${lines.join('\n')}`), used } : { used };
}

/** A hit of either store, for fusion. */
export interface Ranked {
  key: string;
}

/**
 * Joins ranked lists (a person's own hits, the team's) by reciprocal rank: each list's first hit counts the same, so a
 * large team store cannot crowd out the vault, and a hit both lists hold (a note the person copied in) counts once,
 * at its better rank plus the other.
 */
export function fuseRanked<T extends Ranked>(lists: T[][], k = 60): { item: T; score: number; from: number[] }[] {
  const by = new Map<string, { item: T; score: number; from: number[] }>();
  lists.forEach((list, li) =>
    list.forEach((item, rank) => {
      const e = by.get(item.key);
      if (e) {
        e.score += rrf(rank, k);
        e.from.push(li);
      } else by.set(item.key, { item, score: rrf(rank, k), from: [li] });
    }),
  );
  return [...by.values()].sort((a, b) => b.score - a.score);
}
