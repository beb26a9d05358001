// Queues transcripts for the vault's host through the spool (the host is the only writer), then nudges it.
import { SPOOL_FORMAT, writeSpoolEntry } from '../hosting/spool-writer.js';
import type { VaultState } from '../hosting/paths.js';
import { HostConnection, isNoHost } from '../hosting/connection.js';
import { startHostDetached } from '../hosting/start-host.js';
import type { TranscriptFile } from './transcripts.js';

export function queueTranscripts(state: VaultState, files: TranscriptFile[], event: 'Setup' | 'Backfill', backend?: 'rules'): number {
  for (const f of files) {
    writeSpoolEntry(state.spool, {
      format: SPOOL_FORMAT,
      event,
      sessionId: f.sessionId,
      transcriptPath: f.path,
      transcriptBytes: f.bytes,
      spooledAt: new Date().toISOString(),
      payload: { session_id: f.sessionId, transcript_path: f.path, hook_event_name: event },
      backend,
    });
  }
  return files.length;
}

/** Makes sure a host runs and has seen the spool; resolves with its pid once it answers (or undefined). */
export async function ensureHost(state: VaultState, env: NodeJS.ProcessEnv, waitMs = 15_000): Promise<HostConnection | undefined> {
  const end = Date.now() + waitMs;
  let started = false;
  while (Date.now() < end) {
    try {
      return await HostConnection.open({ socket: state.socket, env, deadline: Date.now() + 1000, client: 'cli' });
    } catch (e) {
      if (!isNoHost(e)) throw e;
      if (!started) {
        startHostDetached(state.vault, env);
        started = true;
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  return undefined;
}
