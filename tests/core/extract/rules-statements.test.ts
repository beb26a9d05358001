// The rules backend on what people actually type: whole-phrase titles, one note per marker, corrections and
// decisions said in plain words, and nothing from questions, hypotheticals, the agent, pasted code, tool output or
// Engram's own injected context. Every beat it proposes passes grounding.
import { describe, expect, it } from 'vitest';
import { ruleBeats } from '../../../src/core/extract/backends/rules.js';
import { RulesBackend } from '../../../src/core/extract/backends/rules.js';
import type { Beat } from '../../../src/core/extract/beat.js';
import { extractSession } from '../../../src/core/extract/extract.js';
import { groundingProblem } from '../../../src/core/extract/grounding.js';
import { MemoryStateStore } from '../../../src/core/extract/state-store.js';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { MAX_TITLE_CHARS, endsMidClause } from '../../../src/core/note/title.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { readClaudeCode } from '../../../src/core/transcript/claude-code.js';
import { fenceRecalled } from '../../../src/core/transcript/fence.js';
import type { Turn } from '../../../src/core/transcript/types.js';
import { turn } from '../../helpers/extract.js';

/** A conversation: the agent speaks before each user turn (as in a real session), so a user turn answers it. */
function talk(...userTexts: string[]): Turn[] {
  const turns: Turn[] = [];
  for (const t of userTexts) {
    turns.push(turn(turns.length, 'assistant', 'I made the change you asked for and ran the build.'));
    turns.push(turn(turns.length, 'user', t));
  }
  return turns;
}

function grounded(beats: Beat[], turns: Turn[]): void {
  const byIndex = new Map(turns.map((t) => [t.index, t]));
  for (const b of beats) expect(groundingProblem(b, byIndex), b.title).toBeNull();
}

function expectWholeTitle(title: string): void {
  expect(title.length).toBeLessThan(MAX_TITLE_CHARS);
  expect(endsMidClause(title), title).toBe(false);
}

/** The one note the rules file from `text`, said after an agent turn: its type and title, grounded and whole. */
function expectFiled(text: string, type: string, title: string): void {
  const turns = talk(text);
  const beats = ruleBeats(turns);
  expect(beats.map((b) => [b.type, b.title, b.turns]), text).toEqual([[type, title, [1]]]);
  grounded(beats, turns);
  expectWholeTitle(beats[0].title);
}

async function notesOf(turns: Turn[]) {
  const vault = new MemoryVault();
  const run = await extractSession({ ports: { vault, clock: { now: () => 0 } }, state: new MemoryStateStore(), vaultDir: 'v', backend: new RulesBackend({ paid: false }), session: { meta: { sessionId: 's1', agent: 'claude-code', project: 'acme' }, turns } });
  const notes = await Promise.all((await vault.list()).map(async (f) => parseNote((await vault.read(f.path)).text)));
  return { run, notes };
}

describe('rules titles', () => {
  it('files whole phrases, not the first nine words', () => {
    const turns = talk(
      '#cor The e2e tests need ENTIRE_TELEMETRY_OPTOUT=1 or they hang for 30 seconds trying to reach PostHog on every command run.',
      "#cor No that's wrong, don't put the migration note in the README, it belongs in docs/MIGRATING.md next to the changelog entries.",
    );
    const beats = ruleBeats(turns);
    expect(beats.map((b) => b.title)).toEqual(['The e2e tests need ENTIRE_TELEMETRY_OPTOUT=1', "Don't put the migration note in the README"]);
    for (const b of beats) expectWholeTitle(b.title);
    grounded(beats, turns);
  });
});

