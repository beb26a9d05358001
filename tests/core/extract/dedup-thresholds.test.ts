// Dedup's thresholds over the index's stop list, against a table of pairs an extraction meets: an Engram note and a
// new beat. Restatements extend the note, paraphrases are proposed as possible duplicates, other facts on the same
// topic are written as notes of their own, and every score sits at least MARGIN away from the bar that decides it.
import { describe, expect, it } from 'vitest';
import type { Beat } from '../../../src/core/extract/beat.js';
import { DEFAULT_DEDUP, beatText, catalogSimilarity, decide, wordSet } from '../../../src/core/extract/dedup.js';
import { VaultCatalog } from '../../../src/core/extract/vault-catalog.js';

const MARGIN = 0.05;

interface Side {
  title: string;
  summary: string;
  body: string;
}

type Outcome = 'extend' | 'propose' | 'write';

/** What the rules backend files from a user's statement: a title phrase, the statement as summary and body. */
const said = (title: string, statement: string): Side => ({ title, summary: statement, body: statement });

const MOMENT = "No, don't use moment.js here; use date-fns because it tree-shakes and moment is in maintenance mode.";
const MOCKS = "No, don't mock the database in integration tests; we got burned last quarter when mocked tests passed and the prod migration failed.";
const PNPM = 'We decided to use pnpm workspaces for the monorepo because installs are faster.';
const NODE18 = 'For now the payments service stays on Node 18 until the SDK supports Node 20.';
const STAGING: Side = { title: 'Staging resets', summary: 'The staging database is reset every Sunday at 02:00 UTC.', body: 'The staging database is reset every Sunday at 02:00 UTC, so never keep test fixtures there.' };
const API: Side = { title: 'API base path', summary: 'The API base path is /api/v2 and every client must use the typed wrapper.', body: 'The API base path is /api/v2 and every client must use the typed wrapper.' };

