// `engram setup`: the one command a new user runs. Picks the vault, writes the config, installs hooks and MCP,
// builds the index, queues old transcripts for an offline `rules` pass, installs the Obsidian plugin into the vault
// (asked first), and says what runs in the background.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline/promises';
import type { CommandContext, CommandDefinition } from '../types.js';
import { EngramError } from '../../../src/core/errors.js';
import { vaultState, type VaultState } from '../../hosting/paths.js';
import type { LoadedConfig } from '../../hosting/config-file.js';
import type { BackendCheck } from '../../hosting/backend-check.js';
import type { HostConnection } from '../../hosting/connection.js';
import type { Result } from '../../../src/core/protocol/index.js';
import { engramEntry } from '../../hosting/start-host.js';
import { saveConfigKey } from '../../hosting/config-file.js';
import { install, targets, writeShim, type ChangeReport } from '../../install/installer.js';
import { describeLink, linkOnPath } from '../../install/bin-link.js';
import { claudePlugin } from '../../install/claude-plugin.js';
import { knownVaults, obsidianHasVaultOpen } from '../../install/obsidian-vaults.js';
import { choosePlugin, pluginStep } from '../../install/obsidian-plugin.js';
import { installRoot } from '../../hosting/embedding-runtime.js';
import { estimateBacklog, listClaudeTranscripts, type BacklogEstimate, type TranscriptFile } from '../../install/transcripts.js';
import { ensureHost, queueTranscripts } from '../../install/queue-backlog.js';
import { Interrupted } from '../interrupt.js';
import { progressFor } from '../progress.js';
import { count } from '../../../src/core/plural.js';
import { vaultBases, writeBases, type BasesStep } from '../../install/obsidian-bases.js';

/**
 * One question on the terminal (on stderr with --json, which keeps stdout for the result). Setup asks before it
 * changes anything, so Ctrl-C here leaves nothing behind.
 */
async function ask(question: string, output: NodeJS.WritableStream): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output });
  try {
    // Ctrl-C at the question (readline reads it as a key): "cancelled", and what it leaves.
    return await rl.question(question).catch((e: unknown) => {
      throw (e as Error)?.name === 'AbortError' ? new Interrupted() : e;
    });
  } finally {
    rl.close();
  }
}

async function chooseVault(ctx: CommandContext, say: (line: string) => void, asker: (q: string) => Promise<string>): Promise<string> {
  if (ctx.global.vault) return path.resolve(ctx.cwd, ctx.global.vault);
  const vaults = knownVaults(ctx.env).filter((v) => v.exists);
  if (!vaults.length) {
    if (!ctx.options.yes) throw new EngramError('not-found', 'Obsidian knows no vault on this machine', 'pass the vault folder: `engram setup --vault <path>`, or --yes to start a new vault in ~/Engram');
    // A fresh machine: start a new vault that Obsidian can open later ("Open folder as vault").
    const home = ctx.env.HOME ?? ctx.env.USERPROFILE;
    if (!home) throw new EngramError('not-found', 'Obsidian knows no vault and HOME is not set', 'pass the vault folder: `engram setup --vault <path>`');
    const fresh = path.join(home, 'Engram');
    if (fs.existsSync(fresh) && !fs.statSync(fresh).isDirectory()) throw new EngramError('conflict', `${fresh} exists and is not a folder`, 'pass the vault folder: `engram setup --vault <path>`');
    const created = !fs.existsSync(fresh);
    fs.mkdirSync(fresh, { recursive: true });
    say(`Obsidian knows no vault on this machine: ${created ? 'started a new vault' : 'using the vault'} at ${fresh} (open it in Obsidian with "Open folder as vault").`);
    return fresh;
  }
  if (ctx.options.yes || vaults.length === 1) {
    if (vaults.length > 1) say(`Using the most recently opened vault: ${vaults[0].path}`);
    return vaults[0].path;
  }
  say('Obsidian knows these vaults (most recent first):');
  vaults.forEach((v, i) => say(`  ${i + 1}. ${v.path}${v.open ? ' (open)' : ''}`));
  if (!process.stdin.isTTY) throw new EngramError('usage', 'several vaults and no terminal to ask in', 'pass --vault <path>, or --yes for the most recent one');
  const answer = (await asker(`Which one? [1-${vaults.length}, Enter = 1] `)).trim();
  const n = answer ? Number(answer) : 1;
  if (!Number.isInteger(n) || n < 1 || n > vaults.length) throw new EngramError('usage', `not a choice: ${answer}`);
  return vaults[n - 1].path;
}

