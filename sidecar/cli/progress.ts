// Progress of a long run (`engram index`, `engram import`, and the steps of a request the host runs). On a terminal: one line on stderr, redrawn in place
// (carriage return + clear line), ended when the run ends or is interrupted. Elsewhere (a pipe, a CI log): a whole
// line now and then, and nothing at all for a run that ends quickly.
import type { WorkProgress } from '../../src/core/protocol/messages.js';
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

/** What a step line says: the step, and how far when the host counts it. */
function stepText(p: WorkProgress): string {
  return p.total ? `${p.step}: ${p.done ?? 0}/${p.total}` : p.step;
}

export interface StepProgress {
  /** A step the host reported (WORK_PROGRESS). */
  show(p: WorkProgress): void;
  /** The request is over. */
  done(): void;
}

/**
 * The steps of a long request the vault's host runs (`engram restructure`, `engram index --rebuild`): on a terminal one
 * line redrawn in place, with the seconds the step has lasted so far; elsewhere (a pipe, a CI log) one line on stderr
 * per step as it starts; nothing with --json off a terminal.
 */
export function stepProgress(ctx: CommandContext, now: () => number = Date.now, tickMs = 1000): StepProgress | undefined {
  if (ctx.terminal) {
    const line = terminalProgress(ctx.terminal);
    let text: string | undefined;
    let step: string | undefined;
    let since = now();
    const draw = () => text !== undefined && line.show(`${text} (${Math.round((now() - since) / 1000)} s)`);
    const ticker = setInterval(draw, tickMs);
    ticker.unref?.();
    const end = () => {
      clearInterval(ticker);
      line.end();
    };
    ctx.interrupt?.onInterrupt(end);
    return {
      show(p) {
        if (p.step !== step) since = now();
        step = p.step;
        text = stepText(p);
        draw();
      },
      done: end,
    };
  }
  if (ctx.global.json) return undefined;
  let last: string | undefined;
  return {
    show(p) {
      if (p.step === last) return;
      last = p.step;
      ctx.stderr(stepText(p));
    },
    done() {},
  };
}
