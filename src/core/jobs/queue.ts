// The job queue: one worker, jobs coalesced by key (a session), so twenty hooks for one session make one extraction.
// Its retry policy: a failed job is handed back (the host retries it later), and after `giveUpAfter` failures in a row
// for one key it is given up (the host sets its events aside with the cause).

export interface Job<T> {
  key: string;
  data: T;
}

export interface QueueStats {
  pending: number;
  running: string | null;
  done: number;
  failed: number;
}

/** What the host does with a failed job: try it again later (`retry`), or set it aside for good (`giveUp`). */
export interface RetryPolicy<T> {
  /** Failures in a row, for one key, after which a job is given up (default 3). */
  giveUpAfter?: number;
  retry(job: Job<T>, error: unknown, failures: number): void;
  giveUp(job: Job<T>, error: unknown, failures: number): void;
}

export class JobQueue<T> {
  /** Failures in a row per key; a success clears its count. */
  private readonly failures = new Map<string, number>();
  private readonly pending = new Map<string, T>();
  private running: string | null = null;
  private runningData: T | null = null;
  private done = 0;
  private failed = 0;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly run: (job: Job<T>) => Promise<void>,
    /** Folds a new request into one already waiting for the same key. */
    private readonly merge: (older: T, newer: T) => T,
    private readonly policy?: RetryPolicy<T>,
  ) {}

  push(key: string, data: T): void {
    const old = this.pending.get(key);
    this.pending.set(key, old === undefined ? data : this.merge(old, data));
    this.kick();
  }

  stats(): QueueStats {
    return { pending: this.pending.size, running: this.running, done: this.done, failed: this.failed };
  }

  /** Resolves when nothing is pending or running. */
  idle(): Promise<void> {
    if (!this.running && this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking jobs; resolves once the running one (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  currentData(): T | null {
    return this.runningData;
  }

  private kick(): void {
    if (this.loop || this.stopped) return;
    this.loop = this.drain().finally(() => {
      this.loop = null;
      if (this.pending.size && !this.stopped) this.kick();
      else if (!this.running) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.pending.size) {
      const [key, data] = this.pending.entries().next().value as [string, T];
      this.pending.delete(key);
      this.running = key;
      this.runningData = data;
      try {
        await this.run({ key, data });
        this.done++;
        this.failures.delete(key);
      } catch (e) {
        this.failed++;
        const n = (this.failures.get(key) ?? 0) + 1;
        if (n >= (this.policy?.giveUpAfter ?? 3)) {
          this.failures.delete(key);
          this.policy?.giveUp({ key, data }, e, n);
        } else {
          this.failures.set(key, n);
          this.policy?.retry({ key, data }, e, n);
        }
      } finally {
        this.running = null;
        this.runningData = null;
      }
    }
  }
}
