// The command context every entry gives a command: the CLI's (app.ts, which adds its options, terminal and interrupt
// handling) and the single-file entries' (dist/engram-hook.mjs, dist/engram-host.mjs), which run one command without
// the CLI's table of commands. With the line writer and the failure line they share.
import { EngramError, errorMessage } from '../../src/core/errors.js';
import { hostFacts } from '../hosting/facts.js';
import { loadConfig } from '../hosting/config-file.js';
import { readStdinText } from './stdin.js';
import type { CommandContext } from './types.js';

export function entryContext(args: string[], vault: string | undefined, stdout: (text: string) => void, stderr: (text: string) => void): CommandContext {
  const facts = hostFacts(process.env);
  // The entry's one reader of config.json (only entry points read it): each command reads it when it needs it.
  const configFile = () => loadConfig(facts);
  return {
    args,
    options: {},
    global: { vault, json: false },
    env: process.env,
    facts,
    configFile,
    config: () => configFile().config,
    cwd: process.cwd(),
    stdout,
    stderr,
    isTTY: Boolean(process.stdout.isTTY),
    readStdin: readStdinText,
  };
}

/** Writes a line; once the reader has gone (`| head` closed the pipe: main.ts drops the EPIPE), nothing. */
export function lineWriter(stream: NodeJS.WriteStream): (text: string) => void {
  return (t) => {
    if (!stream.writable) return;
    stream.write(t.endsWith('\n') ? t : `${t}\n`);
  };
}

/** What a command that failed says: an Engram error with its fix on the next line, anything else as unexpected. */
export function failureLine(name: string, e: unknown): string {
  return e instanceof EngramError ? `engram ${name}: ${e.message}${e.hint ? `\n  ${e.hint}` : ''}` : `engram ${name}: unexpected error: ${errorMessage(e)}`;
}
