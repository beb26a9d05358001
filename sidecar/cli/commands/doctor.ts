// `engram doctor`: one line per check, each problem with its fix. Exit 1 when any check fails.
import type { CommandDefinition } from '../types.js';
import { runChecks, runFixes, type CheckResult } from '../../doctor/checks.js';

const mark = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;

/** The line `engram doctor` prints for one check. */
export function checkLine(r: CheckResult): string {
  return `${mark[r.status]}  ${r.name}: ${r.detail}${r.fix ? `  -> fix: ${r.fix}` : ''}`;
}

export const command: CommandDefinition = {
  usage: 'doctor [--fix] [--vault <path>] [--json]',
  description: 'Check Node, the vault, the state folder, the socket, the host, the LLM backend, the embedding model, the hook registration and the plugin\'s ENGRAM_HOME; print a fix for each problem.',
  options: {
    fix: { type: 'boolean', description: 'Repair what needs no judgement first: retry events set aside in spool/failed/, clear lost-event notices once there is room' },
  },
  async run(ctx) {
    if (ctx.options.fix) {
      const done = await runFixes({ env: ctx.env, cwd: ctx.cwd, vaultOption: ctx.global.vault, nodeVersion: process.version, configFile: ctx.configFile });
      for (const d of done) (ctx.global.json ? ctx.stderr : ctx.stdout)(`fixed: ${d}`);
      if (!done.length) (ctx.global.json ? ctx.stderr : ctx.stdout)('fixed: nothing to repair');
    }
    const results = await runChecks({ env: ctx.env, cwd: ctx.cwd, vaultOption: ctx.global.vault, nodeVersion: process.version, configFile: ctx.configFile });
    if (ctx.global.json) ctx.stdout(JSON.stringify(results, null, 2));
    else for (const r of results) ctx.stdout(checkLine(r));
    return results.some((r) => r.status === 'fail') ? 1 : 0;
  },
};
