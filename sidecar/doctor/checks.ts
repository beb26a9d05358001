// `engram doctor`'s checks: each says what it found and, when something is wrong, the one thing to do about it.
import fs from 'node:fs';
import path from 'node:path';
import { HostConnection, RpcError, isNoHost } from '../hosting/connection.js';
import { engramHome, logsDir, shimPath, tokenPath, vaultState } from '../hosting/paths.js';
import { appendLog } from '../hosting/log.js';
import { LOST_PREFIX, listLostEvents, lossCause } from '../hosting/spool-writer.js';
import { startHostDetached } from '../hosting/start-host.js';
import { listSetAside, retrySetAside } from '../hosting/spool.js';
import { resolveVault } from '../hosting/settings.js';
import type { LoadedConfig } from '../hosting/config-file.js';
import { hungHost } from '../hosting/hung-host.js';
import { foldersFromConfig } from '../../src/core/note/route.js';
import { lockIsLive, readLock } from '../hosting/election.js';
import { thisDevice } from '../hosting/device.js';
import { describeUnseen, leaseStatus, unseenDevices } from '../hosting/vault-lease.js';
import { vaultConflicts } from '../hosting/conflict-copies.js';
import { inNpxCache, targets } from '../install/installer.js';
import { readRecord, shimTarget } from '../hosting/install-facts.js';
import { claudeDir } from '../hosting/paths.js';
import { claudePlugin } from '../install/claude-plugin.js';
import { claudeCodeVersion, MIN_CLAUDE_CODE, versionAtLeast } from '../install/claude-version.js';
import { hasOurHooks } from '../install/registration.js';
import { codexHooksReport, codexTrustAdvice } from '../install/codex-trust.js';
import { PLUGIN_FILES, pluginDir, pluginState } from '../install/obsidian-plugin.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

export interface DoctorContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  vaultOption?: string;
  nodeVersion: string;
  /** config.json as it is now, from the command's entry (throws when it is broken with no last good copy). */
  configFile: () => LoadedConfig;
}

type Check = (c: DoctorContext) => Promise<Omit<CheckResult, 'name'>> | Omit<CheckResult, 'name'>;

const MIN_NODE = [20, 19];

function vaultOf(c: DoctorContext): string | undefined {
  try {
    return resolveVault({ vault: c.vaultOption, cwd: c.cwd, env: c.env, config: () => c.configFile().config })?.vault;
  } catch {
    return undefined;
  }
}