async function transcriptChars(file: string): Promise<number> {
  const { readTranscriptFile } = await import('../../hosting/extract-runner.js');
  const session = await readTranscriptFile(file);
  return session.turns.reduce((n, t) => n + t.text.length, 0);
}

/** Whether to write Engram's .base views: asked on a terminal, yes with --yes, never with --no-bases or without Bases. */
async function wantsBases(ctx: CommandContext, bases: 'on' | 'off' | 'absent', asker: (q: string) => Promise<string>): Promise<boolean> {
  if (bases === 'absent' || ctx.options['no-bases']) return false;
  if (ctx.options.yes) return true;
  if (!process.stdin.isTTY) return false;
  return !/^n/i.test((await asker('Obsidian has Bases: add Engram\'s views (working memory due, decisions by project, recently captured, stale) to the Engram folder? [Y/n] ')).trim());
}

/**
 * Whether the configured backend can run, said up front with the ways out. A fresh setup on a machine without the
 * Claude Code CLI: the default `claude` backend cannot run, so take the offline rules and say so (a backend the user
 * chose is never changed).
 */
async function backendStep(ctx: CommandContext, loaded: LoadedConfig, say: (line: string) => void): Promise<{ check: BackendCheck; chosen?: 'rules' }> {
  const { checkBackend, describeBackendProblem } = await import('../../hosting/backend-check.js');
  let check = checkBackend(loaded.config, ctx.env);
  let chosen: 'rules' | undefined;
  if (!check.ok && check.backend === 'claude' && loaded.config.source('backend') === 'default') {
    const { findClaude, isExecutable } = await import('../../hosting/backends.js');
    if (!isExecutable(findClaude(loaded.config.get('claude.command'), ctx.env))) {
      const chose = await saveConfigKey(ctx.facts, 'backend', 'rules');
      check = checkBackend(chose.config, ctx.env);
      chosen = 'rules';
      say(`Backend: rules (offline, no LLM), saved in ${chose.file}: the Claude Code CLI is not on PATH, so sessions are`);
      say('extracted by the offline rules (explicit #decision / remember: markers and plain corrections). Once Claude Code');
      say('is installed and logged in, `engram configure backend claude` turns the LLM pass on (or set an API key backend).');
      say('');
    }
  }
  if (!check.ok) {
    for (const line of describeBackendProblem(check)) say(line);
    say('Setup goes on (the offline rules pass needs no backend); sessions are extracted by the LLM once one of these is done.');
    say('');
  }
  return { check, ...(chosen ? { chosen } : {}) };
}

/** Step 2: the shim, and Claude Code's hooks and MCP server (unless the Engram plugin for Claude Code registers them). */
function registerClaudeCode(ctx: CommandContext, say: (line: string) => void): { shim: string; link: ReturnType<typeof linkOnPath>; claudeCode: ChangeReport[] | { plugin: string } } {
  const shim = writeShim(ctx.env, engramEntry());
  const plugin = claudePlugin(ctx.env, ctx.cwd);
  let claudeCode: ChangeReport[] | { plugin: string } = plugin?.enabled ? { plugin: plugin.id } : [];
  if (plugin?.enabled) {
    // One Engram per Claude Code: the plugin already registers both; a second registration runs every hook twice.
    say(`2. Claude Code: the Engram plugin (${plugin.id}) registers the hooks and the MCP server; not registering them again`);
  } else {
    const reports = install(targets({ scope: 'user', agent: 'claude', cwd: ctx.cwd, env: ctx.env, shim }), ctx.env, false);
    claudeCode = reports;
    say(`2. Claude Code: ${reports.map((r) => `${r.label} ${r.status}`).join(', ')} (shim ${shim})`);
  }
  const link = linkOnPath(ctx.env, shim);
  for (const line of describeLink(link)) say(`   ${line}`);
  return { shim, link, claudeCode };
}

