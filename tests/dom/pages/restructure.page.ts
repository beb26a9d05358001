// The restructure pane over the real engine and curation, on a vault with two merges and two splits. The test can
// stop and start hosting (window.engramHosting) as the plugin does when a daemon takes the vault or gives it back.
import type { PaneContext } from '../../../src/plugin/views/api';
import { RestructureView } from '../../../src/plugin/views/restructure-view';
import { mount, run, world } from './page-kit';
import { NOW, restructureVault } from './restructure-vault';

declare global {
  interface Window {
    engramHosting: (hosted: boolean) => void;
  }
}

run(async () => {
  const w = await world(restructureVault(), { now: NOW });
  let hosted = true;
  const listeners = new Set<() => void>();
  const ctx: PaneContext = {
    api: () => (hosted ? w.api : undefined),
    onChange: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  window.engramHosting = (h) => {
    hosted = h;
    for (const l of listeners) l();
  };
  await mount(w, (leaf) => new RestructureView(leaf, ctx));
});
