// Progress of a long run (`engram index`, `engram import`). On a terminal: one line on stderr, redrawn in place
// (carriage return + clear line), ended when the run ends or is interrupted. Elsewhere (a pipe, a CI log): a whole
// line now and then, and nothing at all for a run that ends quickly.
import type { CommandContext, Terminal } from './types.js';

export interface ProgressLine {
  /** The current state, e.g. `indexing [####------] 120/3000 notes`. */
  show(text: string): void;
  /** The run is over: a terminal keeps the last state on its own line; elsewhere the last state is printed once
   *  when earlier states were. */
  done(): void;
}

/** `\r` + erase line + the text (cut to the terminal's width, so it never wraps), never a newline until done. */
export function terminalProgress(term: Terminal): ProgressLine & { end(): void } {
  let drawn = false;
  const end = () => {
    if (drawn) term.write('\n');
    drawn = false;
  };
  return {
    show(text) {
      const width = Math.max(10, term.columns() - 1);
      term.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      drawn = true;
    },
    done: end,
    end,
  };
}

/** A line (as `ctx.stderr` prints it) once the run has lasted `firstAfterMs`, then at most every `everyMs`. */
export function sparseProgress(line: (text: string) => void, now: () => number = Date.now, opts: { firstAfterMs?: number; everyMs?: number } = {}): ProgressLine {
  const firstAfter = opts.firstAfterMs ?? 1000;
  const every = opts.everyMs ?? 5000;
  const start = now();
  let last: number | undefined;
  let pending: string | undefined;
  return {
    show(text) {
      const t = now();
      if (t - start >= firstAfter && (last === undefined || t - last >= every)) {
        line(text);
        last = t;
        pending = undefined;
      } else pending = text;
    },
    done() {
      if (last !== undefined && pending !== undefined) line(pending);
      pending = undefined;
    },
  };
}

/**
 * The progress line for a command: redrawn in place when stderr is a terminal (an interruption ends the line first,
 * so "interrupted" starts at column 0), sparse lines otherwise, none with --json off a terminal.
 */
export function progressFor(ctx: CommandContext, now: () => number = Date.now): ProgressLine | undefined {
  if (ctx.terminal) {
    const p = terminalProgress(ctx.terminal);
    ctx.interrupt?.onInterrupt(p.end);
    return p;
  }
  return ctx.global.json ? undefined : sparseProgress(ctx.stderr, now);
}
