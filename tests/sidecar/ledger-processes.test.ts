// The one ledger (ledger.json) on disk: capture's coverage moved in from an older sessions.json with the Stop growth
// rule intact, a newer format refused, and two processes (a CLI extraction and a host's jobs) changing it at once
// without losing each other's changes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobForEvent, makeSessionJobRunner } from '../../src/core/capture/session-jobs.js';
import { JobStore, LEDGER_VERSION, type Ledger } from '../../src/core/extract/journal.js';
import { CoverageStore } from '../../sidecar/hosting/coverage.js';
import { nodeTranscripts } from '../../sidecar/hosting/session-jobs.js';
import { NodeStateStore } from '../../sidecar/hosting/node-state-store.js';
import { repoRoot } from '../helpers/shared.js';

const KEY = '0123456789abcdef';
const SESSION = 'two-process-session';
const homes: string[] = [];

function home(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-ledger-'));
  homes.push(dir);
  fs.mkdirSync(path.join(dir, 'vaults', KEY), { recursive: true });
  return dir;
}
const vaultDir = (h: string) => path.join(h, 'vaults', KEY);
const readLedgerFile = (h: string) => JSON.parse(fs.readFileSync(path.join(vaultDir(h), 'ledger.json'), 'utf8')) as Ledger;

afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

