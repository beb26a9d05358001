// The CLI's host when none is live for the vault: the same composition as the daemon's (compose.ts), the same index
// over the snapshot, the same handlers (handlers.ts), opened in this process for one command and closed after it. It
// serves no socket, takes no lock and drains no spool: the hooks' events wait for a real host.
import { EngramError } from '../../src/core/errors.js';
import type { ApplyGuard } from '../../src/core/curate/service.js';
import { checkParams, type Method, type Params, type Result, type RpcRequest } from '../../src/core/protocol/index.js';
import { composeEngine } from './compose.js';
import type { ConfigReader } from './config-file.js';
import { thisDevice } from './device.js';
import { engramHome } from './paths.js';
import { recordDevice } from './vault-lease.js';
import { lockIsLive, readLock } from './election.js';
import { faultFromEnv, faultTrigger } from './fault.js';
import { makeHandlers } from './handlers.js';
import type { Logger } from './logger.js';
import { NodeVault } from './node-vault.js';
import type { VaultState } from './paths.js';
import type { RunningHost } from './running-host.js';
import type { Notify } from './server.js';
import { indexMaker, type IndexChoices } from './wiring.js';
import type { ModelState } from './embedder.js';
import { IndexedVault } from '../../src/core/engine.js';

export interface InProcessHost {
  /** One method, its params checked as the socket checks them, answered by the handler a live host runs. */
  call<M extends Method>(method: M, params: Params<M>, notify?: Notify): Promise<Result<M>>;
  /** Lets queued work finish and saves the index, unless a host started meanwhile (it owns the snapshot then). */
  close(): Promise<void>;
}

/** Nothing of a one-command host goes to the host log: the CLI prints what the command did. */
const quiet: Logger = () => {};

export interface InProcessOptions {
  state: VaultState;
  env: NodeJS.ProcessEnv;
  /** The command's configuration, read by its entry. */
  config: ConfigReader;
  applyGuard?: ApplyGuard;
  /**
   * Save the index and the engine's state at close: always (a command that wrote the vault), when the index changed
   * since it opened (`if-changed`: a search), or never (false: a dry run leaves $ENGRAM_HOME as it found it).
   */
  save?: boolean | 'if-changed';
  /** Runs each save of the index (Ctrl-C lets a save under way finish). */
  saveGuard?: (save: () => Promise<void>) => Promise<void>;
  /** Record this device beside the vault's lease (a command that curates: it writes this device's change log). */
  recordDevice?: boolean;
  /**
   * The index as a command that works on it opens it (`engram index`, `engram search`), see IndexChoices: `model`
   * loads the embedding model first (only when this process answers: a live host has its own).
   */
  index?: Pick<IndexChoices, 'onProgress' | 'rebuild'> & { model?: () => Promise<ModelState> };
}

export async function openInProcess(opts: InProcessOptions): Promise<InProcessHost> {
  const { state, env } = opts;
  // Read once: one count for this command's note and state writes (`before-rename:N`).
  const fault = faultTrigger(faultFromEnv(env));
  const vault = new NodeVault(state.vault, { beforeRename: () => fault('before-rename') });
  const index = await indexMaker(state, { ...opts.index, model: await opts.index?.model?.() })(vault, quiet, fault);
  const { engine, coverage } = composeEngine({ state, env, config: opts.config, log: quiet, fault, vault, index });
  // Curation here writes this device's change log: its record beside the lease tells other machines whether the sync
  // carries `.engram/` (vault-lease.ts, unseenDevices).
  if (opts.recordDevice) {
    try {
      recordDevice(state.vault, thisDevice(engramHome(env)));
    } catch {
      // A vault that cannot be written: the apply says so.
    }
  }
  await engine.start();
  const capture = engine.capture!;
  const guard = opts.saveGuard ?? ((save) => save());
  const changed = () => !(index instanceof IndexedVault) || index.changed;
  const host: RunningHost = {
    kind: 'cli', state, vault, engine, capture, coverage, curation: engine.curation!, startedAt: Date.now(), log: quiet, fault, config: opts.config,
    drain: () => {},
    save: () => guard(() => engine.save()),
    async shutdown() {
      await capture.queue.stop();
      // A host started meanwhile owns the snapshot then.
      if (opts.save === false || lockIsLive(readLock(state.lock))) return;
      if (opts.save !== 'if-changed' || changed()) await host.save!();
    },
  };
  const handlers = makeHandlers(host, env, { applyGuard: opts.applyGuard });
  return {
    call<M extends Method>(method: M, params: Params<M>, notify: Notify = () => {}): Promise<Result<M>> {
      const handler = handlers[method];
      if (!handler) throw new EngramError('protocol', `${method} is answered only by a running host`);
      const req: RpcRequest = { jsonrpc: '2.0', id: 0, method, params };
      return handler(checkParams(method, params), req, notify);
    },
    close: () => host.shutdown('done'),
  };
}
