// The activity pane over a month of sessions (activity-lines.ts): more days than the first screen draws.
import { activityFile } from '../../../src/core/activity/record';
import { ActivityView } from '../../../src/plugin/views/activity-view';
import { activityLines } from './activity-lines';
import { MEMORY_NOTES, NOW, hostedContext } from './memory-notes';
import { mount, run, world } from './page-kit';

run(async () => {
  const w = await world(MEMORY_NOTES, { now: NOW });
  await w.host.state.write(activityFile('0123456789abcdef'), activityLines(30, NOW));
  await mount(w, (leaf) => new ActivityView(leaf, hostedContext(w)));
});
