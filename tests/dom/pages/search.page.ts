// The search pane over the real engine and the memory notes; `?debounce=` sets its debounce (the bench uses 0).
import { SearchView } from '../../../src/plugin/views/search-view';
import { MEMORY_NOTES, NOW, hostedContext, mirrorIntoMocks, recordOpens } from './memory-notes';
import { mount, run, world } from './page-kit';

run(async () => {
  const w = await world(MEMORY_NOTES, { now: NOW });
  await mirrorIntoMocks(w, MEMORY_NOTES);
  window.engramOpened = recordOpens(w);
  const debounce = new URLSearchParams(location.search).get('debounce');
  await mount(w, (leaf) => new SearchView(leaf, hostedContext(w), debounce === null ? {} : { debounceMs: Number(debounce) }));
});
