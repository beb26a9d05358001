// Team passages and the vault's relevance bar (docs/team.md "Recall"): a hook injects a team note only when it clears
// the bar a vault note clears (the gate read with the vault's word statistics, and search's relative cut against the
// best hit of both stores), within the same per-event budget; search and recall read the floor on both stores. The
// team's search is the real cache search (searchCache, what a host reads of the team store), or a port given results
// where a test needs a hit the cache would not make.
import { describe, expect, it } from 'vitest';
import { NO_CLOSE_MATCH } from '../../src/core/index/search.js';
import type { ContextResult, RecallResult } from '../../src/core/protocol/index.js';
import type { TeamRecall } from '../../src/core/team/recall.js';
import type { TeamHit, TeamNote } from '../../src/core/team/store.js';
import { searchCache, type TeamCache } from '../../sidecar/hosting/team/team-service.js';
import { startInProcessHost } from '../helpers/in-process-host.js';

const note = (id: string, title: string, body: string): TeamNote => ({
  id, team: 'core', project: '', title, body, frontmatter: {}, author: 'ann', vault: 'ann', sourceHash: id, sourcePath: `Notes/${title}.md`,
  promotedAt: '2026-03-01T00:00:00Z', updatedAt: '2026-03-01T00:00:00Z',
});

const CACHE: TeamCache = {
  url: 'postgres://team.example/engram', team: 'core', refreshedAt: '2026-03-02T00:00:00Z',
  notes: [
    note('t-rotate', 'Billing Postgres password rotation', 'Rotate the billing Postgres password every 90 days: run the rotate-role job, then restart the billing workers so they read the new password.'),
    note('t-oncall', 'Weekend on-call plan', 'The weekend on-call plan: one engineer is paged from Friday evening to Monday morning; the plan lists who to escalate to.'),
    note('t-deploy', 'Friday deploy freeze', 'No deploys after noon on Friday; the release train leaves on Thursday.'),
    note('t-kafka', 'Kafka retention', 'Topics keep seven days of messages; the audit topic keeps ninety.'),
  ],
};

/** The team cache as a host searches it. */
const cached: TeamRecall = { search: (query, limit) => searchCache(CACHE, query, limit) };

const hit = (over: Partial<TeamHit>): TeamHit => ({ id: 't1', team: 'core', project: '', title: 'Team note', author: 'ann', heading: '', snippet: '', score: 1, promotedAt: '2026-03-01T00:00:00Z', why: ['words'], ...over });

/** A team store that answers every query with these hits (what a looser search would let through). */
const answering = (hits: TeamHit[]): TeamRecall => ({ search: (_query, limit) => hits.slice(0, limit) });

const FILES = {
  'Notes/Postgres upgrade.md': 'We upgraded Postgres from 14 to 16 in March; the migration took one evening.\n',
  'Notes/Groceries.md': 'Oat milk, lemons and rice.\n',
  'Notes/Reading list.md': 'Books to read: The Pragmatic Programmer, Designing Data-Intensive Applications.\n',
  'Notes/Standup.md': 'Standup moved to 9:30 so the Berlin office can join.\n',
};

const teamPaths = (r: ContextResult): string[] => r.items.map((i) => i.path).filter((p) => p.startsWith('team:'));
const prompt = (host: Awaited<ReturnType<typeof startInProcessHost>>, text: string, sessionId = 's1'): Promise<ContextResult> =>
  host.call('context', { event: 'UserPromptSubmit', prompt: text, sessionId }) as Promise<ContextResult>;

