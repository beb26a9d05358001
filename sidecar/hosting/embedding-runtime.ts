// The embedding runtime (@huggingface/transformers with onnxruntime, about 450 MB for every platform) is not part of
// what a Claude Code plugin install pulls (`npm ci --workspaces=false`: the root package's runtime dependencies only;
// a checkout's `npm ci` installs it with the development workspace, tools/dev). It arrives when the user opts into a
// model: `engram model pull` installs it beside the CLI first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import devPackage from '../../tools/dev/package.json';

export const EMBEDDING_RUNTIME = '@huggingface/transformers';
type Transformers = typeof import('@huggingface/transformers');

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((e as Error).message).includes(EMBEDDING_RUNTIME);
}

/** The embedding runtime, or a clear error saying how to get it. */
export async function loadTransformers(): Promise<Transformers> {
  try {
    return await import('@huggingface/transformers');
  } catch (e) {
    if (!isMissing(e)) throw e;
    throw new EngramError('not-found', `the embedding runtime (${EMBEDDING_RUNTIME}) is not installed (this install carries only what runs without a model); \`engram model pull\` installs it`, 'run `engram model pull`, which installs it, then downloads the model');
  }
}

/** The folder holding the package.json of the install this CLI runs from (dist/ is inside it). */
export function installRoot(entry: string): string {
  let dir = path.dirname(fs.realpathSync(entry));
  for (let i = 0; i < 4; i++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  throw new EngramError('not-found', `no package.json above ${entry}`, 'run Engram from a checkout or the Claude Code plugin');
}

/** Installs the runtime beside the CLI when it is missing (says what and from where first). */
export async function ensureTransformers(entry: string, say: (line: string) => void): Promise<void> {
  try {
    await import('@huggingface/transformers');
    return;
  } catch (e) {
    if (!isMissing(e)) throw e;
  }
  const root = installRoot(entry);
  const spec = `${EMBEDDING_RUNTIME}@${devPackage.devDependencies[EMBEDDING_RUNTIME]}`;
  say(`Installing the embedding runtime ${spec} (about 450 MB) from the npm registry into ${path.join(root, 'node_modules')}`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--workspaces=false', spec], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], shell: process.platform === 'win32' });
  if (r.status !== 0) {
    throw new EngramError('io', `could not install ${spec}: ${(r.stderr || r.error?.message || '').trim().split('\n').slice(-3).join(' ')}`, `check your network, or run \`npm install --no-save ${spec}\` in ${root}`);
  }
}