const TABLE: { name: string; outcome: Outcome; note: Side; beat: Side }[] = [
  // Restated corrections: the rules pass filed the user's words, a model's beat quotes them and explains.
  {
    name: 'restated correction (date-fns): rules note, model beat',
    outcome: 'extend',
    note: said("Don't use moment.js here", MOMENT),
    beat: { title: 'Use date-fns instead of moment.js', summary: 'Use date-fns, not moment.js, for the invoice dates: it tree-shakes and moment is in maintenance mode.', body: MOMENT },
  },
  {
    name: 'restated correction (mocked database): rules note, model beat',
    outcome: 'extend',
    note: said("Don't mock the database in integration tests", MOCKS),
    beat: { title: 'Integration tests hit a real database', summary: 'Integration tests must hit a real database, not mocks: mocked tests passed while the prod migration failed.', body: MOCKS },
  },
  {
    name: 'restated correction (TZ=UTC): rules note, model beat',
    outcome: 'extend',
    note: said('The snapshot tests must run with TZ=UTC', 'Actually, the snapshot tests must run with TZ=UTC, otherwise the dates in the snapshots shift by an hour.'),
    beat: { title: 'Snapshot tests run with TZ=UTC', summary: 'Run the snapshot tests with TZ=UTC; in another time zone the snapshot dates shift by an hour.', body: 'Actually, the snapshot tests must run with TZ=UTC, otherwise the dates in the snapshots shift by an hour.' },
  },
  {
    name: 'restated correction: the user says it again in a later session',
    outcome: 'extend',
    note: said('Never push directly to main', 'Never push directly to main; open a pull request even for one-line fixes.'),
    beat: said("Don't push directly to main", "Don't push directly to main, please: open a pull request, even for one-line fixes."),
  },
  {
    name: 'a correction that turns a short note around is its own note (proposed beside it), never appended to it',
    outcome: 'propose',
    note: said('Use moment.js for dates', 'Use moment.js for dates in the invoice app.'),
    beat: said("Don't use moment.js anymore", "Don't use moment.js for dates in the invoice app anymore; use date-fns."),
  },
  {
    name: 'restated decision: same words, new detail',
    outcome: 'extend',
    note: said('We decided to use pnpm workspaces', PNPM),
    beat: said('We decided to use pnpm workspaces', 'We decided to use pnpm workspaces for the monorepo because installs are faster, confirmed today.'),
  },
  {
    name: 'restated decision: the API base path, reworded',
    outcome: 'extend',
    note: API,
    beat: { title: 'API clients use the typed wrapper on /api/v2', summary: 'Every API client goes through the typed wrapper; the base path is /api/v2.', body: 'The API base path is /api/v2, and every client must use the typed wrapper.' },
  },
  { name: 'short note restated', outcome: 'extend', note: said('Prefer pnpm over npm', 'Prefer pnpm over npm.'), beat: said('Prefer pnpm over npm', 'Prefer pnpm over npm, always.') },
  { name: 'short correction restated', outcome: 'extend', note: said('No console.log in committed code', 'No console.log in committed code.'), beat: said('No console.log in committed code', 'No console.log in committed code, ever.') },

  // Paraphrases: two model notes of one decision in other words. Word overlap cannot be sure: a proposal, never a write.
  {
    name: 'paraphrased decision: pnpm workspaces, two model notes',
    outcome: 'propose',
    note: { title: 'Pnpm workspaces for the monorepo', summary: 'The monorepo uses pnpm workspaces instead of npm because installs are three times faster.', body: 'We moved the monorepo from npm to pnpm workspaces: installs are three times faster.' },
    beat: { title: 'Monorepo on pnpm workspaces', summary: 'We use pnpm workspaces for the monorepo, not npm: installs are three times faster.', body: 'Decided: pnpm workspaces for the monorepo instead of npm, since installs are three times faster.' },
  },
  {
    name: 'paraphrased correction: date-fns, two model notes',
    outcome: 'propose',
    note: { title: 'Use date-fns, not moment.js', summary: 'Invoice dates are formatted with date-fns; moment.js is in maintenance mode and does not tree-shake.', body: 'Use date-fns instead of moment.js for invoice dates: moment is in maintenance mode and does not tree-shake.' },
    beat: { title: 'date-fns over moment.js for dates', summary: 'Format invoice dates with date-fns, not moment.js, which is in maintenance mode.', body: 'The user corrected the agent again: date-fns, not moment.js, for invoice dates; moment is in maintenance mode.' },
  },
  // One word swapped in a short sentence: another fact that overlaps like a restatement. Never extended.
  { name: 'one word swapped: which service owns the table', outcome: 'propose', note: said('The payments service owns the invoices table', 'The payments service owns the invoices table.'), beat: said('The billing service owns the invoices table', 'The billing service owns the invoices table.') },

  // Different decisions on the same topic.
  {
    name: 'another decision on pnpm',
    outcome: 'write',
    note: said('We decided to use pnpm workspaces', PNPM),
    beat: { title: 'Pin pnpm in CI with corepack', summary: 'CI pins pnpm through corepack so that local and CI installs use the same pnpm.', body: 'Pin the pnpm version in CI with corepack, so CI and laptops resolve the same lockfile.' },
  },
  { name: 'another repository on npm', outcome: 'write', note: said('We decided to use pnpm workspaces', PNPM), beat: said('The docs site stays on npm', 'The docs site stays on npm because Netlify builds it with npm.') },
  {
    name: 'another decision on the staging database',
    outcome: 'write',
    note: STAGING,
    beat: { title: 'Staging database has a read replica', summary: 'The staging database runs Postgres with a read replica for the reporting jobs.', body: 'Staging runs Postgres with one read replica; the reporting jobs read from the replica.' },
  },
  { name: 'the production database schedule', outcome: 'write', note: STAGING, beat: said('The production database is backed up every night', 'The production database is backed up every night and the backups are kept for 30 days.') },
  {
    name: 'another decision on invoice dates',
    outcome: 'write',
    note: said("Don't use moment.js here", MOMENT),
    beat: { title: "Invoice dates in the customer's time zone", summary: "Invoice dates are shown in the customer's time zone, not the server's.", body: "Show invoice dates in the customer's time zone; the server's zone confused customers abroad." },
  },
  {
    name: 'moment.js kept in another app',
    outcome: 'write',
    note: said("Don't use moment.js here", MOMENT),
    beat: { title: 'The legacy admin app keeps moment.js', summary: 'The legacy admin app keeps moment.js; migrating it to date-fns is not worth it.', body: 'Leave moment.js in the legacy admin app: it is frozen, and migrating it to date-fns is not worth it.' },
  },
  {
    name: 'another decision on the payments service',
    outcome: 'write',
    note: said('For now the payments service stays', NODE18),
    beat: { title: 'Payments webhooks retry with backoff', summary: 'The payments service retries failed webhooks three times with exponential backoff.', body: 'Failed webhooks in the payments service are retried three times, with exponential backoff.' },
  },
  { name: 'the Node version of another service', outcome: 'write', note: said('For now the payments service stays', NODE18), beat: said('The search service moves to Node 22', 'The search service moves to Node 22 next sprint.') },
  {
    name: 'another decision on integration tests',
    outcome: 'write',
    note: said("Don't mock the database in integration tests", MOCKS),
    beat: { title: 'Integration tests run in parallel', summary: 'Integration tests run in parallel, with one database schema per worker.', body: 'Run the integration tests in parallel: each worker gets its own database schema.' },
  },
  {
    name: 'another decision on API clients',
    outcome: 'write',
    note: API,
    beat: { title: 'POST requests carry an idempotency key', summary: 'Every API client sends an Idempotency-Key header on POST requests.', body: 'API clients must send an Idempotency-Key header with every POST, so retries never double-charge.' },
  },
  { name: 'two test runners', outcome: 'write', note: said('Use Vitest for the unit tests', 'Use Vitest for the unit tests of the web app.'), beat: said('Use Playwright for the end-to-end tests', 'Use Playwright for the end-to-end tests of the web app.') },
  { name: 'two logging rules', outcome: 'write', note: said('Log errors with the request id', 'Log errors with the request id so that support can find them.'), beat: said('Never log request bodies', 'Never log request bodies: they can hold card numbers.') },

  // Short notes on one topic.
  { name: 'short notes: indentation', outcome: 'write', note: said('Indent Python with four spaces', 'Indent Python with four spaces.'), beat: said('Indent YAML with two spaces', 'Indent YAML with two spaces.') },
  { name: 'short notes: deploys', outcome: 'write', note: said('Never deploy on Fridays', 'Never deploy on Fridays.'), beat: said('Deploy only from the release branch', 'Deploy only from the release branch.') },
  { name: 'short notes: console.log', outcome: 'write', note: said('No console.log in committed code', 'No console.log in committed code.'), beat: said('Use the logger instead of console.log', 'Use the logger instead of console.log in the CLI.') },
];