describe('several markers in one message', () => {
  it('files `#decision X. remember: Y` on one line as two notes, each with only its own text', async () => {
    const turns = talk('#decision Deploys go out from the release branch only. remember: the CDN cache must be purged by hand after a logo change');
    const beats = ruleBeats(turns);
    expect(beats.map((b) => [b.type, b.body])).toEqual([
      ['decision', 'Deploys go out from the release branch only.'],
      ['insight', 'the CDN cache must be purged by hand after a logo change'],
    ]);
    grounded(beats, turns);
    const { run, notes } = await notesOf(turns);
    expect(run.beats.created).toBe(2);
    const decision = notes.find((n) => n.data?.type === 'decision');
    const insight = notes.find((n) => n.data?.type === 'insight');
    expect(decision?.body).toContain('release branch');
    expect(decision?.body).not.toContain('CDN');
    expect(insight?.body).toContain('CDN cache');
    expect(insight?.body).not.toContain('release branch');
  });

  it('splits hashtags on one line, and gives a closing marker only the sentence before it', () => {
    const turns = talk('ok. #cor the API returns cents, not dollars and #decision keep Postgres 16 for the reporting database');
    expect(ruleBeats(turns).map((b) => [b.type, b.body])).toEqual([
      ['correction', 'the API returns cents, not dollars'],
      ['decision', 'keep Postgres 16 for the reporting database'],
    ]);
    const closing = talk('#cor The health check endpoint is /healthz, not /status. Keep the retry limit at 3 attempts. #decision');
    expect(ruleBeats(closing).map((b) => [b.type, b.body])).toEqual([
      ['correction', 'The health check endpoint is /healthz, not /status.'],
      ['decision', 'Keep the retry limit at 3 attempts.'],
    ]);
  });
});

describe('plain-words corrections and decisions from the user', () => {
  const said: [string, string, string][] = [
    ['no, use pnpm not npm in this repository', 'correction', 'Use pnpm not npm in this repository'],
    ["don't ever commit the .env file, it holds the staging keys", 'correction', "Don't ever commit the .env file, it holds the staging keys"],
    ["we'll go with Postgres because we need transactional DDL for the migrations", 'decision', "We'll go with Postgres because we need transactional DDL for the migrations"],
    ["let's use vitest instead of jest for the new packages", 'decision', "Let's use vitest instead of jest for the new packages"],
    ['actually, the tests need a running Redis on port 6380', 'correction', 'The tests need a running Redis on port 6380'],
    ['stop adding console.log calls to the request handlers', 'correction', 'Stop adding console.log calls to the request handlers'],
    ['always run the linter before you push a branch', 'decision', 'Always run the linter before you push a branch'],
    ['TODO is not acceptable, the implementation must be complete', 'correction', 'TODO is not acceptable, the implementation must be complete'],
    ['great, but keep in mind that the new session file lands in the same folder as the old one', 'insight', 'Keep in mind that the new session file lands in the same folder as the old one'],
    ['We explicitly chose Haiku as the default model for the e2e tests, the prompts are small.', 'decision', 'We explicitly chose Haiku as the default model for the e2e tests'],
    ['don’t ever run the migrations by hand on staging', 'correction', "Don't ever run the migrations by hand on staging"],
  ];

  it.each(said)('files "%s" as a %s', (text, type, title) => expectFiled(text, type, title));

  it('reads a decision after an opener that is not a correction ("Actually, let\'s …")', () => {
    const beats = ruleBeats(talk("Actually, let's go with Postgres for the reporting database."));
    expect(beats.map((b) => [b.type, b.title])).toEqual([['decision', "Let's go with Postgres for the reporting database"]]);
  });

  it('keeps the reason that follows a correction in the note body', () => {
    const beats = ruleBeats(talk("it's bad idea, since the entire conversation is processed every time. performance is crucial, track the last synced message id."));
    expect(beats).toHaveLength(1);
    expect(beats[0].body).toContain('track the last synced message id');
  });
});

