// The review pane over the real engine and curation: due working-memory notes in two projects, and a scripted model
// (what `claude` would answer) deciding promote, extend or delete per note, so the plan holds all three kinds.
import { ReviewView } from '../../../src/plugin/views/review-view';
import type { PaneContext } from '../../../src/plugin/views/api';
import { ScriptedBackend } from '../../helpers/extract';
import { mount, run, world } from './page-kit';
import { NOW, REVIEW_FILES, reviewReply } from './review-vault';

declare global {
  interface Window {
    /** Notes the pane asked Obsidian to open (the workspace's openLinkText), in order. */
    reviewOpened: string[];
  }
}

run(async () => {
  const w = await world(REVIEW_FILES, { now: NOW, backend: new ScriptedBackend((req) => reviewReply(req)) });
  window.reviewOpened = [];
  const open = w.app.workspace.openLinkText.bind(w.app.workspace);
  w.app.workspace.openLinkText = (link, source, ...rest) => {
    window.reviewOpened.push(link);
    return open(link, source, ...rest);
  };
  const ctx: PaneContext = { api: () => w.api, onChange: () => () => {} };
  await mount(w, (leaf) => new ReviewView(leaf, ctx));
});
