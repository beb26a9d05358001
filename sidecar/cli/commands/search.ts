// `engram search`: ranked notes with scores, snippets and why they matched.
import type { QueryAnswer } from '../../../src/core/engine.js';
import { EngramError } from '../../../src/core/errors.js';
import { parseSince } from '../../../src/core/duration.js';
import type { IndexSearchOptions } from '../../../src/core/index/search.js';
import { callEngine } from '../../client/forward.js';
import { fusedItems, teamLabel, type TeamResults } from '../../../src/core/team/recall.js';
import { modelFor } from './index.js';
import type { CommandContext, CommandDefinition } from '../types.js';
import { count } from '../../../src/core/plural.js';

const list = (v: unknown): string[] | undefined => {
  const xs = (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter(Boolean);
  return xs.length ? xs : undefined;
};


/**
 * The query on the vault's engine, through its one road (what recall and the hooks search): its live host's, or with
 * none the CLI's own host, whose index snapshot is saved only when it changed and no host owns the vault meanwhile.
 */
async function searchEngine(ctx: CommandContext, query: string, opts: IndexSearchOptions): Promise<{ result: QueryAnswer & TeamResults; by: 'host' | 'here' }> {
  const { expandLinks, ...rest } = opts;
  // A large vault's host may still be reading its notes: the answer waits for it, as recall does.
  return callEngine(ctx, 'search', { query, ...rest, expandLinks: expandLinks || undefined }, {
    deadlineMs: 120_000,
    index: { model: () => modelFor(ctx, opts.mode === 'bm25' ? 'bm25' : 'hybrid') },
    saveIfChanged: true,
  });
}

export const command: CommandDefinition = {
  usage: 'search "<query>" [-n 10] [--type <type>] [--project <name>] [--since <date|7d>] [--mode hybrid|bm25] [--links 1|2] [--json]',
  description: 'Search the vault\'s memory: BM25 on title, summary, tags and text, plus meaning when an embedding model is available.',
  options: {
    limit: { type: 'number', short: 'n', valueName: '<count>', description: 'How many results (default 10)' },
    type: { type: 'string', multiple: true, valueName: '<type>', description: 'Only notes of this type (repeatable)' },
    project: { type: 'string', multiple: true, valueName: '<name>', description: 'Notes of this project plus general notes and notes of no project, as recall (repeatable)' },
    scope: { type: 'string', valueName: 'project|general', description: 'Only notes of this scope' },
    folder: { type: 'string', multiple: true, valueName: '<folder>', description: 'Only notes in this vault folder' },
    tag: { type: 'string', multiple: true, valueName: '<tag>', description: 'Only notes with this tag' },
    since: { type: 'string', valueName: '<date|7d>', description: 'Only notes created or updated since then' },
    until: { type: 'string', valueName: '<date>', description: 'Only notes created or updated until then' },
    working: { type: 'boolean', description: 'Only working-memory notes' },
    mode: { type: 'string', valueName: 'hybrid|bm25', description: 'Ranking: hybrid (default when a model is available) or bm25' },
    links: { type: 'number', valueName: '1|2', description: 'Also show notes this many links away from the top hits' },
  },
  async run(ctx) {
    const query = ctx.args.join(' ');
    const mode = ctx.options.mode === undefined ? undefined : String(ctx.options.mode);
    if (mode !== undefined && mode !== 'hybrid' && mode !== 'bm25') throw new EngramError('usage', `--mode must be hybrid or bm25, not ${mode}`);
    const scope = ctx.options.scope as string | undefined;
    if (scope !== undefined && scope !== 'project' && scope !== 'general') throw new EngramError('usage', '--scope must be project or general');
    const links = ctx.options.links === undefined ? 0 : Number(ctx.options.links);
    if (links !== 0 && links !== 1 && links !== 2) throw new EngramError('usage', '--links must be 1 or 2');
    const opts: IndexSearchOptions = {
      limit: ctx.options.limit === undefined ? 10 : Math.max(1, Math.floor(Number(ctx.options.limit))),
      types: list(ctx.options.type),
      projects: list(ctx.options.project),
      folders: list(ctx.options.folder),
      tags: list(ctx.options.tag),
      scope,
      since: ctx.options.since === undefined ? undefined : parseSince(String(ctx.options.since), Date.now(), '--since'),
      until: ctx.options.until === undefined ? undefined : parseSince(String(ctx.options.until), Date.now(), '--until'),
      durability: ctx.options.working ? 'working' : undefined,
      mode: mode as IndexSearchOptions['mode'],
      expandLinks: links as 0 | 1 | 2,
    };
    if (!query.trim() && !opts.types && !opts.projects && !opts.folders && !opts.tags && !scope && opts.since === undefined && !opts.durability) {
      throw new EngramError('usage', 'The query is empty: nothing to search for.', 'e.g. engram search "sidecar socket", or give a filter such as --type decision');
    }
    const t0 = performance.now();
    const { result, by: answeredBy } = await searchEngine(ctx, query, opts);
    const ms = performance.now() - t0;
    const onHost = answeredBy === 'host';
    // The team's notes (from the local cache: a search never waits on the network) joined by reciprocal rank, each
    // list's first hit counting the same, by the host that answered (one road), for a plain query only.
    const team = result.team ?? [];
    const merged = fusedItems(result.hits, result);
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ query, ...result, ...(team.length ? { team, order: result.order } : {}), answeredBy, ms: Number(ms.toFixed(2)) }, null, 2));
      return 0;
    }
    for (const n of result.notices) ctx.stdout(`note: ${n}`);
    if (merged.length === 0) {
      ctx.stdout(`No notes match "${query}".`);
      return 0;
    }
    merged.forEach((item, i) => {
      if ('team' in item) {
        const t = item.team;
        ctx.stdout(`${i + 1}. ${t.title}  [${teamLabel(t)}]`);
        ctx.stdout(`   team note ${t.id}${t.heading ? ` > ${t.heading}` : ''}`);
        if (t.snippet) ctx.stdout(`   "${t.snippet}"`);
        return;
      }
      const h = item.note;
      const marks = `${h.trust === 'outside' ? '  OUTSIDE TEXT' : ''}${h.flagged ? '  FLAGGED: addressed to an AI' : ''}`;
      ctx.stdout(`${i + 1}. ${h.title}  [${h.type ?? 'note'}${h.project ? `, ${h.project}` : ''}]  score ${h.score.toFixed(4)}${marks}`);
      ctx.stdout(`   ${h.path}${h.heading ? ` > ${h.heading}` : ''}${h.via ? `  (via ${h.via})` : ''}`);
      if (h.summary) ctx.stdout(`   ${h.summary.length > 200 ? `${h.summary.slice(0, 200)}…` : h.summary}`);
      if (h.snippet) ctx.stdout(`   "${h.snippet}"`);
      ctx.stdout(`   why: ${h.why.join('; ')}`);
    });
    const teamShown = merged.filter((m) => 'team' in m).length;
    ctx.stdout(`${count(merged.length - teamShown, 'note')}${teamShown ? ` and ${count(teamShown, 'team note')}` : ''}, ${result.mode}, ${ms.toFixed(1)} ms${onHost ? ', by the running host' : ''}`);
    return 0;
  },
};
