// `engram hook <Event>`: Claude Code hook handler. Never fails the session: exit 0 whatever happens.
import type { CommandDefinition } from '../types.js';
import { runHook } from '../../client/hook.js';
import { appendLog } from '../../hosting/log.js';
import { readOnce } from '../../hosting/config-file.js';

export const command: CommandDefinition = {
  usage: 'hook <SessionStart|UserPromptSubmit|Stop|PreCompact|SessionEnd>',
  description: 'Handle a Claude Code hook event (JSON payload on stdin). Registered by `engram install`; always exits 0. Prints nothing but the context it injects; problems go to $ENGRAM_HOME/logs/hook.log.',
  details: [
    'Events:',
    '  SessionStart      inject the notes relevant to the project at the start of a session',
    '  UserPromptSubmit  inject the notes relevant to the prompt',
    '  Stop              spool the turn for the host (it extracts when a session ends or compacts)',
    '  PreCompact        queue the transcript before Claude Code compacts it',
    '  SessionEnd        queue the finished session for extraction',
  ].join('\n'),
  async run(ctx) {
    if (ctx.env.ENGRAM_NESTED) return 0;
    try {
      await runHook({
        event: ctx.args[0] ?? '',
        vaultOption: ctx.global.vault,
        cwd: ctx.cwd,
        env: ctx.env,
        // config.json read once for the whole hook (the vault and the injection settings): it runs on every prompt.
        config: readOnce(ctx.config),
        readStdin: ctx.readStdin,
        stdout: ctx.stdout,
      });
    } catch (e) {
      appendLog('hook.log', `${ctx.args[0] ?? '?'}: failed: ${(e as Error)?.stack ?? String(e)}`, ctx.env);
    }
    return 0;
  },
};