function beatOf(side: Side): Beat {
  return { type: 'decision', ...side, scope: 'project', durability: 'durable', tags: [], related: [], confidence: 0.9, turns: [0], quote: side.body.slice(0, 40) };
}

/** A vault holding the note as Engram wrote it (unlocked, with engram_id), so a restatement may extend it. */
function catalogWith(note: Side): VaultCatalog {
  const catalog = new VaultCatalog();
  catalog.add(`Engram/${note.title}.md`, `---\ntype: decision\nsummary: ${JSON.stringify(note.summary)}\nengram_id: 0123456789abcdef\n---\n\n${note.body}\n`);
  return catalog;
}

describe('dedup thresholds on the index stop list', () => {
  const { same, maybe } = DEFAULT_DEDUP;

  for (const row of TABLE) {
    it(`${row.outcome}: ${row.name}`, async () => {
      const catalog = catalogWith(row.note);
      const beat = beatOf(row.beat);
      const [hit] = await catalogSimilarity(catalog).findSimilar(beatText(beat), 1);
      const score = hit?.score ?? 0;
      const noteTerms = wordSet(catalog.notes.get(`Engram/${row.note.title}.md`)!.text);
      const beatTerms = wordSet(beatText(beat));
      const repeatsNote = [...noteTerms].every((t) => beatTerms.has(t));

      const decision = await decide(beat, catalog, catalogSimilarity(catalog));
      const outcome: Outcome = decision.action === 'extend' ? 'extend' : decision.action === 'write' && decision.duplicateOf ? 'propose' : 'write';
      expect(outcome, `score ${score.toFixed(2)}, repeats every term of the note: ${repeatsNote}`).toBe(row.outcome);

      // The margins: no pair sits on a bar, so a small change in wording does not flip its outcome.
      if (row.outcome === 'extend') expect(score >= same + MARGIN || (repeatsNote && score >= maybe + MARGIN), `score ${score.toFixed(2)}`).toBe(true);
      if (row.outcome === 'propose') {
        expect(score).toBeGreaterThanOrEqual(maybe + MARGIN);
        expect(score).toBeLessThanOrEqual(same - MARGIN);
      }
      if (row.outcome === 'write') expect(score).toBeLessThanOrEqual(maybe - MARGIN);
    });
  }
});
