// What the host answers on its socket: each protocol method mapped onto the engine, the queue and the spool.
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import { parseSince } from '../../src/core/duration.js';
import { PROTOCOL_VERSION, type Params } from '../../src/core/protocol/index.js';
import type { StatusResult } from '../../src/core/protocol/messages.js';
import { clientSettings } from '../client/settings.js';
import { setAsideCounts, spoolDepth } from './spool.js';
import { allowedTranscript, configuredTranscriptRoots } from './transcript-roots.js';
import { setSafeKey } from './configure.js';
import { runCurationCommand } from './curate-bridge.js';
import { runHostCommand } from './host-commands.js';
import { synthesize } from './synthesis.js';
import type { Handler } from './server.js';
import type { RunningHost } from './daemon.js';

/** `read` refuses traversal and the vault's config folder (other plugins keep secrets there). */
export function checkReadRef(ref: string): void {
  const r = ref.replace(/\\/g, '/').replace(/^\[\[|\]\]$/g, '');
  if (path.isAbsolute(r) || /^[a-zA-Z]:\//.test(r)) throw new EngramError('refused', 'read takes a note title or a vault-relative path, not an absolute path');
  if (r.split('/').includes('..')) throw new EngramError('refused', 'read refuses paths that leave the vault');
  if (r.split('/')[0].startsWith('.')) throw new EngramError('refused', 'read refuses the vault\'s hidden folders (.obsidian keeps plugin secrets)');
}

export function makeHandlers(host: RunningHost, env: NodeJS.ProcessEnv): Record<string, Handler> {
  const { engine, queue } = host;
  return {
    ping: async () => ({ ok: true }),
    'spool.notify': async () => {
      if (engine.ready) host.drain();
      return { ok: true };
    },
    context: async (p) => {
      const q = p as Params<'context'>;
      const s = clientSettings(env);
      if (!s.inject || !engine.ready) return { items: [] };
      const start = q.event === 'SessionStart';
      return engine.context({
        event: q.event,
        source: q.source,
        prompt: q.prompt,
        sessionId: q.sessionId,
        project: q.project,
        maxChars: q.maxChars ?? (start ? s.session_start_max_chars : s.prompt_max_chars),
        maxItems: q.maxItems ?? (start ? 8 : s.prompt_max_items),
      });
    },
    recall: async (p) => {
      await engine.whenReady();
      const q = p as Params<'recall'>;
      const result = await engine.recall(q.query, {
        limit: q.limit ?? 8,
        types: q.types,
        projects: q.allProjects || !q.project ? undefined : [q.project],
        since: q.since === undefined ? undefined : parseSince(q.since, Date.now()),
        full: q.full,
      });
      if (q.synthesize) result.synthesis = await synthesize(q.query, result, env);
      return result;
    },
    search: async (p) => {
      await engine.whenReady();
      const { query, expandLinks, ...filters } = p as Params<'search'>;
      return engine.query(query, { ...filters, expandLinks: expandLinks as 0 | 1 | 2 | undefined });
    },
    read: async (p) => {
      const { ref } = p as Params<'read'>;
      checkReadRef(ref);
      await engine.whenReady();
      return engine.read(ref);
    },
    remember: async (p) => {
      await engine.whenReady();
      return engine.remember(p as Params<'remember'>);
    },
    forget: async (p) => {
      await engine.whenReady();
      return engine.forget((p as Params<'forget'>).ref);
    },
    extract: async (p) => {
      const q = p as Params<'extract'>;
      const file = allowedTranscript(q.path, configuredTranscriptRoots(env));
      if (!file) {
        throw new EngramError('refused', `not an agent transcript: ${q.path}`, 'extract reads only files inside ~/.claude/projects, ~/.codex/sessions or the folders in transcripts.extra_folders (`engram configure transcripts.extra_folders <absolute paths>`)');
      }
      const sessionId = q.sessionId ?? path.basename(file).replace(/\.jsonl?$/, '');
      queue.push(sessionId, { sessionId, transcriptPath: file, minBytes: 0, force: true, files: [] });
      return { queued: true, sessionId, path: file };
    },
    review: async (p) => runCurationCommand('review', host, env, (p as Params<'review'>).apply),
    restructure: async (p) => runCurationCommand('restructure', host, env, (p as Params<'restructure'>).apply),
    cli: async (p, _req, notify) => runHostCommand(host, env, p as Params<'cli'>, notify),
    reindex: async () => {
      await engine.whenReady();
      return engine.reindex();
    },
    configure: async (p) => {
      const q = p as Params<'configure'>;
      return setSafeKey(q.key, q.value, env);
    },
    status: async (): Promise<StatusResult> => ({
      vault: host.state.vault,
      host: 'daemon',
      pid: process.pid,
      protocolVersion: PROTOCOL_VERSION,
      uptimeMs: Date.now() - host.startedAt,
      idleExitMs: host.idleMs,
      queue: (() => {
        const aside = setAsideCounts(host.state);
        return { ...queue.stats(), spooled: spoolDepth(host.state), deferred: aside.deferred, failedEvents: aside.failed };
      })(),
      index: { notes: engine.noteCount(), ready: engine.ready, mode: engine.index.mode },
      lastRuns: host.coverage.runs().slice(-10),
    }),
    'host.release': async () => {
      setTimeout(() => void host.shutdown('handover requested'), 10);
      return { releasing: true };
    },
  };
}
