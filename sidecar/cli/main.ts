// Entry point of the `engram` bundle. `engram hook …` goes to the single-file hook bundle (dist/engram-hook.mjs)
// when it is there: hooks are on every prompt's critical path and must not load the CLI's chunks. So does the daemon
// a hook starts (dist/engram-host.mjs): the hook waits for its first answer.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const hookBundle = new URL('./engram-hook.mjs', import.meta.url);
// The daemon a client starts (start-host.ts: `serve --vault <path>` with ENGRAM_DAEMON) as one file (host-main.ts).
const hostBundle = new URL('./engram-host.mjs', import.meta.url);

// A reader that stops early (`engram search x | head -1`) closes the pipe: what is still to print is dropped, with no
// stack trace, and the command runs to its end (an apply under way completes), exiting with its own status. Any
// other write error (a full disk under `> file`) is said on stderr, and the exit status is 1.
let outputError: NodeJS.ErrnoException | undefined;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') outputError ??= e;
  });
}

async function start(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  // Engram's own nested LLM calls run with ENGRAM_NESTED: their hooks do nothing, at once.
  if (command === 'hook' && process.env.ENGRAM_NESTED) return 0;
  // `engram hook --help` is for a person (the CLI's help); `engram hook <Event>` is for Claude Code.
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  if (command === 'hook' && !wantsHelp && fs.existsSync(fileURLToPath(hookBundle))) {
    await import(hookBundle.href);
    return (process.exitCode as number | undefined) ?? 0;
  }
  if (command === 'serve' && process.env.ENGRAM_DAEMON && rest.length === 2 && rest[0] === '--vault' && fs.existsSync(fileURLToPath(hostBundle))) {
    await import(hostBundle.href);
    return (process.exitCode as number | undefined) ?? 0;
  }
  const { main } = await import('./app.js');
  return main(process.argv.slice(2));
}

function finish(code: number): void {
  if (outputError && process.argv[2] !== 'hook') {
    if (process.stderr.writable) process.stderr.write(`engram: could not write the output: ${outputError.message}\n`);
    process.exitCode = code || 1;
  } else process.exitCode = code;
}

start().then(finish, (e: unknown) => {
  if (process.stderr.writable) process.stderr.write(`engram: ${e instanceof Error ? e.message : String(e)}\n`);
  finish(process.argv[2] === 'hook' ? 0 : 1);
});
