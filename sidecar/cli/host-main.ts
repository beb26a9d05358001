// The daemon a client starts when no host runs (`engram serve --vault <path>` with ENGRAM_DAEMON, start-host.ts) as one
// self-contained file with its packages inside (dist/engram-host.mjs): the hooks that started it wait for its first
// answer, and the split CLI's chunks plus yaml's, orama's and chokidar's own files took it about twice the CPU to load
// (115 ms against 61 ms on the 2-core machine of bench/prompt-burst). main.ts hands that invocation here; the result
// is the same as `engram serve`'s.
import { command } from './commands/serve.js';
import { entryContext, failureLine, lineWriter } from './entry-context.js';

const stderr = lineWriter(process.stderr);

process.exitCode = await command.run(entryContext([], process.argv[4], lineWriter(process.stdout), stderr)).catch((e: unknown) => {
  stderr(failureLine('serve', e));
  return 1;
});