describe('team passages clear the vault\'s relevance bar before a hook injects them', () => {
  it('an off-topic prompt injects no team passage, even one sharing two of its words', async () => {
    const offTopic = 'plan a birthday party this weekend for the kids';
    // What the cache's old floor (two of the prompt's five words) let through, given to the hook.
    const loose = hit({ id: 't-oncall', title: 'Weekend on-call plan', snippet: CACHE.notes[1].body });
    const host = await startInProcessHost(FILES, { team: answering([loose]) });
    const r = await prompt(host, offTopic);
    expect(r.items).toEqual([]);
    expect(r.text).toBeUndefined();
    // The cache itself no longer offers it either: the floor is read as the vault reads it (the words' weight).
    expect(searchCache(CACHE, offTopic, 12)).toEqual([]);
    // On its own topic the same note is injected: the bar, not the port, held it back.
    expect(teamPaths(await prompt(host, 'who is on call this weekend, and what is the escalation plan?', 's2'))).toEqual(['team:t-oncall']);
  });

  it('an on-topic team note is injected from the team cache, with its author', async () => {
    const host = await startInProcessHost(FILES, { team: cached });
    const r = await prompt(host, 'how do we rotate the billing postgres password?');
    expect(teamPaths(r)).toEqual(['team:t-rotate']);
    expect(r.text).toMatch(/Billing Postgres password rotation \(team core, by ann; team note t-rotate\)/);
  });

  it('a team hit far weaker than the vault\'s best (the relative cut) is dropped; as strong, it is injected', async () => {
    const files = { ...FILES, 'Notes/Billing password rotation.md': 'Rotate the billing Postgres password with the rotate-role job; restart the billing workers.\n' };
    const passage = { id: 't-rotate', title: 'Billing Postgres password', snippet: 'The billing Postgres password lives in the team vault.' };
    const ask = 'how do we rotate the billing postgres password?';
    // The team store weighs the words it shares as common ones there: they hold 30% of the query's weight.
    const weak = await startInProcessHost(files, { team: answering([hit({ ...passage, coverage: 0.3 })]) });
    const w = await prompt(weak, ask);
    expect(w.items.map((i) => i.path)).toEqual(['Notes/Billing password rotation.md']);
    expect(teamPaths(w)).toEqual([]);
    const strong = await startInProcessHost(files, { team: answering([hit({ ...passage, coverage: 0.7 })]) });
    expect(teamPaths(await prompt(strong, ask))).toEqual(['team:t-rotate']);
    // Search shows the team hits by the same cut.
    const s = (await weak.call('search', { query: ask })) as { team?: TeamHit[] };
    expect(s.team).toBeUndefined();
    expect(((await strong.call('search', { query: ask })) as { team?: TeamHit[] }).team?.map((h) => h.id)).toEqual(['t-rotate']);
  });

  it('team passages count in the event\'s item budget: the vault\'s notes filling it leave no room', async () => {
    const files = { ...FILES, 'Notes/Billing password rotation.md': 'Rotate the billing Postgres password with the rotate-role job; restart the billing workers.\n' };
    const host = await startInProcessHost(files, { team: cached, injection: { promptItems: 1 } });
    const r = await prompt(host, 'how do we rotate the billing postgres password?');
    expect(r.items.map((i) => i.path)).toEqual(['Notes/Billing password rotation.md']);
    const roomy = await startInProcessHost(files, { team: cached, injection: { promptItems: 2 } });
    expect((await prompt(roomy, 'how do we rotate the billing postgres password?')).items.map((i) => i.path)).toEqual(['Notes/Billing password rotation.md', 'team:t-rotate']);
  });
});

describe('search and recall read the floor on both stores', () => {
  const ask = 'rotate the billing postgres password';

  it('a team note that clears the floor means no "no close match" line, in search (engram search) and recall (MCP search)', async () => {
    // The vault shares one word of the query (Postgres): alone, it is no close match.
    const alone = await startInProcessHost(FILES);
    expect(((await alone.call('search', { query: ask })) as { notices: string[] }).notices).toContain(NO_CLOSE_MATCH);
    expect(((await alone.call('recall', { query: ask, allProjects: true, full: 0 })) as RecallResult).text).toMatch(/No close match/);
    const host = await startInProcessHost(FILES, { team: cached });
    const s = (await host.call('search', { query: ask })) as { notices: string[]; team?: TeamHit[]; order?: string[] };
    expect(s.team?.map((h) => h.id)).toEqual(['t-rotate']);
    expect(s.notices).not.toContain(NO_CLOSE_MATCH);
    const r = (await host.call('recall', { query: ask, allProjects: true, full: 0 })) as RecallResult;
    expect(r.team?.map((h) => h.id)).toEqual(['t-rotate']);
    expect(r.text).not.toMatch(/No close match/);
  });

  it('recall with nothing in the vault and a team note answers with the team note, not "No notes matched."', async () => {
    const q = 'who is on call this weekend and what is the escalation plan';
    const alone = await startInProcessHost(FILES);
    expect(((await alone.call('recall', { query: q, allProjects: true, full: 0 })) as RecallResult).text).toMatch(/No notes matched/);
    const host = await startInProcessHost(FILES, { team: cached });
    const r = (await host.call('recall', { query: q, allProjects: true, full: 0 })) as RecallResult;
    expect(r.hits).toEqual([]);
    expect(r.team?.map((h) => h.id)).toEqual(['t-oncall']);
    expect(r.text).not.toMatch(/No notes matched/);
    expect(r.text).toMatch(/Weekend on-call plan/);
  });

  it('team notes under the floor are not shown, and the vault\'s line stays', async () => {
    const host = await startInProcessHost(FILES, { team: cached });
    // One word of four in each team note (Postgres, Friday): under the floor, as the vault's Postgres note is.
    const q = 'postgres lunch with grandma on friday';
    expect(searchCache(CACHE, q, 10)).toEqual([]);
    const s = (await host.call('search', { query: q })) as { notices: string[]; team?: TeamHit[] };
    expect(s.team).toBeUndefined();
    expect(s.notices).toContain(NO_CLOSE_MATCH);
  });
});
