// The vault's change log under several processes at once (parallel `engram forget`s): every entry lands, once.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatEntry, logPath, type LogEntry } from '../../src/core/curate/change-log.js';
import { repoRoot } from '../helpers/shared.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const AT = Date.parse('2026-03-10T12:00:00Z');
const entry = (writer: number, i: number): LogEntry => ({ at: AT + writer * 1000 + i, actor: `w${writer}`, action: 'forget', wrote: [], from: [`n${writer}-${i}.md`], trashed: [], moved: [], relinked: 0 });

function writer(vault: string, n: number, count: number): Promise<number | null> {
  const script = `
    const { NodeVault } = await import(${JSON.stringify(path.join(repoRoot, 'sidecar/hosting/node-vault.ts'))});
    const { appendLogOnce } = await import(${JSON.stringify(path.join(repoRoot, 'src/core/curate/change-log.ts'))});
    const vault = new NodeVault(${JSON.stringify(vault)});
    const entry = ${entry.toString()};
    const AT = ${AT};
    (await import('node:fs')).writeFileSync(${JSON.stringify(path.join(vault, `ready-${n}`))}, '');
    while (!(await import('node:fs')).existsSync(${JSON.stringify(path.join(vault, 'go'))})) await new Promise((r) => setTimeout(r, 2));
    for (let i = 0; i < ${count}; i++) await appendLogOnce(vault, 'Engram/Log', 'dev-a', entry(${n}, i));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.on('exit', resolve));
}

describe('the change log, appended by several processes', () => {
  it('keeps every line of 6 processes appending 15 entries each at once', async () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-log-append-'));
    dirs.push(vault);
    const runs = Array.from({ length: 6 }, (_, n) => writer(vault, n, 15));
    // All are loaded before any writes: each says it is ready, then waits for the go file.
    while (Array.from({ length: 6 }, (_, n) => fs.existsSync(path.join(vault, `ready-${n}`))).includes(false)) await new Promise((r) => setTimeout(r, 10));
    fs.writeFileSync(path.join(vault, 'go'), '');
    expect(await Promise.all(runs)).toEqual(Array(6).fill(0));
    const lines = fs.readFileSync(path.join(vault, logPath('Engram/Log', 'dev-a', AT)), 'utf8').split('\n');
    for (let n = 0; n < 6; n++) for (let i = 0; i < 15; i++) expect(lines.filter((l) => l === formatEntry(entry(n, i))), `writer ${n} entry ${i}`).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('# Engram log'))).toHaveLength(1);
  });
});
