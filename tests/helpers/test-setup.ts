// Runs before every test file (vitest.config.ts setupFiles): marks the processes this file starts, and after the file
// tears down everything it made, even when a test failed mid-way or its own teardown threw (tests/helpers/leftovers.ts).
import { aroundAll } from 'vitest';
import { RUN_VAR, SCOPE_VAR, killAll, killMarked, processesMarked, tearDownAll, tearDownAllSync } from './leftovers.js';

const worker = `${process.env[RUN_VAR] ?? 'norun'}:${process.pid}:`;
const scope = `${worker}${Math.random().toString(36).slice(2, 10)}`;
process.env[SCOPE_VAR] = scope;

// Around the whole file, not afterAll: an afterAll that throws stops the ones after it.
aroundAll(async (runFile) => {
  try {
    await runFile();
  } finally {
    const errors = await tearDownAll();
    // What the file started and no teardown knew of (a host a hook started, a child a test spawned itself).
    await killMarked(() => processesMarked(SCOPE_VAR, scope)).catch((e: unknown) => errors.push(e as Error));
    if (errors.length) throw new AggregateError(errors, errors.map((e) => e.message).join('; '));
  }
});

// A worker ending without the hook (a timeout, an error): the synchronous part, for every file it ran. Once per worker.
const flags = globalThis as { engramExitHook?: boolean };
if (!flags.engramExitHook) {
  flags.engramExitHook = true;
  process.once('exit', () => {
    tearDownAllSync();
    killAll(processesMarked(SCOPE_VAR, worker, { prefix: true }).map((f) => f.pid));
  });
}