describe('the one ledger', () => {
  it('takes in an older sessions.json once, deletes it, and a Stop still re-queues only a session that grew', async () => {
    const h = home();
    const agents = path.join(h, 'agents');
    fs.mkdirSync(agents);
    const transcript = path.join(agents, 's1.jsonl');
    const line = (i: number) => `${JSON.stringify({ type: i % 2 ? 'assistant' : 'user', uuid: `u${i}`, message: { content: `turn ${i}` } })}\n`;
    fs.writeFileSync(transcript, Array.from({ length: 40 }, (_, i) => line(i)).join(''));
    const extractedUpTo = fs.statSync(transcript).size;
    // What a host before ledger version 3 left: a version-2 ledger, and capture's coverage beside it.
    const range = { firstUuid: 'u0', lastUuid: 'u39', firstIndex: 0, lastIndex: 39, beats: 2, at: '2026-11-01T00:00:00Z', backend: 'claude' };
    fs.writeFileSync(path.join(vaultDir(h), 'ledger.json'), JSON.stringify({ version: 2, sessions: { 'claude-code:s1': { ranges: [range] } } }));
    const oldRun = { sessionId: 's1', at: '2026-11-01T00:00:00Z', outcome: 'extracted', notes: 2, bytes: extractedUpTo };
    fs.writeFileSync(
      path.join(vaultDir(h), 'sessions.json'),
      JSON.stringify({ format: 1, sessions: { s1: { bytes: extractedUpTo, records: 40, transcriptPath: transcript, at: oldRun.at, notes: 2 } }, runs: [oldRun] }),
    );
    // The session grows by two turns: under both Stop thresholds.
    fs.appendFileSync(transcript, line(40) + line(41));

    const extracted: number[] = [];
    const run = makeSessionJobRunner({
      coverage: new CoverageStore(h, KEY),
      transcripts: nodeTranscripts(() => [agents]),
      spool: { release: () => {}, defer: () => {} },
      extractor: (req) => (extracted.push(req.fromBytes), Promise.resolve({ notes: 1 })),
      thresholds: () => ({ turns: 6, bytes: 16_384 }),
      log: () => {},
    });
    await run(jobForEvent({ event: 'Stop', sessionId: 's1', transcriptPath: transcript }, 'a.json'));
    expect(extracted).toEqual([]);

    const ledger = readLedgerFile(h);
    expect(ledger.version).toBe(LEDGER_VERSION);
    expect(ledger.sessions['claude-code:s1'].ranges).toEqual([range]);
    expect(ledger.capture.s1).toMatchObject({ bytes: extractedUpTo, records: 40 });
    expect(ledger.runs.map((r) => r.outcome)).toEqual(['extracted', 'skipped: grew 2 records / ' + (fs.statSync(transcript).size - extractedUpTo) + ' bytes since last extraction']);
    expect(fs.existsSync(path.join(vaultDir(h), 'sessions.json'))).toBe(false);

    // A SessionEnd extracts from where the old coverage left off; the ledger then holds the new size.
    await run(jobForEvent({ event: 'SessionEnd', sessionId: 's1', transcriptPath: transcript }, 'b.json'));
    expect(extracted).toEqual([extractedUpTo]);
    expect(readLedgerFile(h).capture.s1.bytes).toBe(fs.statSync(transcript).size);
  });

  it('refuses a newer ledger with a clear message and leaves it as it is', async () => {
    const h = home();
    const file = path.join(vaultDir(h), 'ledger.json');
    const newer = JSON.stringify({ version: LEDGER_VERSION + 1, sessions: {}, capture: {}, runs: [], somethingNew: true });
    fs.writeFileSync(file, newer);
    const message = new RegExp(`ledger\\.json has format version ${LEDGER_VERSION + 1}, newer than this engram understands \\(${LEDGER_VERSION}\\)`);
    const coverage = new CoverageStore(h, KEY);
    await expect(coverage.get('s1')).rejects.toThrow(message);
    await expect(coverage.record('s1', undefined, { sessionId: 's1', at: '2026-11-25T00:00:00Z', outcome: 'already covered', notes: 0, bytes: 0 })).rejects.toThrow(message);
    const jobs = new JobStore(new NodeStateStore(h), `vaults/${KEY}`);
    await expect(jobs.commitRange('claude-code:s1', undefined, { firstUuid: 'a', lastUuid: 'b', firstIndex: 0, lastIndex: 1, beats: 0, at: '2026-11-25T00:00:00Z' })).rejects.toThrow(message);
    expect(fs.readFileSync(file, 'utf8')).toBe(newer);
    // The lock is released after a refusal: the next change is not kept waiting.
    expect(fs.existsSync(path.join(vaultDir(h), 'ledger.lock'))).toBe(false);
  });

  it('a CLI extraction and a host\'s jobs on the same session, in two processes at once, keep each other\'s changes', async () => {
    const h = home();
    const rounds = 40;
    const start = (role: 'cli' | 'host') => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'tests/helpers/ledger-writer.ts'), role, h, KEY, String(rounds)], { cwd: repoRoot });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      const ready = new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('ready\n') && resolve()));
      const done = new Promise<unknown>((resolve, reject) =>
        child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.slice(out.indexOf('ready\n') + 6))) : reject(new Error(`${role} exited ${code}: ${err}`)))),
      );
      return { ready, done };
    };
    const cli = start('cli');
    const host = start('host');
    await Promise.all([cli.ready, host.ready]);
    fs.writeFileSync(path.join(h, 'go'), '');
    const [cliRun, hostRun] = (await Promise.all([cli.done, host.done])) as [{ windows: { total: number; called: number }; errors: string[]; skipped?: string }, { lastBytes: number }];

    expect(cliRun.skipped).toBeUndefined();
    expect(cliRun.errors).toEqual([]);
    expect(cliRun.windows.called).toBeGreaterThanOrEqual(rounds / 2);
    const ledger = readLedgerFile(h);
    // Every window the CLI extracted is in the ledger, and so is every job the host ran and its last coverage.
    expect(ledger.sessions[`claude-code:${SESSION}`].ranges).toHaveLength(cliRun.windows.called);
    expect(ledger.runs.filter((r) => r.sessionId === SESSION)).toHaveLength(rounds);
    expect(ledger.capture[SESSION].bytes).toBe(hostRun.lastBytes);
    expect(fs.existsSync(path.join(vaultDir(h), 'ledger.lock'))).toBe(false);
  }, 60_000);
});
