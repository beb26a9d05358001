// Entry point of the `engram` bundle. `engram hook …` goes to the single-file hook bundle (dist/engram-hook.mjs)
// when it is there: hooks are on every prompt's critical path and must not load the CLI's chunks.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const hookBundle = new URL('./engram-hook.mjs', import.meta.url);

async function start(): Promise<number> {
  // Engram's own nested LLM calls run with ENGRAM_NESTED: their hooks do nothing, at once.
  if (process.argv[2] === 'hook' && process.env.ENGRAM_NESTED) return 0;
  if (process.argv[2] === 'hook' && fs.existsSync(fileURLToPath(hookBundle))) {
    await import(hookBundle.href);
    return (process.exitCode as number | undefined) ?? 0;
  }
  const { main } = await import('./app.js');
  return main(process.argv.slice(2));
}

start().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`engram: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = process.argv[2] === 'hook' ? 0 : 1;
  },
);
