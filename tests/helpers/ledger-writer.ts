// One of two processes changing a vault's ledger at once (tests/sidecar/ledger-processes.test.ts):
// `node --import tsx tests/helpers/ledger-writer.ts <cli|host> <engram home> <vault key> <rounds>`.
// `cli` extracts one session (2 × rounds turns) as `engram extract` does with no host (the real extractor, committing one range per
// window); `host` runs capture's session jobs on the same session as a host does (the real job runner and the Node
// coverage port). Each prints `ready`, waits for `<engram home>/go` (so both really run at once), then prints its
// result as JSON.
import fs from 'node:fs';
import path from 'node:path';
import { register } from 'node:module';

// Prompt templates are imported as text, as esbuild's `.md` loader does for dist/.
register('../../bench/md-text-loader.mjs', import.meta.url);

const [role, home, key, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg);
const SESSION = 'two-process-session';

async function go(): Promise<void> {
  process.stdout.write('ready\n');
  while (!fs.existsSync(path.join(home, 'go'))) await new Promise((r) => setTimeout(r, 2));
}

async function cli(): Promise<unknown> {
  const { extractSession } = await import('../../src/core/extract/extract.js');
  const { NodeStateStore } = await import('../../sidecar/hosting/node-state-store.js');
  const { MemoryVault } = await import('../../src/core/ports/memory-vault.js');
  const { systemClock } = await import('../../src/core/ports.js');
  const { ScriptedBackend, session } = await import('./extract.js');
  const texts = Array.from({ length: 2 * rounds }, (_, i): ['user', string] => ['user', `Turn ${i} of a long session about the build, with enough words to fill a window.`]);
  const backend = new ScriptedBackend(() => JSON.stringify({ beats: [] }));
  const options = {
    ports: { vault: new MemoryVault({ clock: systemClock }), clock: systemClock },
    state: new NodeStateStore(home),
    vaultDir: `vaults/${key}`,
    backend,
    session: session(SESSION, texts),
    window: { budgetTokens: 25 },
  };
  await go();
  const run = await extractSession(options);
  return { windows: run.windows, errors: run.errors, skipped: run.skipped };
}

async function host(): Promise<unknown> {
  const { makeSessionJobRunner, jobForEvent } = await import('../../src/core/capture/session-jobs.js');
  const { CoverageStore } = await import('../../sidecar/hosting/coverage.js');
  let size = 0;
  const run = makeSessionJobRunner({
    coverage: new CoverageStore(home, key),
    transcripts: { allowed: (p) => p, size: () => size, countRecords: () => 1, isEngramOwn: () => Promise.resolve(false) },
    spool: { release: () => {}, defer: () => {} },
    extractor: () => Promise.resolve({ notes: 0, outcome: `host job at ${size} bytes` }),
    thresholds: () => ({ turns: 6, bytes: 16_384 }),
    log: () => {},
  });
  await go();
  for (let i = 1; i <= rounds; i++) {
    size = i * 1000;
    await run(jobForEvent({ event: 'SessionEnd', sessionId: SESSION, transcriptPath: '/agents/session.jsonl' }, `e${i}.json`));
  }
  return { jobs: rounds, lastBytes: size };
}

const result = await (role === 'cli' ? cli() : host());
process.stdout.write(`${JSON.stringify(result)}\n`);
