// Finds what the embedding child runs on: a Node.js new enough for the CLI, and the engram CLI itself (the shim's
// target, or a configured dist/engram.mjs). Obsidian started from a desktop often has a thin PATH, so a few usual
// install folders are tried too. Never a shell: paths are checked and run directly.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import { shimPath } from '../../../sidecar/hosting/paths.js';
import { shimTarget } from '../../../sidecar/hosting/install-facts.js';
import { homeDir } from '../../../sidecar/hosting/facts.js';

/** The oldest Node the CLI runs on (package.json `engines`). */
export const MIN_NODE_VERSION = '20.19';

export type Found<T> = ({ ok: true } & T) | { ok: false; problem: string };

function parseVersion(text: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function compareVersions(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function recentEnough(version: string): boolean {
  const v = parseVersion(version);
  const [major, minor] = MIN_NODE_VERSION.split('.').map(Number);
  return v !== undefined && compareVersions(v, [major, minor, 0]) >= 0;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isExecutableFile(p: string): boolean {
  if (!isFile(p)) return false;
  if (process.platform === 'win32') return true;
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What `<node> --version` prints (e.g. `v22.11.0`), or undefined when it is not a working Node. */
function nodeVersion(file: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { env, timeout: 10_000, windowsHide: true, encoding: 'utf8' }, (err, stdout) => {
      resolve(err || !parseVersion(stdout) ? undefined : stdout.trim());
    });
  });
}


/** nvm's newest installed Node (nvm keeps one folder per version). */
function newestNvmBin(home: string): string | undefined {
  const root = path.join(home, '.nvm', 'versions', 'node');
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return undefined;
  }
  const versions = names.map((n) => ({ n, v: parseVersion(n) })).filter((x): x is { n: string; v: [number, number, number] } => x.v !== undefined);
  versions.sort((a, b) => compareVersions(b.v, a.v));
  return versions[0] ? path.join(root, versions[0].n, 'bin') : undefined;
}

/** PATH first (in its order), then the folders installers usually use, which a desktop-launched app may not have. */
function nodeCandidates(env: NodeJS.ProcessEnv): string[] {
  const win = process.platform === 'win32';
  const pathKey = Object.keys(env).find((k) => k.toUpperCase() === 'PATH');
  const dirs = (pathKey ? (env[pathKey] ?? '') : '').split(path.delimiter).filter(Boolean);
  const home = homeDir(env);
  if (win) {
    dirs.push(path.join(env.ProgramFiles ?? 'C:\\Program Files', 'nodejs'), env.NVM_SYMLINK ?? '', path.join(home, 'AppData', 'Local', 'Volta', 'bin'));
  } else {
    dirs.push('/usr/local/bin', '/opt/homebrew/bin', path.join(home, '.volta', 'bin'), env.NVM_BIN ?? '', path.join(home, '.nvm', 'current', 'bin'), newestNvmBin(home) ?? '', '/usr/bin');
  }
  const exe = win ? 'node.exe' : 'node';
  return [...new Set(dirs.filter((d) => d && path.isAbsolute(d)).map((d) => path.join(d, exe)))];
}

/**
 * The Node binary to run the CLI with: the one set in the plugin's settings, else the first Node 20.19+ on PATH or
 * in the usual install folders. A configured path that does not work is reported, never silently replaced.
 */
export async function findNode(settingsPath: string | undefined, env: NodeJS.ProcessEnv): Promise<Found<{ path: string; version: string }>> {
  const configured = settingsPath?.trim();
  if (configured) {
    if (!isExecutableFile(configured)) return { ok: false, problem: `No Node.js at ${configured} (the Node path in Engram's settings): correct it, or clear it to look on PATH.` };
    const version = await nodeVersion(configured, env);
    if (!version) return { ok: false, problem: `${configured} (the Node path in Engram's settings) did not answer \`--version\` like Node.js does: correct the path.` };
    if (!recentEnough(version)) return { ok: false, problem: `Node.js ${version} at ${configured} is too old: Engram needs ${MIN_NODE_VERSION} or newer.` };
    return { ok: true, path: configured, version };
  }
  let tooOld: string | undefined;
  for (const candidate of nodeCandidates(env)) {
    if (!isExecutableFile(candidate)) continue;
    const version = await nodeVersion(candidate, env);
    if (!version) continue;
    if (recentEnough(version)) return { ok: true, path: candidate, version };
    tooOld ??= `Node.js ${version} at ${candidate}`;
  }
  if (tooOld) return { ok: false, problem: `${tooOld} is too old: Engram needs ${MIN_NODE_VERSION} or newer. Install a newer Node.js, or set its path in Engram's settings.` };
  return { ok: false, problem: `Node.js was not found on PATH or in the usual install folders: install Node.js ${MIN_NODE_VERSION} or newer, or set its path in Engram's settings.` };
}

export interface CliSettings {
  /** A configured `dist/engram.mjs` (or other CLI entry); empty: the installed shim's target. */
  cliPath?: string;
  /** `$ENGRAM_HOME` to use; empty: the environment's, else `~/.engram`. */
  engramHome?: string;
}

/** The environment the CLI runs in: the plugin's `engramHome` setting, when set, is its `ENGRAM_HOME`. */
export function cliEnv(settings: CliSettings, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const home = settings.engramHome?.trim();
  return home ? { ...env, ENGRAM_HOME: home } : env;
}

/** The CLI entry file to run with Node: a configured path, else what `engram install`'s shim runs. */
export function findEngramCli(settings: CliSettings, env: NodeJS.ProcessEnv): Found<{ path: string }> {
  const configured = settings.cliPath?.trim();
  if (configured) {
    if (isFile(configured)) return { ok: true, path: configured };
    return { ok: false, problem: `The Engram CLI is not at ${configured} (the CLI path in Engram's settings): point it at dist/engram.mjs of your Engram install.` };
  }
  let shim: string;
  try {
    shim = shimPath(cliEnv(settings, env));
  } catch (e) {
    return { ok: false, problem: errorMessage(e) };
  }
  let text: string;
  try {
    text = fs.readFileSync(shim, 'utf8');
  } catch {
    return { ok: false, problem: `The Engram CLI is not installed (no ${shim}): run \`engram install\`, or set the CLI path (dist/engram.mjs) in Engram's settings.` };
  }
  const target = shimTarget(text);
  if (!target) return { ok: false, problem: `${shim} was not written by \`engram install\`: run it again, or set the CLI path (dist/engram.mjs) in Engram's settings.` };
  if (!isFile(target)) return { ok: false, problem: `The engram shim at ${shim} runs ${target}, which is missing (moved or rebuilt?): run \`engram install\` again from where Engram now lives.` };
  return { ok: true, path: target };
}
