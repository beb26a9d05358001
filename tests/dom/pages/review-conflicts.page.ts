// The review pane over a vault synced between two machines: the due notes of review.page.ts, and two notes each edited
// on both machines before a sync, so a sync tool left a copy beside each (a Syncthing copy, an iCloud `Plan 2.md`),
// plus a chapter that is only named like a copy.
import { ReviewView } from '../../../src/plugin/views/review-view';
import type { PaneContext } from '../../../src/plugin/views/api';
import { ScriptedBackend } from '../../helpers/extract';
import { mount, run, world } from './page-kit';
import { NOW, REVIEW_FILES, reviewReply } from './review-vault';

const front = (tags: string) => `---\ntype: decision\nproject: acme\nsummary: How the app is deployed and where it runs.\ntags: [${tags}]\n---\n`;
const body = (n: string) => `Deploys run from the repository root with ./deploy.sh, never from a package folder.\nThe artifact upload is retried ${n}.\nStaging uses spot instances in eu-west-1; production uses reserved ones.\n`;

export const CONFLICT_FILES: Record<string, string> = {
  ...REVIEW_FILES,
  'Notes/Deploy.md': `${front('deploy')}${body('once')}`,
  'Notes/Deploy.sync-conflict-20260310-120000-LAPTOP1.md': `${front('deploy, ci')}${body('twice')}`,
  'Notes/Plan.md': '# Plan\n\nShip the importer in March, then the exporter.\nThe beta opens to ten teams first.\n',
  'Notes/Plan 2.md': '# Plan\n\nShip the importer in March, then the exporter.\nThe beta opens to twenty teams first.\n',
  'Notes/Chapter.md': '# Chapter\n\nThe hero leaves home at dawn and walks north.\n',
  'Notes/Chapter 2.md': '# Chapter\n\nA storm wrecks the ship and the crew swims ashore.\n',
};

declare global {
  interface Window {
    /** Files the pane asked Obsidian to open, in order. */
    conflictOpened: string[];
  }
}

run(async () => {
  const w = await world(CONFLICT_FILES, { now: NOW, backend: new ScriptedBackend((req) => reviewReply(req)) });
  window.conflictOpened = [];
  w.app.workspace.openLinkText = (link) => {
    window.conflictOpened.push(link);
    return Promise.resolve();
  };
  const ctx: PaneContext = { api: () => w.api, onChange: () => () => {} };
  await mount(w, (leaf) => new ReviewView(leaf, ctx));
});
