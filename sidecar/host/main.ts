// The daemon's entry with the real pieces plugged in (index, extraction) when this build has them.
import fs from 'node:fs';
import { runHost as run, type HostOptions, type HostOutcome } from './daemon.js';
import { extractorMaker, indexMaker, localEmbedder } from '../hosting/wiring.js';
import { engramHome, vaultState } from '../hosting/paths.js';
import { liveConfig } from '../hosting/config-file.js';
import { hostFacts } from '../hosting/facts.js';
import { watchBuild } from './rebuild-watch.js';
import type { Logger } from '../hosting/logger.js';

export interface DaemonOptions extends Omit<HostOptions, 'makeIndex' | 'makeExtractor' | 'config'> {
  /** false: no embedding model is loaded, search stays BM25 (default true). */
  embeddings?: boolean;
}

export async function runHost(opts: DaemonOptions): Promise<HostOutcome> {
  // A rebuild deletes and rewrites dist/: load now every chunk the host loads on demand, so that work in flight
  // never reads dist/ again, and stop cleanly (as on SIGTERM) once a new build is in place.
  await Promise.all([import('../hosting/embedder.js'), import('../hosting/extract-runner.js'), import('../hosting/backends.js')]);
  const entry = process.argv[1];
  let hostLog: Logger | undefined;
  const stop = entry && fs.existsSync(entry)
    ? watchBuild(fs.realpathSync(entry), () => {
        hostLog?.('info', `the CLI was rebuilt (${entry}); stopping so that the next hook starts a host from the new build`);
        process.kill(process.pid, 'SIGTERM');
      })
    : () => {};
  const env = opts.env ?? process.env;
  const state = vaultState(opts.vault, env);
  // The daemon's entry reads the configuration, and hands the host a reader of it as it is at each use: an edit to
  // config.json (read-only mode, the backend of the next job) applies without a restart. The embedder's model is read
  // once, at the start.
  const facts = hostFacts(env);
  const config = liveConfig(facts);
  try {
    return await run({
      ...opts,
      makeIndex: (vault, log, fault) => {
        hostLog = log;
        return indexMaker(state, { embedder: opts.embeddings === false ? undefined : localEmbedder(config(), engramHome(env), log) })(vault, log, fault);
      },
      makeExtractor: extractorMaker(state, env, config),
      config,
    });
  } finally {
    stop();
  }
}
