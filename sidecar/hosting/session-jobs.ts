// Capture's transcript port on Node (src/core/capture/session-jobs.ts holds the policy): which transcripts the host may
// read, their size, their records, and whether one is Engram's own nested call.
import fs from 'node:fs';
import type { TranscriptPort } from '../../src/core/capture/session-jobs.js';
import { countRecords } from './coverage.js';
import { allowedTranscript } from './transcript-roots.js';
import { isEngramOwnTranscript } from './transcript-files.js';

export function nodeTranscripts(roots: () => string[]): TranscriptPort {
  return {
    allowed: (p) => allowedTranscript(p, roots()) ?? undefined,
    size: (p) => fs.statSync(p).size,
    countRecords,
    // The same test the transcript listers apply: its first user message opens with Engram's prompt marker.
    isEngramOwn: isEngramOwnTranscript,
  };
}
