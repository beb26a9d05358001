// `engram team …`: the team store (docs/team.md). A team runs PostgreSQL (pgvector where they have it); each person's
// vault stays their own, and only the durable notes they promote, after a secret check, leave it.
import { EngramError, errorMessage } from '../../../src/core/errors.js';
import { lookUpNote } from '../../../src/core/note/lookup.js';
import { titleFromPath } from '../../../src/core/note/meta.js';
import { engramHome } from '../../../src/core/state.js';
import { copyTeamNote } from '../../../src/core/team/copy.js';
import { teamLabel } from '../../../src/core/team/recall.js';
import type { TeamHit } from '../../../src/core/team/store.js';
import { apiKey, saveKeychainSecret } from '../../hosting/backends.js';
import { saveConfigKey } from '../../hosting/config-file.js';
import { NodeVault } from '../../hosting/node-vault.js';
import { requireVault } from '../../hosting/resolve.js';
import { redactUrl } from '../../hosting/team/pg-store.js';
import { conflicts, dropProposal, hostTeam, openTeamStore, proposals, queuePromotion, sendQueued, queued, readCache, refreshCache, searchCache, teamDir, teamSettings, TEAM_PASSWORD, type TeamSettings } from '../../hosting/team/team-service.js';
import type { CommandContext, CommandDefinition } from '../types.js';

const SUBCOMMANDS = ['connect', 'status', 'promote', 'sync', 'search', 'retract', 'copy', 'proposals', 'approve', 'dismiss'] as const;

function settingsOrFail(ctx: CommandContext): TeamSettings {
  const s = teamSettings(ctx.config(), ctx.env);
  if (!s) throw new EngramError('invalid-config', 'no team store is set', 'connect one with `engram team connect postgres://you@host:5432/db --team <team>`');
  return s;
}

/** Every note of the vault by its vault path, named by its file name (what a user types), from the vault's own listing. */
async function vaultNotes(vault: NodeVault): Promise<Map<string, { title: string; aliases: string[] }>> {
  return new Map((await vault.listPaths()).map((p) => [p, { title: titleFromPath(p), aliases: [] }]));
}

function hitLines(hits: TeamHit[]): string[] {
  return hits.flatMap((h, i) => [
    `${i + 1}. ${h.title}  [${teamLabel(h)}]`,
    `   id ${h.id}${h.heading ? `  > ${h.heading}` : ''}`,
    ...(h.snippet ? [`   "${h.snippet}"`] : []),
  ]);
}

async function connect(ctx: CommandContext): Promise<number> {
  const url = ctx.args[1];
  const team = typeof ctx.options.team === 'string' ? ctx.options.team.trim() : '';
  if (!url || !team) throw new EngramError('usage', 'give the database and the team: engram team connect postgres://you@host:5432/db --team <team>');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EngramError('usage', `not a URL: ${redactUrl(url)}`);
  }
  // A password in the URL is used for this connection, never written: the configuration keeps the URL without it.
  const password = decodeURIComponent(parsed.password) || apiKey(TEAM_PASSWORD, ctx.env);
  parsed.password = '';
  const bare = parsed.toString();
  const store = openTeamStore({ url: bare, password });
  try {
    const version = await store.migrate().catch((e: unknown) => {
      throw new EngramError('io', `could not prepare the team store: ${errorMessage(e)}`, 'the first member to connect needs the right to create tables (a team admin); the others only read and write rows');
    });
    const caps = await store.capabilities();
    const member = await store.whoami();
    await saveConfigKey(ctx.facts, 'team.url', bare);
    await saveConfigKey(ctx.facts, 'team.name', team);
    const cache = await refreshCache(teamDir(engramHome(ctx.facts)), { url: bare, team, member, password }, store);
    // The password that worked, kept in the OS keychain when asked (never in the configuration).
    const saved = ctx.options['save-password'] && password ? saveKeychainSecret(TEAM_PASSWORD, password, ctx.env) : undefined;
    const passwordFrom = saved?.ok ? `kept in ${saved.where}` : saved ? `not kept: ${saved.why}; set ${TEAM_PASSWORD} where Engram runs` : `not stored: Engram reads ${TEAM_PASSWORD} from the environment, else the OS keychain (--save-password keeps it there)`;
    const result = { url: redactUrl(bare), team, member, schemaVersion: version, search: caps.vectors ? 'keyword + vector (pgvector)' : 'keyword (no pgvector on this server)', cachedNotes: cache.notes.length, password: passwordFrom };
    if (ctx.global.json) ctx.stdout(JSON.stringify(result, null, 2));
    else {
      ctx.stdout(`Connected to ${result.url} as ${member}, team ${team} (schema ${version}; ${result.search}).`);
      ctx.stdout(`${cache.notes.length} team notes cached for recall. The password is ${passwordFrom}.`);
    }
    return 0;
  } finally {
    await store.close();
  }
}

