// What the host answers on its socket: each protocol method mapped onto the engine, the queue and the spool.
import fs from 'node:fs';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import { IMPORT_PROGRESS, PROTOCOL_VERSION, WORK_PROGRESS, isMethod, type Method } from '../../src/core/protocol/index.js';
import type { WorkProgress } from '../../src/core/protocol/messages.js';
import type { BackendName } from '../../src/core/config.js';
import type { ApplyGuard } from '../../src/core/curate/service.js';
import type { IndexUpdateResult, StatusResult } from '../../src/core/protocol/messages.js';
import { dedupSearch } from './wiring.js';
import { IndexedVault } from '../../src/core/engine.js';
import { coreOperations, type Operation, type OperationTable } from '../../src/core/operations.js';
import { settingsOf } from './settings.js';
import { setAsideCounts, spoolDepth } from './spool.js';
import { allowedTranscript, configuredTranscriptRoots } from './transcript-roots.js';
import { setSafeKey } from './configure.js';
import { extractTranscript, type ExtractContext } from './extract-runner.js';
import { hostFacts } from './facts.js';
import { importExport } from './import-runner.js';
import { synthesize } from './synthesis.js';
import type { Handler, Handlers } from './server.js';
import type { RunningHost } from './running-host.js';
import { prepareTeamNote } from '../../src/core/team/store.js';
import { engramHome } from './paths.js';
import { hostTeam, propose, proposals, teamDir, teamSettings } from './team/team-service.js';

let seq = 0;
/**
 * An explicit `engram extract` or `engram import` is a job like the hooks' ones: it waits its turn behind (never
 * beside) them, and what it wrote is in the index before the answer goes out.
 */
function viaQueue<T>(host: RunningHost, kind: string, task: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const id = `cli-${kind}:${++seq}`;
    const run = async () => {
      let outcome: { ok: true; value: T } | { ok: false; error: unknown };
      try {
        outcome = { ok: true, value: await task() };
      } catch (e) {
        outcome = { ok: false, error: e };
      }
      // The answer goes out only once what the task wrote is in the index.
      await host.engine.reconcile();
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    };
    host.capture.runInTurn(id, run);
  });
}

/** A foreground extraction in this host: its vault, and dedup through the live index. */
function extractBase(host: RunningHost, env: NodeJS.ProcessEnv, q: { backend?: BackendName; dryRun?: boolean }): ExtractContext {
  return { facts: hostFacts(env), config: host.config(), vaultRoot: host.state.vault, vaultKey: host.state.key, vault: host.vault, backend: q.backend, dryRun: q.dryRun, mode: 'foreground', search: dedupSearch(host.engine), fault: host.fault };
}

/** `engram index` for a live host: bring its index up to date (or rebuild it) and save the snapshot. */
async function updateIndex(host: RunningHost, rebuild: boolean, step: (p: WorkProgress) => void = () => {}): Promise<IndexUpdateResult> {
  const { engine, state } = host;
  if (!engine.ready) step({ step: 'waiting for the host to finish reading the vault' });
  await engine.whenReady();
  const started = Date.now();
  // Without its snapshot, the index reads every note again; the fresh snapshot is saved right after.
  // The CLI's own host that built its index from nothing for this command has nothing to rebuild.
  const index = engine.index;
  const builtAfresh = host.kind === 'cli' && index instanceof IndexedVault && index.opened?.loaded === false;
  if (rebuild && !builtAfresh) {
    step({ step: `rebuilding the index: reading every note (${engine.noteCount()})` });
    fs.rmSync(state.snapshot, { force: true });
    await engine.reindex();
  } else {
    step({ step: 'bringing the index up to date' });
    await engine.reconcile();
  }
  step({ step: 'saving the snapshot' });
  await (host.save ? host.save() : engine.save());
  let bytes = 0;
  try {
    bytes = fs.statSync(state.snapshot).size;
  } catch {
    // the built-in fallback index keeps no snapshot
  }
  const r: IndexUpdateResult = { vault: state.vault, pid: process.pid, notes: engine.noteCount(), mode: engine.index.mode, rebuilt: rebuild, ms: Date.now() - started, snapshot: bytes ? state.snapshot : undefined, snapshotBytes: bytes };
  // The CLI's own host opened the index for this command: how it opened is this command's news.
  if (host.kind === 'cli' && index instanceof IndexedVault && index.opened) return { ...r, opened: index.opened, stats: index.index.stats(), ...(index.modelProblem ? { modelProblem: index.modelProblem } : {}) };
  return r;
}

/** The host log says who changed the vault through it (reads and plans are not logged). */
function logged<M extends Method>(host: RunningHost, method: M, op: Operation<M>): Handler<M> {
  return async (p) => {
    const r = await op(p);
    const q = p as { actor?: string; apply?: boolean; ids?: string[]; ref?: string };
    if (method === 'forget' || method === 'curate.apply' || (method === 'maintain.run' && q.apply)) {
      host.log('info', `${method}${q.ref ? ` ${q.ref}` : ''}${q.ids ? ` ${q.ids.join(', ')}` : ''} for ${q.actor ?? 'mcp'}`);
    }
    return r;
  };
}

/** The typed operations every host answers alike (read, remember, forget, curation, reindex), each logged. */
function loggedTable(host: RunningHost, table: OperationTable): Handlers {
  const out: Handlers = {};
  const add = <M extends Method>(method: M): void => {
    const op: Operation<M> | undefined = table[method];
    if (op) (out as Record<M, Handler<M>>)[method] = logged(host, method, op);
  };
  for (const method of Object.keys(table)) if (isMethod(method)) add(method);
  return out;
}

