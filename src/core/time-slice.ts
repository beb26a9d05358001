// Long work on the host's event loop in slices of time: inside Obsidian no task may pass 50 ms (issue 14), and a
// count of notes is no measure of time (one Excalidraw note costs as much as a hundred short ones).
import type { Clock, Yield } from './ports.js';

/** Work between two yields: well under the 50 ms a task may take, with room for a slow machine's one odd step. */
export const SLICE_MS = 10;

/**
 * When the host last had a turn, per host (its yield and clock): one piece of work ending and the next beginning run
 * in the same task (the index's sync, then the engine's pass), so their slicers must share the time since the turn.
 */
const lastTurn = new WeakMap<Yield, WeakMap<Clock, { at: number }>>();

export class TimeSlicer {
  private readonly turn: { at: number };

  constructor(
    private readonly clock: Clock,
    private readonly yieldNow: Yield,
    private readonly sliceMs = SLICE_MS,
  ) {
    let byClock = lastTurn.get(yieldNow);
    if (!byClock) lastTurn.set(yieldNow, (byClock = new WeakMap()));
    let turn = byClock.get(clock);
    if (!turn) byClock.set(clock, (turn = { at: clock.now() }));
    this.turn = turn;
  }

  /** True once a slice of work has run since the host's last turn. */
  due(): boolean {
    return this.clock.now() - this.turn.at >= this.sliceMs;
  }

  /** Gives the host's event loop a turn now; the next slice starts when it returns. */
  async yield(): Promise<void> {
    await this.yieldNow();
    this.turn.at = this.clock.now();
  }

  /** Yields only when a slice has run. */
  async pause(): Promise<void> {
    if (this.due()) await this.yield();
  }

  /** Runs a step generator to its end, yielding between steps whenever a slice has run. */
  async run<T>(steps: Generator<void, T>): Promise<T> {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      await this.pause();
    }
  }
}
