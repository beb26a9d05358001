// The daemon's entry with the real pieces plugged in (index, extraction) when this build has them.
import { runHost as run, type HostOptions, type HostOutcome } from './daemon.js';
import { makeIndex, makeExtractor } from './wiring.js';

export function runHost(opts: Omit<HostOptions, 'makeIndex' | 'makeExtractor'>): Promise<HostOutcome> {
  return run({ ...opts, makeIndex, makeExtractor });
}
