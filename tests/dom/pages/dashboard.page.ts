// The dashboard pane over the real engine and the memory notes, with 30 days of activity in the record
// (activity-lines.ts: sessions with injections and captures, a few failures).
import { activityFile } from '../../../src/core/activity/record';
import { activityLines } from './activity-lines';
import { DashboardView } from '../../../src/plugin/views/dashboard-view';
import { MEMORY_NOTES, NOW, hostedContext } from './memory-notes';
import { mount, run, world } from './page-kit';

run(async () => {
  const w = await world(MEMORY_NOTES, { now: NOW });
  await w.host.state.write(activityFile('0123456789abcdef'), activityLines(30, NOW));
  await mount(w, (leaf) => new DashboardView(leaf, hostedContext(w)));
});
