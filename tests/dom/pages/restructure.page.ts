// The restructure pane over the real engine and curation, on a vault with two merges and a split.
import type { PaneContext } from '../../../src/plugin/views/api';
import { RestructureView } from '../../../src/plugin/views/restructure-view';
import { mount, run, world } from './page-kit';
import { NOW, restructureVault } from './restructure-vault';

run(async () => {
  const w = await world(restructureVault(), { now: NOW });
  const ctx: PaneContext = { api: () => w.api, onChange: () => () => undefined };
  await mount(w, (leaf) => new RestructureView(leaf, ctx));
});
