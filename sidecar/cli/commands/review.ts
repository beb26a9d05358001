// `engram review`: working-memory notes that are due, grouped, with proposals (promote, extend, delete), and the
// vault's sync conflicts with a proposal per way to resolve each (keep mine, keep theirs, merge both).
// Lists by default (a dry run); `--apply <id>` applies one proposal from this or an earlier run.
import { backendOption } from './extract.js';
import { parseDays } from '../../../src/core/duration.js';
import { applyIds, CLI_ACTOR, describeProposal, idsToApply, printApplied } from '../curate-output.js';
import { callEngine } from '../../client/forward.js';
import type { CommandDefinition } from '../types.js';
import { conflictDiff } from '../../../src/core/note/conflict-copy.js';

const CHOICE: Record<string, string> = { mine: 'keep mine  ', theirs: 'keep theirs', merge: 'merge both ' };

export const command: CommandDefinition = {
  usage: 'review [--due-within 7d] [--dry-run | --apply <id>…] [--backend <name>] [--json]',
  description:
    'Review working memory: notes whose review date is due (within the horizon) are grouped and the configured LLM proposes to promote them to a durable note, extend their review date, or delete them. Copies a sync tool left beside notes are listed first, with what differs and a proposal to keep mine, keep theirs or merge both. Nothing changes until you apply a proposal by id; applied changes are logged in the vault and removed notes go to the trash.',
  options: {
    'due-within': { type: 'string', valueName: '<days>', description: 'Horizon: notes due on or before today plus this (default 7d)' },
    'dry-run': { type: 'boolean', description: 'List proposals only (the default)' },
    apply: { type: 'string', multiple: true, valueName: '<id>', description: 'Apply the proposal with this id (repeatable)' },
    backend: { type: 'string', valueName: '<name>', description: 'LLM backend for the proposals; `rules` proposes extend only' },
  },
  details: 'Examples:\n  engram review\n  engram review --due-within 14d --json\n  engram review --apply 1a2b3c4d5e6f',
  async run(ctx) {
    // The vault's engine plans and applies: its live host (the vault's one writer), else the same host here.
    const ids = idsToApply(ctx);
    if (ids.length) return printApplied(ctx, await applyIds(ctx, ids));
    const dueWithin = ctx.options['due-within'];
    const req = { actor: CLI_ACTOR, dueWithinDays: dueWithin === undefined ? 7 : parseDays(String(dueWithin), '--due-within'), backend: backendOption(ctx) };
    const plan = (await callEngine(ctx, 'review.plan', req)).result;
    // Sync conflicts first: each copy with what differs, and the id of each way to resolve it.
    const conflicts = (plan.conflicts ?? []).map((c) => ({
      path: c.path,
      original: c.original,
      tool: c.tool,
      diff: conflictDiff(c.note, c.copy),
      choices: Object.fromEntries(Object.entries(c.proposals).map(([choice, p]) => [choice, p.id])),
    }));
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ due: plan.due, groups: plan.groups, proposals: plan.proposals, problems: plan.problems, conflicts }, null, 2));
      return 0;
    }
    if (conflicts.length) {
      ctx.stdout(`${conflicts.length} sync conflict${conflicts.length === 1 ? '' : 's'} (copies kept out of recall until resolved; what you do not keep goes to the trash):`);
      for (const c of conflicts) {
        ctx.stdout(`  ${c.path}: a copy of ${c.original} left by ${c.tool}`);
        ctx.stdout(c.diff);
        for (const [choice, id] of Object.entries(c.choices)) ctx.stdout(`    ${CHOICE[choice] ?? choice}: engram review --apply ${id}`);
      }
    }
    const horizon = plan.horizonDays;
    if (plan.due.length === 0) {
      ctx.stdout(`No working-memory notes due within ${horizon} days.`);
      return 0;
    }
    ctx.stdout(`${plan.due.length} working-memory note${plan.due.length === 1 ? '' : 's'} due within ${horizon} days, in ${plan.groups.length} group${plan.groups.length === 1 ? '' : 's'}. Nothing was changed.`);
    for (const p of plan.proposals) for (const line of describeProposal(p)) ctx.stdout(line);
    for (const problem of plan.problems) ctx.stdout(`note: ${problem}`);
    ctx.stdout('Apply one with `engram review --apply <id>` (proposals expire after 7 days).');
    return 0;
  },
};
