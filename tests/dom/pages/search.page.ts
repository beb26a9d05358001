// The search pane over the real engine and the memory notes. The page can hold back one query's answer
// (`engramSlowQuery`) and lists the queries answered (`engramAnswered`), so a test can make an old answer arrive last.
import type { EngramApi } from '../../../src/plugin/views/api';
import { SearchView } from '../../../src/plugin/views/search-view';
import { MEMORY_NOTES, NOW, hostedContext, mirrorIntoMocks, recordOpens } from './memory-notes';
import { mount, run, world } from './page-kit';

declare global {
  interface Window {
    /** A query whose answer the page holds back until `engramRelease()` is called. */
    engramSlowQuery?: string;
    engramRelease?: () => void;
    /** The queries whose answers reached the pane, in order. */
    engramAnswered: string[];
  }
}

run(async () => {
  const w = await world(MEMORY_NOTES, { now: NOW });
  await mirrorIntoMocks(w, MEMORY_NOTES);
  window.engramOpened = recordOpens(w);
  window.engramAnswered = [];
  const api: EngramApi = {
    ...w.api,
    async search(query, filters) {
      const answer = await w.api.search(query, filters);
      if (query === window.engramSlowQuery) await new Promise<void>((resolve) => (window.engramRelease = resolve));
      window.engramAnswered.push(query);
      return answer;
    },
  };
  await mount(w, (leaf) => new SearchView(leaf, { ...hostedContext(w), api: () => api }));
});
