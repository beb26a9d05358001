// `engram review`: working-memory notes that are due, grouped, with proposals (promote, extend, delete).
// Lists by default (a dry run); `--apply <id>` applies one proposal from this or an earlier run.
import { loadCatalog } from '../../../src/core/curate/catalog.js';
import { pruneExpired } from '../../../src/core/curate/proposals.js';
import { planReview } from '../../../src/core/curate/review.js';
import { hostFacts } from '../../host/facts.js';
import { noteVectors, openCurateHost } from '../../host/curate-host.js';
import { curatable } from '../../../src/core/curate/merge-candidates.js';
import { loadVocabulary } from '../../../src/core/note/vocabulary.js';
import { backendOption } from './extract.js';
import { parseDays } from '../../../src/core/duration.js';
import { applyAll, applyIds, describeProposal } from '../curate-output.js';
import { forwardToHost } from '../../client/forward.js';
import type { CommandDefinition } from '../types.js';

export const command: CommandDefinition = {
  usage: 'review [--due-within 7d] [--dry-run | --apply <id>…] [--backend <name>] [--json]',
  description:
    'Review working memory: notes whose review date is due (within the horizon) are grouped and the configured LLM proposes to promote them to a durable note, extend their review date, or delete them. Nothing changes until you apply a proposal by id; applied changes are logged in the vault and removed notes go to the trash.',
  options: {
    'due-within': { type: 'string', valueName: '<days>', description: 'Horizon: notes due on or before today plus this (default 7d)' },
    'dry-run': { type: 'boolean', description: 'List proposals only (the default)' },
    apply: { type: 'string', multiple: true, valueName: '<id>', description: 'Apply the proposal with this id (repeatable)' },
    backend: { type: 'string', valueName: '<name>', description: 'LLM backend for the proposals; `rules` proposes extend only' },
  },
  details: 'Examples:\n  engram review\n  engram review --due-within 14d --json\n  engram review --apply 1a2b3c4d5e6f',
  async run(ctx) {
    const facts = hostFacts(ctx.env);
    // Applying writes the vault: a live host (its one writer) does it. Listing only reads, so it runs here.
    if (applyIds(ctx).length) {
      const forwarded = await forwardToHost(ctx, 'review');
      if (forwarded !== undefined) return forwarded;
    }
    const host = openCurateHost(facts, ctx.cwd, ctx.global.vault, 'cli');
    const ids = applyIds(ctx);
    if (ids.length) return applyAll(ctx, host.ctx, ids);
    const dueWithin = ctx.options['due-within'];
    const horizon = dueWithin === undefined ? 7 : parseDays(String(dueWithin), '--due-within');
    const now = host.ctx.clock.now();
    await pruneExpired(host.ctx.store, now);
    const catalog = await loadCatalog(host.ctx.vault);
    // Related due notes are grouped by shared tags and links, and by meaning when the index has embeddings.
    const { vectors } = await noteVectors(host, catalog, curatable(catalog, host.ctx.settings), false);
    const vocabulary = await loadVocabulary(host.ctx.vault);
    const plan = await planReview(catalog, host.ctx.settings, {
      backend: host.backend(backendOption(ctx)),
      vectors,
      store: host.ctx.store,
      now,
      horizonDays: horizon,
      types: vocabulary.types.map((t) => t.name),
      preferences: vocabulary.preferences,
    });
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ due: plan.due, groups: plan.groups, proposals: plan.proposals, problems: plan.problems }, null, 2));
      return 0;
    }
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
