// review / restructure for MCP clients: the host runs the curation commands (their own process, their own
// proposals store) and returns their JSON, so agents see exactly what `engram review` would list or apply.
import { spawn } from 'node:child_process';
import { EngramError } from '../../src/core/errors.js';
import { engramEntry } from '../client/start-host.js';

export function runCurationCommand(kind: 'review' | 'restructure', vault: string, env: NodeJS.ProcessEnv, apply?: string): Promise<unknown> {
  const args = [engramEntry(), kind, '--json', '--vault', vault, ...(apply ? ['--apply', apply] : [])];
  return new Promise((resolve, reject) => {
    // ENGRAM_ACTOR: what the curation command writes as "who" in the vault's Engram log (an agent, through MCP).
    const child = spawn(process.execPath, args, { env: { ...env, ENGRAM_NESTED: '1', ENGRAM_ACTOR: 'mcp' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), 5 * 60_000);
    child.on('error', (e) => reject(e));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new EngramError('refused', err.trim().split('\n')[0] || `${kind} failed (exit ${code})`));
      try {
        resolve(JSON.parse(out));
      } catch {
        resolve({ output: out.trim() });
      }
    });
  });
}