/** What `status` answers: the host, its queue, its index and the last runs. */
async function hostStatus(host: RunningHost): Promise<StatusResult> {
  const { engine } = host;
  return {
    vault: host.state.vault,
    host: host.kind,
    pid: process.pid,
    protocolVersion: PROTOCOL_VERSION,
    uptimeMs: Date.now() - host.startedAt,
    idleExitMs: host.idleMs,
    queue: (() => {
      const aside = setAsideCounts(host.state);
      return { ...host.capture.stats(), spooled: spoolDepth(host.state), deferred: aside.deferred, failedEvents: aside.failed };
    })(),
    index: { notes: engine.noteCount(), ready: engine.ready, mode: engine.index.mode },
    // The runs are in the ledger: status still answers when it is damaged (doctor and the set-aside events name it).
    lastRuns: await host.coverage.runs().then((r) => r.slice(-10), () => []),
  };
}

/** An agent proposes a note for the team: checked now as it will be on approval, then it waits for the user. */
async function proposeForTeam(host: RunningHost, env: NodeJS.ProcessEnv, ref: string, why: string | undefined): Promise<{ path: string; waiting: number }> {
  const s = teamSettings(host.config(), env);
  if (!s) throw new EngramError('refused', 'no team store is set', 'the user connects one with `engram team connect`');
  await host.engine.whenReady();
  const { path: notePath } = await host.engine.read(ref.replace(/#.*$/, ''));
  // Durable, the user's own, no secret: a proposal that could not go is said at once.
  const prepared = await prepareTeamNote(notePath, (await host.vault.read(notePath)).text, { team: s.team, author: s.member, vault: path.basename(host.state.vault) });
  if (!prepared.ok) throw new EngramError('refused', prepared.reason);
  const dir = teamDir(engramHome(env));
  propose(dir, { path: notePath, vaultRoot: host.state.vault, ...(why ? { why } : {}), by: 'agent', at: new Date().toISOString() });
  host.log('info', `team.propose ${notePath}: waits for the user's approval`);
  return { path: notePath, waiting: proposals(dir).filter((p) => p.vaultRoot === host.state.vault).length };
}

export function makeHandlers(host: RunningHost, env: NodeJS.ProcessEnv, opts: { applyGuard?: ApplyGuard } = {}): Handlers {
  const { engine, capture } = host;
  // The typed operations every host answers alike, then this host's own.
  const core = loggedTable(host, coreOperations({
    engine,
    injection: () => {
      const c = settingsOf(host.config());
      return { inject: c.inject, sessionStartChars: c.session_start_max_chars, promptChars: c.prompt_max_chars, promptItems: c.prompt_max_items, sessionChars: c.session_max_chars };
    },
    synthesize: (query, result) => synthesize(query, result, host.config(), env),
    applyGuard: opts.applyGuard,
    team: hostTeam(env, host.config),
  }));
  return {
    ...core,
    // Planning reads every note of the vault: the steps go to the client as it waits (one at a time, in curation's queue).
    ...(core['restructure.plan'] ? {
      'restructure.plan': (p, req, notify) => {
        const planning = () => notify(WORK_PROGRESS, { step: `planning merges and splits over ${engine.noteCount()} notes` } satisfies WorkProgress);
        if (engine.ready) planning();
        else {
          notify(WORK_PROGRESS, { step: 'waiting for the host to finish reading the vault' } satisfies WorkProgress);
          void engine.whenReady().then(planning);
        }
        return core['restructure.plan']!(p, req, notify);
      },
    } : {}),
    ping: async () => ({ ok: true as const }),
    'spool.notify': async () => {
      if (engine.ready) host.drain();
      return { ok: true as const };
    },
    extract: async (q) => {
      const file = allowedTranscript(q.path, configuredTranscriptRoots(env, host.config));
      if (!file) {
        throw new EngramError('refused', `not an agent transcript: ${q.path}`, 'extract reads only files inside ~/.claude/projects, ~/.codex/sessions or the folders in transcripts.extra_folders (`engram configure transcripts.extra_folders <absolute paths>`)');
      }
      const sessionId = q.sessionId ?? path.basename(file).replace(/\.jsonl?$/, '');
      capture.request(sessionId, file);
      return { queued: true as const, sessionId, path: file };
    },
    'extract.run': async (q) => {
      const run = await viaQueue(host, 'extract', () => extractTranscript({ ...extractBase(host, env, q), source: 'manual', transcriptPath: q.path }));
      host.log('info', `extract ${q.path} for cli: ${run.beats.created} new, ${run.beats.extended} extended`);
      return run;
    },
    'import.run': async (q, _req, notify) => {
      const r = await viaQueue(host, 'import', () => importExport(extractBase(host, env, q), q.path, {
        keepRuns: q.keepRuns,
        onConversation: (progress) => notify(IMPORT_PROGRESS, progress),
      }));
      host.log('info', `import ${q.path} for cli: ${r.conversations} conversations, ${r.created} notes`);
      return r;
    },
    'index.update': async (p, _req, notify) => {
      const r = await updateIndex(host, Boolean(p.rebuild), (w) => notify(WORK_PROGRESS, w));
      host.log('info', `index ${r.rebuilt ? 'rebuilt' : 'brought up to date'}: ${r.notes} notes in ${r.ms} ms`);
      return r;
    },
    configure: async (q) => setSafeKey(q.key, q.value, env),
    status: () => hostStatus(host),
    'team.propose': (q) => proposeForTeam(host, env, q.ref, q.why),
    'host.release': async () => {
      setTimeout(() => void host.shutdown('handover requested'), 10);
      return { releasing: true as const };
    },
  };
}