async function status(ctx: CommandContext): Promise<number> {
  const s = teamSettings(ctx.config(), ctx.env);
  const dir = teamDir(engramHome(ctx.facts));
  const waiting = queued(dir);
  const cache = readCache(dir);
  let reach: string;
  let caps: { vectors: boolean; schemaVersion: number } | undefined;
  if (!s) reach = 'no team store set';
  else {
    const store = openTeamStore(s);
    try {
      caps = await store.capabilities();
      reach = 'reachable';
    } catch (e) {
      reach = errorMessage(e);
    } finally {
      await store.close();
    }
  }
  const result = {
    url: s ? redactUrl(s.url) : null,
    team: s?.team ?? null,
    member: s?.member ?? null,
    store: reach,
    vectors: caps?.vectors ?? null,
    queued: waiting.length,
    proposals: proposals(dir).length,
    conflicts: conflicts(dir).length,
    unreadable: waiting.filter((q) => q.problem).map((q) => `${q.file}: ${q.problem}`),
    cache: cache ? { notes: cache.notes.length, refreshedAt: cache.refreshedAt } : null,
  };
  if (ctx.global.json) ctx.stdout(JSON.stringify(result, null, 2));
  else {
    ctx.stdout(s ? `Team ${s.team} at ${result.url} as ${s.member}: ${reach}${caps ? ` (${caps.vectors ? 'keyword + vector' : 'keyword only'})` : ''}` : 'No team store set (`engram team connect`).');
    ctx.stdout(`Waiting to be sent: ${waiting.length}${waiting.length ? ' (sent by `engram team sync`, or the next promotion)' : ''}`);
    for (const u of result.unreadable) ctx.stdout(`  not a promotion, left alone: ${u}`);
    if (result.proposals || result.conflicts) ctx.stdout(`Waiting for you: ${result.proposals} proposed by agents, ${result.conflicts} conflicts (\`engram team proposals\`)`);
    ctx.stdout(cache ? `Cached for recall: ${cache.notes.length} team notes, refreshed ${cache.refreshedAt}` : 'Nothing cached yet.');
  }
  return 0;
}

async function promote(ctx: CommandContext): Promise<number> {
  const ref = ctx.args.slice(1).join(' ').trim();
  if (!ref) throw new EngramError('usage', 'which note? engram team promote <vault path or title>');
  return promoteRef(ctx, settingsOrFail(ctx), ref);
}

/** The person's own word: checked (durable, theirs, no secret), queued, sent. */
async function promoteRef(ctx: CommandContext, s: TeamSettings, ref: string): Promise<number> {
  const vault = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
  const notes = new NodeVault(vault.realPath);
  const found = lookUpNote(ref, await vaultNotes(notes));
  if (!found.path) throw new EngramError(found.candidates.length ? 'conflict' : 'not-found', found.candidates.length ? `"${ref}" names ${found.candidates.length} notes: ${found.candidates.join(', ')}` : `no note "${ref}" in ${vault.realPath}`, found.candidates.length ? 'give its vault path' : undefined);
  const { text } = await notes.read(found.path);
  const dir = teamDir(engramHome(ctx.facts));
  await queuePromotion(dir, s, vault.realPath, found.path, text);
  return send(ctx, s, dir, found.path);
}

