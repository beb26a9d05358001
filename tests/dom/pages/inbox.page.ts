// The review pane with capture.mode inbox: a real extraction (a scripted model filing three beats) over the page's
// engine held them as proposals; the pane shows them first, with the text each would write.
import { extractSession } from '../../../src/core/extract/extract';
import { capturePolicy } from '../../../src/core/capture/mode';
import { ReviewView } from '../../../src/plugin/views/review-view';
import { ScriptedBackend, beatsFor, session } from '../../helpers/extract';
import { MEMORY_NOTES, NOW, hostedContext, mirrorIntoMocks } from './memory-notes';
import { mount, run, world } from './page-kit';

const TEXTS: [('user' | 'assistant'), string][] = [
  ['user', 'We decided to keep the sidecar socket under XDG_RUNTIME_DIR because /tmp is shared between users.'],
  ['assistant', 'Moving it.'],
  ['user', 'The indexer must batch embeddings by 64 texts or the child process runs out of memory.'],
  ['assistant', 'Batching by 64.'],
  ['user', 'For now the nightly job skips the archive folder until the slow path is fixed.'],
];

run(async () => {
  const w = await world(MEMORY_NOTES, { now: NOW });
  await mirrorIntoMocks(w, MEMORY_NOTES);
  await extractSession({
    ports: { vault: w.host.vault, clock: { now: () => NOW } },
    state: w.host.state,
    vaultDir: 'vaults/0123456789abcdef',
    backend: new ScriptedBackend((req) => beatsFor(req)),
    session: session('5f3a9c1e-0000-4000-8000-00000000abcd', TEXTS),
    capture: capturePolicy('inbox', [], []),
  });
  await mount(w, (leaf) => new ReviewView(leaf, hostedContext(w)));
});