/**
 * Step 3: the host's index, once it is ready. Indexing a large vault takes a while (10–33 s for 13,415 notes): say
 * so, redrawn in place on a terminal, a line now and then in a pipe.
 */
async function indexStep(ctx: CommandContext, conn: HostConnection, say: (line: string) => void): Promise<Result<'status'>> {
  let status = await conn.call('status', {}, Date.now() + 5000);
  const progress = progressFor(ctx);
  const began = Date.now();
  for (let i = 0; i < 600 && !status.index.ready; i++) {
    progress?.show(`3. Index: the host is indexing the vault: ${count(status.index.notes, 'note')} so far, ${Math.round((Date.now() - began) / 1000)} s`);
    await new Promise((r) => setTimeout(r, 200));
    status = await conn.call('status', {}, Date.now() + 5000);
  }
  progress?.done();
  say(`3. Index: ${count(status.index.notes, 'note')} (${status.index.mode}), kept up to date by the host (pid ${status.pid})`);
  return status;
}

/** Step 4: the existing Claude Code transcripts queued for the offline rules pass, and what an LLM pass would read. */
async function transcriptStep(ctx: CommandContext, state: VaultState, conn: HostConnection, say: (line: string) => void): Promise<{ files: TranscriptFile[]; est: BacklogEstimate }> {
  const files = await listClaudeTranscripts(ctx.env);
  queueTranscripts(state, files, 'Setup', 'rules');
  await conn.call('spool.notify', {}, Date.now() + 5000).catch(() => undefined);
  conn.close();
  const est = await estimateBacklog(files, transcriptChars);
  say(`4. Transcripts: ${files.length} existing Claude Code sessions (${(est.bytes / 1e6).toFixed(1)} MB) queued for the offline rules pass (explicit #decision, #cor, remember: markers and clear corrections).`);
  if (files.length) {
    say(`   An LLM pass over them would read about ${est.tokens.toLocaleString('en-US')} input tokens${est.sampled ? ' (estimated from a sample)' : ''}.`);
    say('   It runs only when you ask: `engram backfill --since 30d` (uses your configured backend and daily budget; it also reads the turns the rules pass has seen).');
  }
  return { files, est };
}

/** Step 6: Engram's .base views, where the vault's Obsidian has Bases (undefined where it has not). */
function viewsStep(ctx: CommandContext, vault: string, bases: 'on' | 'off' | 'absent', wantBases: boolean, loaded: LoadedConfig, say: (line: string) => void): BasesStep | undefined {
  const views = bases === 'absent' ? undefined : writeBases(vault, { inbox: loaded.config.get('folders.inbox'), working: loaded.config.get('folders.working_memory'), archive: loaded.config.get('folders.archive') }, { write: wantBases });
  if (!views) say('6. Obsidian views: this vault\'s Obsidian has no Bases core plugin (Obsidian 1.9 or later); none written.');
  else if (!wantBases) say(`6. Obsidian views: not written${ctx.options['no-bases'] ? ' (--no-bases)' : ' (no terminal to ask in: run `engram setup --yes` to add them)'}.`);
  else {
    say(`6. Obsidian views: ${views.written.length ? `wrote ${views.written.join(', ')}` : 'all there already'}${views.kept.length && views.written.length ? ` (kept ${count(views.kept.length, 'view')} already there)` : ''}.`);
    if (bases === 'off') say('   Bases is turned off in this vault: turn it on in Settings → Core plugins to open them.');
  }
  return views;
}