/** Sends what waits and refreshes the cache; a store that does not answer leaves the queue for later. */
async function send(ctx: CommandContext, s: TeamSettings, dir: string, promoted?: string): Promise<number> {
  const report = await sendQueued(dir, s);
  const cached = report.cached;
  if (ctx.global.json) ctx.stdout(JSON.stringify({ ...report, cachedNotes: cached ?? null }, null, 2));
  else {
    for (const x of report.sent) {
      const o = x.outcome;
      ctx.stdout(o.status === 'conflict' ? `${x.path}: not sent, ${o.author} shares a note of that title (team note ${o.id}); rename yours or ask them` : `${x.path}: ${o.status} (team note ${o.id})`);
    }
    if (report.stopped) ctx.stdout(`${report.waiting} waiting: ${report.stopped}. Sent by \`engram team sync\` once the store answers.`);
    else if (!report.sent.length && !promoted) ctx.stdout('Nothing waiting.');
    if (cached !== undefined) ctx.stdout(`${cached} team notes cached for recall.`);
  }
  return report.sent.some((x) => x.outcome.status === 'conflict') ? 1 : 0;
}

/** What waits for the person: agents' proposals for this vault, and promotions the store refused as conflicts. */
async function listProposals(ctx: CommandContext): Promise<number> {
  const dir = teamDir(engramHome(ctx.facts));
  const vault = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
  const mine = proposals(dir).filter((p) => p.vaultRoot === vault.realPath);
  const unsettled = conflicts(dir);
  if (ctx.global.json) {
    ctx.stdout(JSON.stringify({ proposals: mine, conflicts: unsettled }, null, 2));
    return 0;
  }
  if (!mine.length && !unsettled.length) ctx.stdout('Nothing waits for you.');
  for (const p of mine) ctx.stdout(`proposed: ${p.path}${p.why ? `: ${p.why}` : ''} (by ${p.by}, ${p.at.slice(0, 16).replace('T', ' ')}); engram team approve "${p.path}" or dismiss it`);
  for (const c of unsettled) ctx.stdout(`conflict: ${c.path} was not sent: ${c.author} shares "${c.title}" (team note ${c.id}); rename yours and promote it again, or ask them (engram team copy ${c.id} shows theirs)`);
  return 0;
}

async function approve(ctx: CommandContext): Promise<number> {
  const s = settingsOrFail(ctx);
  const dir = teamDir(engramHome(ctx.facts));
  const vault = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
  const ref = ctx.args.slice(1).join(' ').trim();
  const mine = proposals(dir).filter((p) => p.vaultRoot === vault.realPath);
  const chosen = ref ? mine.filter((p) => p.path === ref) : [];
  if (!chosen.length) throw new EngramError('not-found', ref ? `no proposal for ${ref} in this vault` : 'which proposal? engram team approve <vault path> (engram team proposals lists them)');
  return promoteRef(ctx, s, chosen[0].path);
}

async function dismiss(ctx: CommandContext): Promise<number> {
  const dir = teamDir(engramHome(ctx.facts));
  const vault = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
  const ref = ctx.args.slice(1).join(' ').trim();
  if (!ref || !dropProposal(dir, vault.realPath, ref)) throw new EngramError('not-found', ref ? `no proposal for ${ref} in this vault` : 'which proposal? engram team dismiss <vault path>');
  ctx.stdout(`Dismissed: ${ref} stays in your vault only.`);
  return 0;
}

async function search(ctx: CommandContext): Promise<number> {
  const s = settingsOrFail(ctx);
  const query = ctx.args.slice(1).join(' ').trim();
  if (!query) throw new EngramError('usage', 'the query is empty: engram team search "<words>"');
  const limit = ctx.options.limit === undefined ? 10 : Math.max(1, Math.floor(Number(ctx.options.limit)));
  const store = openTeamStore(s);
  let hits: TeamHit[];
  let from: 'store' | 'cache' = 'store';
  let why: string | undefined;
  try {
    hits = await store.search({ text: query, limit });
  } catch (e) {
    // The store does not answer: the cache answers, and says so.
    const cache = readCache(teamDir(engramHome(ctx.facts)));
    if (!cache) throw e;
    hits = searchCache(cache, query, limit);
    from = 'cache';
    why = `${errorMessage(e)}; answered from the cache of ${cache.refreshedAt}`;
  } finally {
    await store.close();
  }
  if (ctx.global.json) ctx.stdout(JSON.stringify({ query, from, notice: why ?? null, hits }, null, 2));
  else {
    if (why) ctx.stdout(`note: ${why}`);
    if (!hits.length) ctx.stdout(`No team notes match "${query}".`);
    for (const l of hitLines(hits)) ctx.stdout(l);
  }
  return 0;
}

