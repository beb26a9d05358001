// Note titles from what someone wrote: whole phrases under 80 characters, never cut mid-word or mid-clause.
import { describe, expect, it } from 'vitest';
import { MAX_TITLE_CHARS, endsMidClause, phraseTitle } from '../../../src/core/note/title.js';

/** What a reader checks: short enough, no dangling end, no leftover punctuation. */
function expectWhole(title: string): void {
  expect(title.length).toBeLessThan(MAX_TITLE_CHARS);
  expect(endsMidClause(title), `ends mid-clause: "${title}"`).toBe(false);
  expect(title).not.toMatch(/[\s,;:.…\-–—(]$/);
  expect(title).not.toMatch(/^\s/);
}

describe('phraseTitle', () => {
  it('turns the two titles the rules pass used to cut mid-sentence into whole phrases', () => {
    // Filed before as "The e2e tests need ENTIRE TELEMETRY OPTOUT 1 or" and "No that's wrong don't put the migration note in".
    const a = phraseTitle('The e2e tests need ENTIRE_TELEMETRY_OPTOUT=1 or they hang for 30 seconds trying to reach PostHog on every command run.');
    expect(a).toBe('The e2e tests need ENTIRE_TELEMETRY_OPTOUT=1');
    const b = phraseTitle("No that's wrong, don't put the migration note in the README, it belongs in docs/MIGRATING.md next to the changelog entries for each release");
    expect(b).toBe("Don't put the migration note in the README");
    // Without the comma the filler still goes, and the cut falls before the connective, not after "in".
    const c = phraseTitle("No that's wrong don't put the migration note in the README because nobody reads it there and the docs site pulls its pages from docs/");
    expect(c).toBe("Don't put the migration note in the README");
    for (const t of [a, b, c]) expectWhole(t);
  });

  it('keeps a short statement whole, without a trailing full stop', () => {
    expect(phraseTitle('Keep the retry limit at 3 attempts.')).toBe('Keep the retry limit at 3 attempts');
    expect(phraseTitle('the staging database is reset every Sunday at 02:00 UTC')).toBe('The staging database is reset every Sunday at 02:00 UTC');
  });

  it('drops leading filler and marker words', () => {
    expect(phraseTitle('#decision We use pnpm workspaces, not npm, for the monorepo because installs are three times faster.')).toBe('We use pnpm workspaces, not npm');
    expect(phraseTitle('ok so, actually, the tests must run with TZ=UTC')).toBe('The tests must run with TZ=UTC');
    expect(phraseTitle('remember: deploys freeze on Fridays')).toBe('Deploys freeze on Fridays');
    expect(phraseTitle('No, use pnpm not npm')).toBe('Use pnpm not npm');
    expect(phraseTitle("That's wrong: the queue is FIFO per tenant, not global.")).toBe('The queue is FIFO per tenant, not global');
    expect(phraseTitle('the main idea is fine, however the orchestrator must not be agent specific')).toBe('The orchestrator must not be agent specific');
  });

  it('keeps code identifiers intact and in their case', () => {
    expect(phraseTitle('conversationId is the same as sessionId. set the same value')).toBe('conversationId is the same as sessionId');
    const t = phraseTitle('Use `getLastTimestampFromFile()` from resume.go everywhere instead of the copies in manual_commit_rewind.go and the checkpoint helpers');
    expect(t).toContain('`getLastTimestampFromFile()`');
    expect(t).toContain('resume.go');
    expectWhole(t);
    // A dot inside an identifier is not a sentence end.
    expect(phraseTitle('The config lives in vite.config.ts, not in package.json')).toBe('The config lives in vite.config.ts, not in package.json');
  });

  it('never splits a word, even with no boundary to cut at', () => {
    const long = 'Supercalifragilistic '.repeat(8).trim();
    const t = phraseTitle(long);
    expect(t.length).toBeLessThan(MAX_TITLE_CHARS);
    expect(t.split(' ').every((w) => w === 'Supercalifragilistic')).toBe(true);
  });

  it('takes the first sentence when it fits, else the longest clause', () => {
    expect(phraseTitle('Deploys happen only from the release branch. Main is never deployed directly.')).toBe('Deploys happen only from the release branch');
    const t = phraseTitle('Database migrations run in a separate job before the app rollout so that a failed migration never leaves half-deployed pods behind in production');
    expect(t).toBe('Database migrations run in a separate job before the app rollout');
  });

  it('tells a cut title from a whole one', () => {
    for (const cut of ['The e2e tests need ENTIRE TELEMETRY OPTOUT 1 or', "No that's wrong don't put the migration note in", 'We decided to', 'Keep it,']) expect(endsMidClause(cut)).toBe(true);
    for (const whole of ['Use date-fns instead', "Don't do that", 'Deploys freeze on Fridays']) expect(endsMidClause(whole)).toBe(false);
  });
});
