// The review pane with a team store: one note an agent proposed for the team, and one promotion in conflict. The
// team's side is a stand-in that records each decision (the real one, team-service's teamPane, is tested end to end).
import { ReviewView } from '../../../src/plugin/views/review-view';
import type { PaneContext } from '../../../src/plugin/views/api';
import type { TeamPane } from '../../../src/core/team/recall';
import type { TeamProposal } from '../../../src/core/team/store';
import { mount, run, world } from './page-kit';
import { NOW, REVIEW_FILES } from './review-vault';

declare global {
  interface Window {
    /** What the person decided in the team box, in order. */
    teamDecisions: string[];
  }
}

run(async () => {
  window.teamDecisions = [];
  let proposals: TeamProposal[] = [{ path: 'Notes/Retry policy.md', vaultRoot: '/vault', why: 'the team keeps asking', by: 'agent', at: '2026-03-10T09:30:00Z' }];
  const teamPane: TeamPane = {
    pending: async () => ({ proposals, conflicts: [{ path: 'Notes/Deploy days.md', title: 'Deploy days', id: 'n-bob', author: 'bob', at: '2026-03-10T09:00:00Z' }] }),
    approve: async (path) => {
      window.teamDecisions.push(`approve ${path}`);
      proposals = proposals.filter((p) => p.path !== path);
      return 'promoted (team note n-1)';
    },
    dismiss: async (path) => {
      window.teamDecisions.push(`dismiss ${path}`);
      proposals = proposals.filter((p) => p.path !== path);
    },
  };
  const w = await world(REVIEW_FILES, { now: NOW, teamPane });
  const ctx: PaneContext = { api: () => w.api, onChange: () => () => {} };
  await mount(w, (leaf) => new ReviewView(leaf, ctx));
});
