// Long work on the host's event loop in slices of time: inside Obsidian no task may pass 50 ms (issue 14), and a
// count of notes is no measure of time (one Excalidraw note costs as much as a hundred short ones).
import type { Clock, Yield } from './ports.js';

/** Work between two yields: well under the 50 ms a task may take, with room for a slow machine's one odd step. */
export const SLICE_MS = 10;

export class TimeSlicer {
  private since: number;

  constructor(
    private readonly clock: Clock,
    private readonly yieldNow: Yield,
    private readonly sliceMs = SLICE_MS,
  ) {
    this.since = clock.now();
  }

  /** True once a slice of work has run since the last yield. */
  due(): boolean {
    return this.clock.now() - this.since >= this.sliceMs;
  }

  /** Gives the host's event loop a turn now; the next slice starts when it returns. */
  async yield(): Promise<void> {
    await this.yieldNow();
    this.since = this.clock.now();
  }

  /** Yields only when a slice has run. */
  async pause(): Promise<void> {
    if (this.due()) await this.yield();
  }
}
