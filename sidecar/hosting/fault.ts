// Fault injection for the exactly-once and crash-cleanup tests:
// `ENGRAM_FAULT=after-journal|after-note:N|before-rename[:N]|before-ledger[:N]|before-snapshot-rename[:N]`
// makes the process exit hard (SIGKILL, no cleanup) at that point, as a crash or power loss would.
// `apply-step:N` crashes a curation apply after its N-th durable step (journal, log lines, each vault change).
export type FaultPoint = 'after-journal' | 'after-note' | 'before-rename' | 'before-ledger' | 'before-snapshot-rename' | 'apply-step';

export interface Fault {
  point: FaultPoint;
  /** The n-th time the point is reached (1 = the first). */
  at: number;
}

export function parseFault(value: string | undefined): Fault | undefined {
  if (!value) return undefined;
  const m = /^(after-journal|after-note|before-rename|before-ledger|before-snapshot-rename|apply-step)(?::(\d+))?$/.exec(value.trim());
  if (!m) return undefined;
  return { point: m[1] as FaultPoint, at: m[2] ? Number(m[2]) : 1 };
}

/** The crash switch as the environment sets it (`ENGRAM_FAULT`); the one place a host reads it. */
export function faultFromEnv(env: Record<string, string | undefined>): Fault | undefined {
  return parseFault(env.ENGRAM_FAULT);
}

export function crashNow(point: string): never {
  process.stderr.write(`engram: injected fault at ${point}: exiting hard\n`);
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL does not return; this satisfies the type checker on platforms where it might.
  process.exit(137);
}

/** The crash switch as a port: a host reads it once at its start and hands it to what writes (one count per point). */
export type FaultHit = (point: FaultPoint) => void;

/** A counter per point; `hit(point)` crashes when the configured occurrence is reached. */
export function faultTrigger(fault: Fault | undefined): FaultHit {
  const counts = new Map<FaultPoint, number>();
  return (point) => {
    if (!fault || fault.point !== point) return;
    const n = (counts.get(point) ?? 0) + 1;
    counts.set(point, n);
    if (n === fault.at) crashNow(`${point}:${n}`);
  };
}
