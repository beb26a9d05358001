// The daemon's entry with the real pieces plugged in (index, extraction) when this build has them.
import fs from 'node:fs';
import { runHost as run, type HostOptions, type HostOutcome } from './daemon.js';
import { makeIndex, makeExtractor } from './wiring.js';
import { watchBuild } from './rebuild-watch.js';
import type { Logger } from './logger.js';

export async function runHost(opts: Omit<HostOptions, 'makeIndex' | 'makeExtractor'>): Promise<HostOutcome> {
  // A rebuild deletes and rewrites dist/: load now every chunk the host loads on demand, so that work in flight
  // never reads dist/ again, and stop cleanly (as on SIGTERM) once a new build is in place.
  await Promise.all([import('../node/embedder.js'), import('../node/extract-runner.js'), import('../node/backends.js')]);
  const entry = process.argv[1];
  let hostLog: Logger | undefined;
  const stop = entry && fs.existsSync(entry)
    ? watchBuild(fs.realpathSync(entry), () => {
        hostLog?.('info', `the CLI was rebuilt (${entry}); stopping so that the next hook starts a host from the new build`);
        process.kill(process.pid, 'SIGTERM');
      })
    : () => {};
  try {
    return await run({
      ...opts,
      makeIndex: (vault, state, log, env, choice) => {
        hostLog = log;
        return makeIndex(vault, state, log, env, choice);
      },
      makeExtractor,
    });
  } finally {
    stop();
  }
}
