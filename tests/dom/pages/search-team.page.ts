// The search pane with a team store's cache: the team's notes among the vault's, labelled, and copied into the vault.
import type { TeamNote } from '../../../src/core/team/store';
import { SearchView } from '../../../src/plugin/views/search-view';
import { MEMORY_NOTES, NOW, hostedContext, mirrorIntoMocks, recordOpens } from './memory-notes';
import { mount, run, world } from './page-kit';

const NOTE: TeamNote = {
  id: '3f0c2a8e-0000-4000-8000-000000000001',
  team: 'core',
  project: 'acme',
  title: 'Socket timeouts on CI runners',
  body: 'CI runners kill idle sockets after 30 seconds: the sidecar socket needs a keepalive.',
  frontmatter: { type: 'problem' },
  author: 'ann',
  vault: 'ann-vault',
  sourceHash: 'h',
  sourcePath: 'Notes/Socket timeouts.md',
  promotedAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
};

run(async () => {
  const team = {
    search: (query: string) => (/socket/i.test(query) ? [{ id: NOTE.id, team: NOTE.team, project: NOTE.project, title: NOTE.title, author: NOTE.author, heading: '', snippet: NOTE.body, score: 1, promotedAt: NOTE.promotedAt, why: ['words'] }] : []),
    note: (id: string) => (id === NOTE.id ? NOTE : undefined),
  };
  const w = await world(MEMORY_NOTES, { now: NOW, team });
  await mirrorIntoMocks(w, MEMORY_NOTES);
  window.engramOpened = recordOpens(w);
  await mount(w, (leaf) => new SearchView(leaf, hostedContext(w)));
});