export const command: CommandDefinition = {
  usage: 'setup [--vault <path>] [--yes] [--no-plugin] [--no-bases] [--json]',
  description: 'Set Engram up: choose the vault (from Obsidian\'s list), write the config, register hooks and MCP with Claude Code, build the index, queue your existing Claude Code transcripts for an offline pass, and install the Obsidian plugin into the vault (asked first; it goes into <vault>/.obsidian/plugins/engram and is turned on in community-plugins.json). Needs no API key and no network.',
  options: {
    yes: { type: 'boolean', short: 'y', description: 'Ask nothing: take the only or most recently opened vault (with none, start one in ~/Engram) and install the Obsidian plugin' },
    'no-plugin': { type: 'boolean', description: 'Leave the Obsidian plugin out (without a terminal and without --yes it is left out too)' },
    'no-bases': { type: 'boolean', description: 'Leave out the .base views (working memory due, decisions by project, recently captured, stale) offered when Obsidian has the Bases core plugin' },
  },
  async run(ctx) {
    ctx.interrupt?.leaves('nothing changed');
    // With --json the prose goes to stderr and stdout carries one JSON object at the end.
    const say = ctx.global.json ? ctx.stderr : ctx.stdout;
    const asker = (q: string) => ask(q, ctx.global.json ? process.stderr : process.stdout);
    const vault = await chooseVault(ctx, say, asker);
    if (!fs.existsSync(vault) || !fs.statSync(vault).isDirectory()) throw new EngramError('not-found', `vault path does not exist: ${vault}`);
    const pluginChoice = await choosePlugin({ vault, env: ctx.env, yes: Boolean(ctx.options.yes), skip: Boolean(ctx.options['no-plugin']), interactive: Boolean(process.stdin.isTTY), ask: asker });
    // Obsidian's Bases core plugin: offer Engram's views of its notes (asked now, before anything changes).
    const bases = vaultBases(vault);
    const wantBases = await wantsBases(ctx, bases, asker);
    const facts = ctx.facts;
    // The LLM pass setup advertises needs a backend that runs: say up front when it cannot, with the ways out.
    const { loadConfig } = await import('../../hosting/config-file.js');
    const loaded = loadConfig(facts);
    const backend = await backendStep(ctx, loaded, say);
    const saved = await saveConfigKey(facts, 'vault_path', vault);
    say(`1. Vault: ${vault} (saved in ${saved.file})`);
    ctx.interrupt?.leaves(`the vault is saved in ${saved.file}; run \`engram setup\` again to finish`);

    const { shim, link, claudeCode } = registerClaudeCode(ctx, say);
    ctx.interrupt?.leaves(`the vault is saved in ${saved.file} and Claude Code's hooks and MCP server are registered; run \`engram setup\` again to finish (\`engram uninstall\` undoes it)`);

    const state = vaultState(vault, ctx.env);
    const conn = await ensureHost(state, ctx.env);
    if (!conn) throw new EngramError('timeout', 'the background host did not start', 'run `engram serve --foreground` to see why');
    const status = await indexStep(ctx, conn, say);
    const { files, est } = await transcriptStep(ctx, state, conn, say);
    const obsidianPlugin = pluginStep(pluginChoice, { vault, source: () => installRoot(engramEntry()), env: ctx.env, obsidianOpen: (v) => obsidianHasVaultOpen(ctx.env, v) });
    say(`5. Obsidian plugin: ${obsidianPlugin.lines[0]}`);
    for (const line of obsidianPlugin.lines.slice(1)) say(line);
    const views = viewsStep(ctx, vault, bases, wantBases, loaded, say);
    say('');
    say('In the background: a host process keeps the index current, drains the hook spool and extracts sessions when they');
    say('end or compact; it exits after an hour without requests and the next hook starts it again. Claude Code now');
    say('injects relevant notes at session start and on each prompt, and has the engram MCP tools (restart it to load them).');
    say('Check on it with `engram status`, look things up with `engram search "<words>"`, and `engram doctor` if anything seems off.');
    if (ctx.global.json) {
      const { install: done, status: pluginStatus, lines } = obsidianPlugin;
      ctx.stdout(JSON.stringify({
        vault,
        config: saved.file,
        backend: { name: backend.check.backend, ok: backend.check.ok, ...(backend.chosen ? { chosen: 'no Claude Code CLI on PATH' } : {}) },
        shim,
        link,
        claudeCode,
        index: { notes: status.index.notes, mode: status.index.mode, hostPid: status.pid },
        transcripts: { sessions: files.length, bytes: est.bytes, estimatedTokens: est.tokens },
        obsidianPlugin: { status: pluginStatus, ...done, message: lines.map((l) => l.trim()).join(' ') },
        bases: views ? { plugin: bases, written: wantBases ? views.written : [], kept: views.kept } : { plugin: bases, written: [], kept: [] },
      }, null, 2));
    }
    // Everything else is set up; the plugin step's problem (said above, with its fix) still fails the command.
    return obsidianPlugin.status === 'failed' ? 1 : 0;
  },
};