export const CHECKS: [string, Check][] = [
  ['node', (c) => {
    const [maj, min] = c.nodeVersion.replace(/^v/, '').split('.').map(Number);
    const ok = maj > MIN_NODE[0] || (maj === MIN_NODE[0] && min >= MIN_NODE[1]);
    return ok ? { status: 'ok', detail: `Node ${c.nodeVersion}` } : { status: 'fail', detail: `Node ${c.nodeVersion} is too old`, fix: 'install Node 20.19 or newer, then run `engram install` again (the shim records which Node to use)' };
  }],
  ['vault', (c) => {
    let v: string | undefined;
    try {
      v = resolveVault({ vault: c.vaultOption, cwd: c.cwd, env: c.env, config: () => c.configFile().config })?.vault;
    } catch (e) {
      return { status: 'fail', detail: (e as Error).message, fix: 'fix the file named above, or run `engram setup`' };
    }
    if (!v) return { status: 'fail', detail: 'no vault configured', fix: 'run `engram setup` or `engram configure vault_path <path>`' };
    if (!fs.existsSync(v) || !fs.statSync(v).isDirectory()) return { status: 'fail', detail: `vault path does not exist: ${v}`, fix: 'run `engram configure vault_path <path>` with the vault\'s folder' };
    return { status: 'ok', detail: v };
  }],
  ['state directory', (c) => {
    const home = engramHome(c.env);
    try {
      fs.mkdirSync(home, { recursive: true, mode: 0o700 });
      fs.accessSync(home, fs.constants.W_OK);
    } catch {
      return { status: 'fail', detail: `${home} is not writable`, fix: `make ${home} writable by you, or point ENGRAM_HOME elsewhere` };
    }
    const token = tokenPath(c.env);
    if (fs.existsSync(token) && process.platform !== 'win32' && (fs.statSync(token).mode & 0o077) !== 0) {
      return { status: 'fail', detail: `${token} is readable by others`, fix: `chmod 600 ${token}` };
    }
    return { status: 'ok', detail: home };
  }],
  ['configuration', (c) => {
    let loaded: LoadedConfig;
    try {
      loaded = c.configFile();
    } catch (e) {
      const hint = (e as { hint?: string }).hint;
      return { status: 'fail', detail: `${(e as Error).message}; no host can start with it`, fix: hint ?? 'fix the file named above' };
    }
    if (loaded.broken) return { status: 'warn', detail: loaded.broken, fix: `fix ${loaded.file} at the line named; until then Engram runs on the last good configuration` };
    if (loaded.config.problems.length) return { status: 'warn', detail: loaded.config.problems.join('; '), fix: '`engram configure <key> <value>` checks a value as it saves it' };
    return { status: 'ok', detail: loaded.data ? `${loaded.file} read, every key valid` : `${loaded.file} absent: the defaults apply` };
  }],
  ['socket', (c) => {
    const v = vaultOf(c);
    if (!v) return { status: 'warn', detail: 'no vault, so no socket' };
    const sock = vaultState(v, c.env).socket;
    if (process.platform === 'win32') return { status: 'ok', detail: sock };
    const dir = path.dirname(sock);
    if (!fs.existsSync(dir)) return { status: 'ok', detail: `${sock} (folder created when a host starts)` };
    const st = fs.statSync(dir);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return { status: 'fail', detail: `${dir} belongs to another user`, fix: `remove ${dir} (or set XDG_RUNTIME_DIR to a folder of yours)` };
    if ((st.mode & 0o077) !== 0) return { status: 'fail', detail: `${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)})`, fix: `chmod 700 ${dir}` };
    return { status: 'ok', detail: sock };
  }],
  ['host', async (c) => {
    const v = vaultOf(c);
    if (!v) return { status: 'warn', detail: 'no vault, so no host' };
    const state = vaultState(v, c.env);
    const lock = readLock(state.lock);
    try {
      const conn = await HostConnection.open({ socket: state.socket, env: c.env, deadline: Date.now() + 2000, client: 'doctor' });
      conn.close();
      return { status: 'ok', detail: `${conn.hello.host} pid ${conn.hello.pid} answers` };
    } catch (e) {
      if (e instanceof RpcError) return { status: 'fail', detail: `the host refused us: ${e.message}`, fix: 'run `engram serve --stop`, then any command starts a fresh host' };
      const hung = hungHost(state);
      if (hung) return { status: 'fail', detail: `the host ${hung.why}`, fix: hung.replaceable ? `nothing to do: the next hook replaces it (or \`kill -CONT ${hung.owner.pid}\` resumes it)` : 'resume or restart Obsidian' };
      if (lock && lockIsLive(lock)) return { status: 'fail', detail: `pid ${lock.pid} holds host.lock but does not answer on ${state.socket}`, fix: `stop it (kill ${lock.pid}); the next hook starts a new host` };
      if (isNoHost(e)) return { status: 'ok', detail: 'not running (starts on demand with the next hook or `engram serve`)' };
      return { status: 'fail', detail: (e as Error).message, fix: 'run `engram serve --foreground` to see the error' };
    }
  }],
  ['lease', (c) => {
    const v = vaultOf(c);
    if (!v) return { status: 'warn', detail: 'no vault, so no lease' };
    const vault = vaultState(v, c.env).vault;
    const device = thisDevice(engramHome(c.env));
    const l = leaseStatus(vault, device);
    const unseen = describeUnseen(unseenDevices(vault, device, foldersFromConfig(c.configFile().config).log));
    if (unseen) return { status: 'warn', detail: `${l.text}; but ${unseen}`, fix: "run Engram's host on one machine at a time (`engram serve --stop` on the other, and close Obsidian there or turn the Engram plugin off), or sync the vault with a tool that carries dot folders (Syncthing, Dropbox, iCloud Drive, git)" };
    if (l.held === 'elsewhere') return { status: 'warn', detail: l.text, fix: `hooks here spool their events until then; to host here, stop Engram's host on ${l.lease!.device} (engram serve --stop)` };
    return { status: 'ok', detail: l.text };
  }],
  ['sync conflicts', async (c) => {
    const v = vaultOf(c);
    if (!v) return { status: 'warn', detail: 'no vault, so no sync conflicts' };
    const found = await vaultConflicts(vaultState(v, c.env).vault);
    if (!found.length) return { status: 'ok', detail: 'no conflict copies in the vault' };
    const shown = found.slice(0, 3).map((f) => `${f.path} (a copy of ${f.original}, by ${f.tool})`).join('; ');
    return { status: 'warn', detail: `${found.length} conflict cop${found.length === 1 ? 'y' : 'ies'} left by a sync tool, kept out of recall: ${shown}${found.length > 3 ? '; …' : ''}`, fix: '`engram review` (or the review pane) shows each with what differs and keeps mine, keeps theirs or merges both' };
  }],
  ['backend', async (c) => {
    const { diagnoseBackend } = await import('../hosting/backends.js');
    return diagnoseBackend(c.configFile().config, c.env);
  }],
  ['embedding model', async (c) => {
    const { config } = c.configFile();
    const { configuredModel } = await import('../hosting/embedder.js');
    const loc = configuredModel(config, engramHome(c.env));
    const pull = loc.multilingual ? 'engram model pull --multilingual' : 'engram model pull';
    const pathKey = loc.multilingual ? 'embedding.multilingual_model_path' : 'embedding.model_path';
    if (!loc.dir) return { status: 'warn', detail: `${loc.id} not downloaded: search uses BM25 only`, fix: `run \`${pull}\` once (the only network use), or set ${pathKey} to a local model folder` };
    if (!fs.existsSync(path.join(loc.dir, 'config.json'))) return { status: 'fail', detail: `no model in ${loc.dir}`, fix: `fix ${pathKey} or run \`${pull}\`` };
    const other = loc.multilingual ? '' : ` (a multilingual model for other languages: \`engram model pull --multilingual\` or embedding.multilingual_model_path)`;
    return { status: 'ok', detail: `${loc.id} (${loc.source}) serves ${loc.serves}${other}` };
  }],
  ['hooks', (c) => {
    const file = path.join(claudeDir(c.env), 'settings.json');
    let settings: Record<string, unknown> = {};
    try {
      settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // absent or invalid: no hooks
    }
    const have = hasOurHooks(settings);
    const plugin = claudePlugin(c.env, c.cwd);
    if (plugin?.enabled) {
      if (have.length) return { status: 'fail', detail: `registered twice: by the Claude Code plugin ${plugin.id} and by \`engram install\` in ${file} (every hook runs twice)`, fix: `keep one: \`engram uninstall\` (keeps the plugin), or \`claude plugin uninstall ${plugin.id}\` (keeps \`engram install\`)` };
      return { status: 'ok', detail: `5/5 hooks from the Claude Code plugin ${plugin.id}${plugin.version ? ` ${plugin.version}` : ''}` };
    }
    if (have.length < 5) return { status: 'fail', detail: `${have.length}/5 hooks registered in ${file}`, fix: 'run `engram install` (or install the Claude Code plugin)' };
    const shim = shimPath(c.env);
    if (!fs.existsSync(shim)) return { status: 'fail', detail: `hooks point at ${shim}, which is missing`, fix: 'run `engram install` again' };
    const target = shimTarget(fs.readFileSync(shim, 'utf8'));
    if (target && !fs.existsSync(target)) return { status: 'fail', detail: `the shim runs ${target}, which is gone (checkout moved?)`, fix: 'run `engram install` from the new location' };
    if (target && inNpxCache(target)) return { status: 'fail', detail: `the shim runs ${target}, inside npm's npx cache, which npm cleans`, fix: 'run `npx engram setup` inside a checkout (after `npm ci && npm run build`)' };
    return { status: 'ok', detail: `5/5 hooks in ${file}` };
  }],
  ['mcp server', (c) => mcpRegistrations(c)],
  ['codex hooks', (c) => {
    const report = codexHooksReport(c.env);
    if (!report.hooks.length) return { status: 'ok', detail: `none in ${report.hooksFile} (\`engram install --agent codex\` adds them; Codex sessions are captured from their rollouts either way)` };
    const advice = codexTrustAdvice(report);
    return advice ? { status: 'warn', ...advice } : { status: 'ok', detail: `Codex runs all ${report.hooks.length} of Engram's hooks in ${report.hooksFile} (trusted)` };
  }],
  ['obsidian plugin', (c) => {
    const v = vaultOf(c);
    if (!v) return { status: 'warn', detail: 'no vault' };
    const p = pluginState(v);
    if (p.missing.length === PLUGIN_FILES.length) return { status: 'warn', detail: `not installed in ${v} (Engram works without it, while Obsidian is closed)`, fix: 'run `engram setup` (it offers to install it), or see docs/install.md, "The Obsidian plugin"' };
    if (p.missing.length) return { status: 'fail', detail: `incomplete in ${pluginDir(v)}: no ${p.missing.join(', ')}`, fix: 'run `engram setup --yes` to install it again' };
    if (p.enabled === 'invalid list') return { status: 'fail', detail: `${path.join(v, '.obsidian', 'community-plugins.json')} is not valid JSON, so Obsidian turns on no community plugin`, fix: 'fix the file by hand (a JSON array of plugin ids)' };
    if (!p.enabled) return { status: 'warn', detail: `installed${p.version ? ` (${p.version})` : ''} but turned off in ${v}`, fix: 'turn Engram on in Obsidian: Settings → Community plugins' };
    return { status: 'ok', detail: `${p.version ?? 'installed'}, turned on in ${v}` };
  }],
  ['plugin ENGRAM_HOME', (c) => {
    const v = vaultOf(c);
    if (!v) return { status: 'warn', detail: 'no vault' };
    const data = path.join(v, '.obsidian', 'plugins', 'engram', 'data.json');
    let pluginHome: string | undefined;
    try {
      pluginHome = (JSON.parse(fs.readFileSync(data, 'utf8')) as { engramHome?: string }).engramHome || undefined;
    } catch {
      return { status: 'ok', detail: 'the Obsidian plugin has not stored one (not installed or not run yet)' };
    }
    const mine = engramHome(c.env);
    if (pluginHome && path.resolve(pluginHome) !== path.resolve(mine)) {
      return { status: 'fail', detail: `the Obsidian plugin uses ${pluginHome}, this CLI ${mine}`, fix: `export ENGRAM_HOME=${pluginHome} (or change it in the plugin's settings)` };
    }
    return { status: 'ok', detail: `agrees (${mine})` };
  }],
  ['set-aside events', (c) => {
    const v = vaultOf(c);
    if (!v) return { status: 'warn', detail: 'no vault' };
    const state = vaultState(v, c.env);
    const aside = listSetAside(state);
    if (!aside.length) return { status: 'ok', detail: 'none in spool/failed/' };
    const byKind = new Map<string, { n: number; fix: string; where?: string }>();
    for (const a of aside) {
      const cause = a.record?.cause ?? { kind: 'error' as const, message: 'unknown', fix: 'see the host log in $ENGRAM_HOME/logs/' };
      const k = `${cause.kind}${cause.where ? ` (${cause.where})` : ''}`;
      const e = byKind.get(k) ?? { n: 0, fix: cause.fix, where: cause.where };
      e.n++;
      byKind.set(k, e);
    }
    const detail = `${aside.length} hook event${aside.length === 1 ? '' : 's'} set aside in ${path.join(state.spool, 'failed')} after repeated failures: ${[...byKind].map(([k, e]) => `${e.n} ${k}`).join(', ')}`;
    return { status: 'fail', detail, fix: [...new Set([...byKind.values()].map((e) => e.fix))].join('; and ') };
  }],
  ['lost hook events', (c) => {
    const v = vaultOf(c);
    const dirs = [...(v ? [vaultState(v, c.env).dir] : []), logsDir(c.env), engramHome(c.env)];
    const lost = listLostEvents(dirs);
    if (!lost.length) return { status: 'ok', detail: 'none' };
    const last = lost[lost.length - 1];
    return {
      status: 'fail',
      detail: `${lost.length} hook event${lost.length === 1 ? ' was' : 's were'} lost, not spooled (last ${last.at}, ${last.event}): ${lossCause(last.code)}`,
      fix: `free space on the disk holding ${engramHome(c.env)} (\`df -h ${engramHome(c.env)}\`); each session's next Stop catches up its transcript; \`engram doctor --fix\` clears this notice once there is room`,
    };
  }],
  ['state files', (c) => {
    const v = vaultOf(c);
    if (!v) return { status: 'warn', detail: 'no vault' };
    const dir = vaultState(v, c.env).dir;
    const damaged: string[] = [];
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith(LOST_PREFIX));
    } catch {
      return { status: 'ok', detail: 'none yet' };
    }
    for (const n of names) {
      const file = path.join(dir, n);
      try {
        JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        damaged.push(file);
      }
    }
    if (!damaged.length) return { status: 'ok', detail: `${names.length} readable in ${dir}` };
    return {
      status: 'fail',
      detail: `damaged (not valid JSON): ${damaged.join(', ')}`,
      fix: `move ${damaged.length === 1 ? 'it' : 'each'} aside (${damaged.map((f) => `\`mv '${f}' '${f}.damaged'\``).join(', ')}); Engram starts it afresh (notes already written stay; dedup skips what was extracted before); then \`engram doctor --fix\` retries any set-aside events`,
    };
  }],
  ['curation applies', (c) => interruptedApplies(engramHome(c.env))],
  ['claude code', (c) => {
    const found = claudeCodeVersion(c.env);
    if (!found) return { status: 'warn', detail: `no \`claude\` on PATH to check (Engram's hooks need Claude Code ${MIN_CLAUDE_CODE} or newer)` };
    if (!found.version) return { status: 'warn', detail: `${found.bin} did not say its version (Engram's hooks need ${MIN_CLAUDE_CODE} or newer)` };
    if (!versionAtLeast(found.version, MIN_CLAUDE_CODE)) return { status: 'fail', detail: `Claude Code ${found.version} is older than ${MIN_CLAUDE_CODE}, which Engram's hooks need (exec-form plugin hooks, hook context)`, fix: 'run `claude update`' };
    return { status: 'ok', detail: `Claude Code ${found.version} (${MIN_CLAUDE_CODE} or newer needed)` };
  }],
];

