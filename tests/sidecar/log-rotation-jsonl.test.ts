// The JSONL logs under $ENGRAM_HOME/logs rotate by size like every other log, and the budget still counts the calls
// of the last day that a rotation moved to `llm-calls.jsonl.1`. Real files.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { NodeStateStore } from '../../sidecar/hosting/node-state-store.js';
import { LOG_MAX_BYTES } from '../../sidecar/hosting/log.js';
import { CALLS_LOG, recordCall, usageSummary, type CallRecord } from '../../src/core/extract/usage.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

describe('llm-calls.jsonl and extract-runs.jsonl', () => {
  it('rotate past the size limit, and the rolling-day budget still counts what was rotated', async () => {
    const home = makeTempDir('engram-jsonl-');
    dirs.push(home);
    const store = new NodeStateStore(home);
    const now = Date.now();
    const call = (i: number): CallRecord => ({ t: new Date(now - 60_000).toISOString(), backend: 'claude', model: 'm', inputTokens: 10, outputTokens: 1, costUsd: 0, durationMs: 5, attempts: 1, ok: true, mode: 'background', error: 'x'.repeat(2000 + (i % 7)) });
    const perLine = JSON.stringify(call(0)).length + 1;
    const n = Math.ceil((LOG_MAX_BYTES * 1.5) / perLine);
    for (let i = 0; i < n; i++) await recordCall(store, call(i));
    const file = path.join(home, ...CALLS_LOG.split('/'));
    expect(fs.statSync(file).size).toBeLessThanOrEqual(LOG_MAX_BYTES);
    expect(fs.existsSync(`${file}.1`)).toBe(true);
    const u = await usageSummary(store, now, {}, { claude: false });
    expect(u.backends.find((b) => b.backend === 'claude')!.inputTokens).toBe(10 * n);
  });
});