describe('what the rules do not file', () => {
  it('ignores questions, hypotheticals and hedges', () => {
    const turns = talk(
      'should we use Redis or SQS for the queue?',
      'can we go with Postgres here',
      "don't you think we should stop using jest?",
      'No, why would the cache be stale after a deploy?',
      'if we use Postgres we would need a migration tool as well',
      "maybe let's use SQLite for the first version",
      'I think we should use pnpm workspaces for this',
      "we'll go with Postgres, right?",
      'No tests exist yet, please add some for the parser.',
      'no worries, take your time with the migration',
      'Please continue with the next step of the plan.',
    );
    expect(ruleBeats(turns)).toEqual([]);
  });

  it('ignores approvals, task reminders and everyday words that only look like a rule', () => {
    const turns = talk(
      "No, that's fine, go ahead with the plan",
      'No, just continue with the next step please',
      'Actually, that works for me',
      'Always the same error when I run the build',
      'It always fails on the second run of the suite',
      'We will use the results later in the report',
      "let's use the debugger to find out what happens",
      "Don't forget to update the changelog before the release",
      "let's keep going forward with step two of the plan",
      'No, I meant the login page, not the signup page',
      "ok let's go with option 2",
      "let's go with the simpler approach",
      'We decided to look into it tomorrow',
      'The function must not return null here but it does',
      'we will use this later in the report',
    );
    expect(ruleBeats(turns)).toEqual([]);
  });

  it("ignores the assistant's words, even when they read like a correction or decision", () => {
    expect(ruleBeats([turn(0, 'assistant', "No, that's wrong: I misread the stack trace. Let's use vitest instead of jest. Always run the linter before pushing.")])).toEqual([]);
  });

  it('ignores a subagent prompt (the agent wrote it), except a deliberate hashtag', () => {
    const t: Turn = { ...turn(0, 'user', "Don't summarize, provide the full content of each file. remember: the repo uses Ash resources everywhere"), sidechain: true };
    expect(ruleBeats([t])).toEqual([]);
    const tagged: Turn = { ...turn(1, 'user', '#decision Every service keeps its own database schema and migrations.'), sidechain: true };
    expect(ruleBeats([tagged]).map((b) => b.type)).toEqual(['decision']);
  });

  it('ignores code, quoted text and pasted output in a user message', () => {
    const turns = talk(
      "here's the snippet:\n```ts\n// don't ever call this directly, use the factory instead\n// always run migrations first\nconst x = 1;\n```",
      '> no, use npm here, the lockfile is npm\n\nthat is what the old README said',
      'the build prints this:\nnpm ERR! never run npm as root when installing global packages\nError: stop using deprecated flags in the config file',
      '"never use --force with the publish command" is what the warning says',
    );
    expect(ruleBeats(turns)).toEqual([]);
  });

  it('ignores a pasted plan, however many orders it contains', () => {
    const plan = `Implement the following plan:\n\n# Fix attribution\n\nDon't touch the shadow branch naming.\nAlways run the integration tests before committing.\n${'Details of the step. '.repeat(10)}`;
    expect(ruleBeats(talk(plan))).toEqual([]);
  });

  it('ignores what the harness writes in the user\'s place', () => {
    const turns = talk(
      'Stop hook feedback:\nDon\'t stop until every test passes; always run the full suite before you finish.',
      'Read the output file to retrieve the result: /tmp/tasks/b7.output. Never delete it before reading.',
    );
    expect(ruleBeats(turns)).toEqual([]);
  });

  it("ignores Engram's own injected memory", () => {
    const injected = fenceRecalled('#decision We use MySQL for everything.\nNo, use npm, not pnpm.\nremember: deploys happen on Fridays');
    expect(ruleBeats(talk(`${injected}\nplease continue with the parser`))).toEqual([]);
  });

  it('files nothing from tool output or injected memory in a real Claude Code transcript', async () => {
    const base = { isSidechain: false, userType: 'external', cwd: '/home/dev/acme', sessionId: 'tool-out', version: '2.1.39' };
    let n = 0;
    const rec = (type: 'user' | 'assistant', content: unknown) => {
      n++;
      return JSON.stringify({ ...base, parentUuid: n > 1 ? `u${n - 1}` : null, uuid: `u${n}`, timestamp: `2026-11-20T09:0${n}:00.000Z`, type, message: type === 'user' ? { role: 'user', content } : { id: `m${n}`, role: 'assistant', model: 'claude-opus-4-6', content } });
    };
    const lines = [
      rec('user', 'Please look at the deploy script and tell me what it does.'),
      rec('assistant', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'cat deploy.sh' } }]),
      rec('user', [{ type: 'tool_result', tool_use_id: 't1', content: "#decision always deploy on Fridays\nNo, use yarn instead of npm.\nremember: the prod password rotates weekly\nDon't ever run this script twice." }]),
      rec('assistant', [{ type: 'text', text: 'The script builds the image and pushes it to the registry.' }]),
      rec('user', `${fenceRecalled("#decision We use MySQL for everything.\nNo, don't use Postgres.")}\nthanks, that is all for today`),
    ];
    const session = await readClaudeCode([new TextEncoder().encode(`${lines.join('\n')}\n`)], { source: 'tool-out.jsonl' });
    expect(session.turns.length).toBeGreaterThanOrEqual(3);
    expect(ruleBeats(session.turns)).toEqual([]);
  });

  it('lets an explicit marker take precedence over plain words in the same message', () => {
    const beats = ruleBeats(talk('No, not like that. #decision The invoices are generated by the nightly job only.'));
    expect(beats.map((b) => [b.type, b.body])).toEqual([['decision', 'The invoices are generated by the nightly job only.']]);
  });
});