async function retract(ctx: CommandContext): Promise<number> {
  const s = settingsOrFail(ctx);
  const id = ctx.args[1];
  if (!id) throw new EngramError('usage', 'which team note? engram team retract <id> (ids are in `engram team search`)');
  const store = openTeamStore(s);
  try {
    const done = await store.retract(id, s.member);
    if (!done) throw new EngramError('not-found', `no live team note ${id} of yours (${s.member}): only its author retracts a note`);
    const cache = await refreshCache(teamDir(engramHome(ctx.facts)), s, store).catch(() => undefined);
    if (ctx.global.json) ctx.stdout(JSON.stringify({ retracted: id, cachedNotes: cache?.notes.length ?? null }, null, 2));
    else ctx.stdout(`Retracted team note ${id}: it no longer reaches anyone's recall.`);
    return 0;
  } finally {
    await store.close();
  }
}

/** A team note into the vault's inbox, from the cache (or the store when it is not cached yet). */
async function copy(ctx: CommandContext): Promise<number> {
  const s = settingsOrFail(ctx);
  const id = ctx.args[1];
  if (!id) throw new EngramError('usage', 'which team note? engram team copy <id> (ids are in `engram team search` and `engram search`)');
  let note = hostTeam(ctx.env, ctx.config).note(id);
  if (!note) {
    const store = openTeamStore(s);
    try {
      note = await store.get(id).catch(() => undefined);
    } finally {
      await store.close();
    }
  }
  if (!note || note.retractedAt) throw new EngramError('not-found', `no team note ${id} in the cache or the store`, 'find it with `engram team search`');
  const vault = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
  const written = await copyTeamNote(new NodeVault(vault.realPath), ctx.config().get('folders.inbox'), note, new Date());
  if (ctx.global.json) ctx.stdout(JSON.stringify({ copied: id, path: written }, null, 2));
  else ctx.stdout(`Copied ${note.title} (${teamLabel(note)}) to ${written}, marked outside text until you make it yours (engram_trust: user).`);
  return 0;
}

export const command: CommandDefinition = {
  usage: 'team connect <postgres-url> --team <team> [--save-password] | status | promote <note> | sync | search "<query>" [-n 10] | retract <id> | copy <id> | proposals | approve <path> | dismiss <path> [--json]',
  description: 'Share durable notes with a team through a PostgreSQL database the team runs: connect, promote a note (checked for secrets; working memory stays personal), search the team\'s notes, retract your own.',
  details: 'The password comes from ENGRAM_TEAM_PASSWORD, else the OS keychain (connect --save-password puts it there), or the URL, used once and never written to the configuration. Promotions wait in $ENGRAM_HOME/team/queue while the store is unreachable and are sent once it answers; recall reads the team notes from $ENGRAM_HOME/team/cache.json. See docs/team.md.',
  options: {
    team: { type: 'string', valueName: '<team>', description: 'connect: the team your promoted notes belong to and your recall reads' },
    'save-password': { type: 'boolean', description: 'connect: keep the password that worked in the OS keychain (macOS Keychain, Linux Secret Service), where Engram reads it' },
    limit: { type: 'number', short: 'n', valueName: '<count>', description: 'search: how many results (default 10)' },
  },
  async run(ctx) {
    const sub = ctx.args[0] as (typeof SUBCOMMANDS)[number] | undefined;
    if (sub === 'connect') return connect(ctx);
    if (sub === 'status') return status(ctx);
    if (sub === 'promote') return promote(ctx);
    if (sub === 'sync') return send(ctx, settingsOrFail(ctx), teamDir(engramHome(ctx.facts)));
    if (sub === 'search') return search(ctx);
    if (sub === 'retract') return retract(ctx);
    if (sub === 'copy') return copy(ctx);
    if (sub === 'proposals') return listProposals(ctx);
    if (sub === 'approve') return approve(ctx);
    if (sub === 'dismiss') return dismiss(ctx);
    throw new EngramError('usage', sub ? `unknown team command "${sub}": one of ${SUBCOMMANDS.join(', ')}` : `which? one of ${SUBCOMMANDS.join(', ')}`, 'engram team --help');
  },
};