/** Proposals whose apply was interrupted (a crash left the journal): each is finished or rolled back by applying it again. */
function interruptedApplies(home: string): Omit<CheckResult, 'name'> {
  const found: Array<{ id: string; family: string; title: string; startedAt: number; file: string }> = [];
  const vaults = path.join(home, 'vaults');
  const keys = fs.existsSync(vaults) ? fs.readdirSync(vaults) : [];
  for (const key of keys) {
    const dir = path.join(vaults, key, 'proposals');
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir)) {
      if (!f.endsWith('.json')) continue;
      try {
        const p = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { id?: string; family?: string; title?: string; applying?: { startedAt?: number } };
        if (p.applying && typeof p.id === 'string') found.push({ id: p.id, family: p.family ?? 'restructure', title: p.title ?? '', startedAt: Number(p.applying.startedAt), file: path.join(dir, f) });
      } catch {
        // A damaged proposal is reported when it is applied by id.
      }
    }
  }
  if (found.length === 0) return { status: 'ok', detail: 'no interrupted apply' };
  const cmd = (x: (typeof found)[number]) => `engram ${x.family === 'review' ? 'review' : 'restructure'} --apply ${x.id}`;
  const detail = found.map((x) => `proposal ${x.id} (${x.title}) was interrupted while being applied at ${Number.isFinite(x.startedAt) ? new Date(x.startedAt).toISOString() : 'an unknown time'}; the vault may be half-changed`).join('; ');
  return { status: 'fail', detail, fix: `run ${found.map(cmd).map((s) => `\`${s}\``).join(', then ')}: it finishes the change, or rolls it back if notes changed since` };
}

export async function runChecks(c: DoctorContext): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const [name, check] of CHECKS) {
    try {
      out.push({ name, ...(await check(c)) });
    } catch (e) {
      out.push({ name, status: 'fail', detail: `check failed: ${(e as Error).message}` });
    }
  }
  return out;
}

/**
 * `engram doctor --fix`: what can be repaired without a person's judgement. Set-aside events go back to the spool
 * (and a host is asked to take them); lost-event notices are cleared once $ENGRAM_HOME has room again.
 */
export async function runFixes(c: DoctorContext): Promise<string[]> {
  const done: string[] = [];
  const v = vaultOf(c);
  if (v) {
    const state = vaultState(v, c.env);
    const n = retrySetAside(state, { force: true });
    if (n) {
      done.push(`put ${n} set-aside event${n === 1 ? '' : 's'} back in the spool`);
      try {
        const conn = await HostConnection.open({ socket: state.socket, env: c.env, deadline: Date.now() + 2000, client: 'doctor' });
        await conn.send('spool.notify', {});
        conn.close();
        done.push('the host is retrying them');
      } catch {
        const pid = startHostDetached(state.vault, c.env);
        done.push(pid ? `started a host (pid ${pid}) to retry them` : 'a host is starting and will retry them');
      }
    }
  }
  const lost = listLostEvents([...(v ? [vaultState(v, c.env).dir] : []), logsDir(c.env), engramHome(c.env)]);
  if (lost.length) {
    const logged = appendLog('hook.log', `doctor --fix: ${lost.length} lost hook events acknowledged: ${lost.map((l) => `${l.at} ${l.event} ${l.code}${l.sessionId ? ` session ${l.sessionId}` : ''}`).join('; ')}`, c.env);
    if (logged) {
      for (const l of lost) fs.rmSync(l.file, { force: true });
      done.push(`cleared ${lost.length} lost-event notice${lost.length === 1 ? '' : 's'} (listed in ${path.join(logsDir(c.env), 'hook.log')})`);
    } else done.push(`kept ${lost.length} lost-event notices: ${engramHome(c.env)} still has no room`);
  }
  return done;
}

/**
 * The MCP server as each client will start it: Claude Code's from the enabled plugin (with its dependencies
 * installed) or from `engram install` (the `engram` entry in ~/.claude.json), Codex's when `engram install --agent
 * codex` registered it. The hooks can be all there while the MCP entry is gone.
 */
function mcpRegistrations(c: DoctorContext): Omit<CheckResult, 'name'> {
  const found: string[] = [];
  const plugin = claudePlugin(c.env, c.cwd);
  if (plugin?.enabled) {
    if (plugin.installPath && !fs.existsSync(path.join(plugin.installPath, 'node_modules', '@modelcontextprotocol', 'sdk'))) {
      return { status: 'fail', detail: `the Claude Code plugin ${plugin.id} in ${plugin.installPath} has no dependencies installed: its MCP server and hooks cannot run`, fix: `reinstall it: \`claude plugin uninstall ${plugin.id}\`, then \`claude plugin install ${plugin.id}\`` };
    }
    found.push(`Claude Code: from the plugin ${plugin.id}`);
  } else {
    const [, claudeMcp] = targets({ scope: 'user', agent: 'claude', cwd: c.cwd, env: c.env, shim: shimPath(c.env) });
    let servers: Record<string, unknown> | undefined;
    try {
      servers = (JSON.parse(fs.readFileSync(claudeMcp.file, 'utf8')) as { mcpServers?: Record<string, unknown> }).mcpServers;
    } catch {
      // absent or invalid: not registered
    }
    if (!servers?.engram) return { status: 'fail', detail: `Claude Code: no \`engram\` MCP server in ${claudeMcp.file} (the recall, read and remember tools are missing)`, fix: 'run `engram install` (or install the Claude Code plugin)' };
    found.push(`Claude Code: in ${claudeMcp.file}`);
  }
  const [codex] = targets({ scope: 'user', agent: 'codex', cwd: c.cwd, env: c.env, shim: shimPath(c.env) });
  if (readRecord(c.env).files[codex.file]) {
    let toml = '';
    try {
      toml = fs.readFileSync(codex.file, 'utf8');
    } catch {
      // gone
    }
    if (!/^\[mcp_servers\.engram\]/m.test(toml)) return { status: 'fail', detail: `Codex: \`engram install --agent codex\` registered the MCP server in ${codex.file}, and it is gone`, fix: 'run `engram install --agent codex`' };
    found.push(`Codex: in ${codex.file}`);
  }
  return { status: 'ok', detail: found.join('; ') };
}