// What a person would keep from sessions nobody tuned for (issue 29: 263 sessions of a public project): steering for
// the turn is not a rule, the agent's words quoted back are not the user's, and a near-explicit standing rule is kept
// with what it is about.
const NEAR_EXPLICIT: [string, string, string][] = [
  ['and remember to use pagination for every list endpoint of the API', 'decision', 'Remember to use pagination for every list endpoint of the API'],
  ['The sessions endpoint returns at most 50 items per page. so you remember this?', 'insight', 'The sessions endpoint returns at most 50 items per page'],
  ['I think the legacy flag is useless now, so let\'s just remove that entirely', 'decision', "Let's just remove the legacy flag entirely"],
  ['The resume command fetches the metadata branch. it should never try to create a branch without a BaseCommit', 'decision', 'The resume command should never try to create a branch without a BaseCommit'],
  ['we use worktrees for each agent session to not clash on the git index', 'decision', 'We use worktrees for each agent session to not clash on the git index'],
  ["thinking again: let's completely remove the start command", 'decision', "Let's completely remove the start command"],
  ['We should add the agent name to any logging', 'decision', 'We should add the agent name to any logging'],
  ['Option 1 does not work since the commit hash can change. That is the stable link. I wonder if we should add this to CLAUDE.md so you remember this?', 'insight', 'Option 1 does not work since the commit hash can change'],
];

describe('durable statements only, judged per clause', () => {
  it('files nothing for steering meant for this turn', () => {
    const turns = talk(
      "Don't change anything, just let me know",
      "Don't fix anything, but just validate it works",
      'Ignore this part, back to the changes we did for go run:',
      "ok, but let's not jump to cross-worktree explanations just yet",
      "don't add notes, looks like there is a need to track the conversation id",
      "don't produce code, design solution first",
      "no, it's not phase 1 there are a bunch of phases completed",
      'we should add a test for all three cases?',
      'that is wrong, I can also totally see `Entire-Checkpoint:` trailers in the main branch',
      "let's make the start command hidden",
    );
    expect(ruleBeats(turns).map((b) => b.title)).toEqual([]);
  });

  it("files the user's correction, not the code comment they quote from the agent, and keeps what it answers", () => {
    const turns = talk("Looking at the changes you did, it has: # Note: .entire is in .gitignore so we don't commit it\nthat is not correct, the .entire folder should be committed to the repository");
    const beats = ruleBeats(turns);
    expect(beats.map((b) => [b.type, b.title])).toEqual([['correction', 'The .entire folder should be committed to the repository']]);
    expect(beats[0].body).toContain('.entire is in .gitignore so we don');
    expect(beats[0].body.split('\n\n')[0]).not.toContain('gitignore');
    grounded(beats, turns);
    const own = talk("the comment says:\n// we never retry failed uploads\nthat's wrong, uploads are retried three times by the queue worker");
    expect(ruleBeats(own).map((b) => b.title)).toEqual(['Uploads are retried three times by the queue worker']);
  });

  it.each(NEAR_EXPLICIT)('catches the near-explicit "%s" as a %s', (text, type, title) => expectFiled(text, type, title));

  it('gives a pronoun its referent from the turn before, or files nothing', () => {
    const turns: Turn[] = [turn(0, 'user', 'is "Gemini CLI" a constant or should we make it one?'), turn(1, 'assistant', 'It is a string literal in two places.'), turn(2, 'user', "yeah let's make both a constant")];
    expect(ruleBeats(turns).map((b) => b.title)).toEqual(["Let's make Gemini CLI a constant"]);
    expect(ruleBeats(talk('It should be worktree. it should never be the main checkout'))).toEqual([]);
  });

  it('writes a path in a title as its last two parts', () => {
    const beats = ruleBeats(talk('no, the config lives in ~/Work/entire/devenv/secret-notes/config.toml, not in the repository'));
    expect(beats.map((b) => b.title)).toEqual(['The config lives in `secret-notes/config.toml`, not in the repository']);
  });
});
