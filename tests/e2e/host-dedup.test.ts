// Dedup through the host's index: a running host extracts a session whose beats restate notes already in the
// vault. An Engram note is extended (not copied), a note the user wrote gets a possible-duplicate proposal, and a
// forgotten (archived) note is left alone: the index keeps the archive out of dedup's candidates.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, sessionTranscript, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

const SESSION = '11111111-aaaa-4aaa-8aaa-000000000001';
const fixture = path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl');

const PNPM = 'Engram/Projects/acme/Pnpm for the monorepo.md';
const STAGING = 'Ops/Staging resets.md';
const API = 'Engram/Archive/Old API base path.md';

function stateDir(sb: Sandbox): string {
  const vaults = path.join(sb.engramHome, 'vaults');
  return path.join(vaults, fs.readdirSync(vaults)[0]);
}

function vaultNotes(sb: Sandbox): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith('.md')) out.set(path.relative(sb.vault, f).split(path.sep).join('/'), fs.readFileSync(f, 'utf8'));
    }
  };
  walk(sb.vault);
  return out;
}

describe('host extraction dedups through the vault index', () => {
  let sb: Sandbox;
  let transcript: string;

  beforeEach(() => {
    sb = makeSandbox();
    transcript = sessionTranscript(sb, SESSION, fixture);
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
    sb.writeNote(PNPM, '---\ntype: decision\nproject: acme\nsummary: The monorepo uses pnpm workspaces, not npm, because installs are three times faster.\ncreated: 2026-01-05\nengram_id: 0a1b2c3d4e5f6071\nengram_source: hook-extraction\n---\n\nWe use pnpm workspaces, not npm, for the monorepo: installs are three times faster.\n');
    sb.writeNote(STAGING, '# Staging resets\n\nThe staging database is reset every Sunday at 02:00 UTC, so never keep test fixtures there.\n');
    sb.writeNote(API, '---\ntype: correction\nproject: acme\nsummary: The API base path is /api/v2 and not /api/v1, whatever the old README says.\nengram_id: 9f8e7d6c5b4a3921\nengram_source: hook-extraction\n---\n\nThe API base path is /api/v2 and not /api/v1, whatever the old README says.\n');
  });
  afterEach(async () => sb.cleanup());

  it('extends the Engram note, proposes for the user\'s note, and never extends an archived note', async () => {
    const before = vaultNotes(sb);
    sb.serve();
    await waitFor(() => fs.existsSync(path.join(sb.env.XDG_RUNTIME_DIR!, 'engram')) && fs.readdirSync(path.join(sb.env.XDG_RUNTIME_DIR!, 'engram')).length > 0, 10_000, 'socket');
    const r = runCli(['hook', 'SessionEnd'], { env: sb.env, input: JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: sb.root, hook_event_name: 'SessionEnd', reason: 'other' }) });
    expect(r.code).toBe(0);
    const runs = () => {
      try {
        return (JSON.parse(fs.readFileSync(path.join(stateDir(sb), 'ledger.json'), 'utf8')) as { runs: { sessionId: string; outcome: string }[] }).runs;
      } catch {
        return [];
      }
    };
    const run = await waitFor(() => runs().find((x) => x.sessionId === SESSION), 30_000, 'the extraction run');
    expect(run.outcome).toMatch(/extracted/);

    const after = vaultNotes(sb);
    const created = [...after.keys()].filter((p) => !before.has(p));
    // The pnpm beat restates an Engram note: that note grew a dated section; no second pnpm note exists.
    expect(after.get(PNPM)!.length).toBeGreaterThan(before.get(PNPM)!.length);
    expect(after.get(PNPM)).toContain('<!-- engram:');
    expect(created.filter((p) => /pnpm/i.test(after.get(p)!))).toEqual([]);
    // The staging beat restates the user's own note: written, with a possible-duplicate proposal naming it; the user's note is untouched.
    expect(after.get(STAGING)).toBe(before.get(STAGING));
    const proposals = fs.readdirSync(path.join(stateDir(sb), 'proposals')).map((f) => fs.readFileSync(path.join(stateDir(sb), 'proposals', f), 'utf8'));
    expect(proposals.some((p) => p.includes(STAGING))).toBe(true);
    // The API beat restates a forgotten note: the archive is out of dedup (as out of recall), so it is not extended.
    expect(after.get(API)).toBe(before.get(API));
    expect(created.some((p) => /api\/v2/.test(after.get(p)!))).toBe(true);
  });
});
