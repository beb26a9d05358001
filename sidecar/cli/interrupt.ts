// Ctrl-C (SIGINT) in a command: it says "interrupted" and what the interruption leaves behind, then exits 130 (128 +
// SIGINT, what shells report for a command stopped by Ctrl-C). Work that must not be cut in half (saving a snapshot)
// is shielded: it finishes first, then the command stops. A second Ctrl-C stops at once.

/** A prompt the user cancelled (Ctrl-C at readline's question): the CLI says "cancelled" and what it left. */
export class Interrupted extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Interrupted';
  }
}

export const INTERRUPTED_EXIT = 130;

export interface InterruptControl {
  /** What an interruption at this point leaves behind, e.g. "nothing changed" (computed when it happens). */
  leaves(state: string | (() => string)): void;
  /** Runs `work` to its end even when Ctrl-C comes meanwhile; then the command stops, saying `after` (given whether
   *  the work succeeded). */
  shield<T>(what: string, work: () => Promise<T>, after: string | ((ok: boolean) => string)): Promise<T>;
  /** Called first on an interruption (ending a progress line); returns its removal. */
  onInterrupt(cleanup: () => void): () => void;
}

export interface InterruptHandler extends InterruptControl {
  /** The message for a cancelled prompt (`Interrupted` thrown by the command). */
  cancelled(): string;
  dispose(): void;
}

interface SignalSource {
  on(signal: 'SIGINT', listener: () => void): unknown;
  off(signal: 'SIGINT', listener: () => void): unknown;
}

/** Handles SIGINT for the command `name` until disposed; `say` prints a line on stderr, `exit` ends the process. */
export function handleInterrupts(name: string, say: (line: string) => void, exit: (code: number) => void = (c) => process.exit(c), signals: SignalSource = process): InterruptHandler {
  let state: string | (() => string) | undefined;
  let shielded: { what: string } | undefined;
  let interrupted = false;
  const cleanups = new Set<() => void>();
  const leftText = () => {
    const s = typeof state === 'function' ? state() : state;
    return s ? `; ${s}` : '';
  };
  const onSignal = () => {
    for (const c of cleanups) c();
    if (interrupted || !shielded) {
      say(`engram ${name}: interrupted${interrupted && shielded ? ` while ${shielded.what}` : ''}${leftText()}`);
      exit(INTERRUPTED_EXIT);
      return;
    }
    interrupted = true;
    say(`engram ${name}: interrupted; finishing ${shielded.what} first (Ctrl-C again to stop at once)`);
  };
  signals.on('SIGINT', onSignal);
  return {
    leaves(s) {
      state = s;
    },
    async shield(what, work, after) {
      shielded = { what };
      let ok = false;
      try {
        const result = await work();
        ok = true;
        return result;
      } finally {
        shielded = undefined;
        if (interrupted) {
          state = typeof after === 'string' ? after : after(ok);
          say(`engram ${name}: stopped${leftText()}`);
          exit(INTERRUPTED_EXIT);
        }
      }
    },
    onInterrupt(cleanup) {
      cleanups.add(cleanup);
      return () => cleanups.delete(cleanup);
    },
    cancelled() {
      for (const c of cleanups) c();
      return `engram ${name}: cancelled${leftText()}`;
    },
    dispose() {
      signals.off('SIGINT', onSignal);
    },
  };
}
