// The related pane over the real engine and the memory notes, with a problem note open.
import { RelatedView } from '../../../src/plugin/views/related-view';
import { MEMORY_NOTES, NOW, hostedContext, mirrorIntoMocks, recordOpens } from './memory-notes';
import { mount, run, world } from './page-kit';

run(async () => {
  const w = await world(MEMORY_NOTES, { now: NOW });
  await mirrorIntoMocks(w, MEMORY_NOTES);
  await w.app.workspace.openLinkText('Engram/Projects/acme/Sidecar socket timeout.md', '');
  window.engramOpened = recordOpens(w);
  await mount(w, (leaf) => new RelatedView(leaf, hostedContext(w)));
});
