// Write control (capture.mode): inbox holds each beat as a review proposal and writes nothing until it is approved;
// off per type drops those beats; off per project does not even call the model.
import { describe, expect, it } from 'vitest';
import { extractSession } from '../../../src/core/extract/extract.js';
import { Curation } from '../../../src/core/curate/service.js';
import { capturePolicy, captureModeFor, parseModeRules } from '../../../src/core/capture/mode.js';
import { keySpec } from '../../../src/core/config.js';
import { ScriptedBackend, beatsFor, extractEnv, extractOptions, session, vaultSnapshot } from '../../helpers/extract.js';
import { settings } from '../curate/fixtures.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const clock = { now: () => T0 };
const TEXTS: [('user' | 'assistant'), string][] = [
  ['user', 'We decided to use pnpm workspaces for the monorepo because installs are faster.'],
  ['assistant', 'Switching to pnpm.'],
  ['user', 'The API base path is /api/v2 and every client must use the typed wrapper.'],
];
/** The pnpm beat is a decision, the API one a reference. */
const mixed = () => new ScriptedBackend((req) => {
  const reply = JSON.parse(beatsFor(req)) as { beats: { type: string; body: string }[] };
  for (const b of reply.beats) if (/API/.test(b.body)) b.type = 'reference';
  return JSON.stringify(reply);
});
const engramNotes = async (env: ReturnType<typeof extractEnv>) => Object.keys(await vaultSnapshot(env.vault)).filter((p) => p.startsWith('Engram/') && !p.startsWith('Engram/Log/'));

describe('capture.mode', () => {
  it('inbox: nothing is written; each beat waits in the review plan, and approving one writes exactly its text', async () => {
    const env = extractEnv(clock);
    const capture = capturePolicy('inbox', [], []);
    const run = await extractSession(extractOptions(env, mixed(), session('s1', TEXTS), { capture }));
    expect(run.beats).toMatchObject({ created: 0, proposed: 2 });
    expect(await engramNotes(env)).toEqual([]);
    // The window is done: a second run neither calls the model nor proposes again.
    const again = mixed();
    await extractSession(extractOptions(env, again, session('s1', TEXTS), { capture }));
    expect(again.requests).toHaveLength(0);

    const curation = new Curation({ vault: env.vault, state: env.state, vaultKey: 'k', settings, clock });
    const plan = await curation.reviewPlan({});
    const held = plan.proposals.filter((p) => p.kind === 'capture');
    expect(held.map((p) => p.writes[0].path).sort()).toEqual(run.notes.map((n) => n.path).sort());
    const pnpm = held.find((p) => /pnpm/.test(p.title))!;
    expect(pnpm.title).toMatch(/^New decision: /);
    const [outcome] = await curation.apply([pnpm.id]);
    expect(outcome.ok).toBe(true);
    expect(await engramNotes(env)).toEqual([pnpm.writes[0].path]);
    expect((await env.vault.read(pnpm.writes[0].path)).text).toBe(pnpm.writes[0].text);
    // Rejecting the other discards it: it is gone from the plan, and nothing was written.
    const api = held.find((p) => p !== pnpm)!;
    expect(await curation.reject([api.id])).toEqual([api.id]);
    expect((await curation.reviewPlan({})).proposals.filter((p) => p.kind === 'capture')).toEqual([]);
    expect(await engramNotes(env)).toEqual([pnpm.writes[0].path]);
  });

  it('off for a type drops those beats; the strictest of global, type and project applies', async () => {
    const env = extractEnv(clock);
    const run = await extractSession(extractOptions(env, mixed(), session('s1', TEXTS), { capture: capturePolicy('auto', ['reference=off'], []) }));
    expect(run.beats).toMatchObject({ created: 1, notCaptured: 1 });
    expect(await engramNotes(env)).toEqual(['Engram/Projects/acme/We decided to use pnpm workspaces.md']);
    const p = capturePolicy('auto', ['decision=inbox'], ['acme=off', 'beta=inbox']);
    expect(captureModeFor(p, { type: 'decision', project: 'acme' })).toBe('off');
    expect(captureModeFor(p, { type: 'reference', project: 'beta' })).toBe('inbox');
    expect(captureModeFor(p, { type: 'reference', project: 'gamma' })).toBe('auto');
    expect(captureModeFor(capturePolicy('off', ['decision=auto'], []), { type: 'decision' })).toBe('off');
  });

  it('off for a project: the session is not sent to the model at all', async () => {
    const env = extractEnv(clock);
    const backend = mixed();
    const run = await extractSession(extractOptions(env, backend, session('s1', TEXTS), { capture: capturePolicy('auto', [], ['acme=off']) }));
    expect(backend.requests).toHaveLength(0);
    expect(run.skipped).toMatch(/capture.mode is off for project acme/);
    expect(await engramNotes(env)).toEqual([]);
  });

  it('configuration refuses a rule that is not name=mode, and says which', () => {
    expect(parseModeRules(['decision=inbox', ' acme = off '])).toEqual({ ok: true, rules: { decision: 'inbox', acme: 'off' } });
    expect(keySpec('capture.mode_by_type').check('decision=inbox, gotcha=maybe')).toEqual({ ok: false, error: 'a list of name=auto|inbox|off entries ("gotcha=maybe" is not name=auto|inbox|off)' });
    expect(keySpec('capture.mode').check('sometimes')).toMatchObject({ ok: false });
  });
});
