// A second host for the engine, in the test process: the real Engine and Curation over the in-memory vault and state
// store, answering the protocol from the same operation table the daemon serves (src/core/operations.ts), with the
// params checked as the daemon's server checks them. What the Obsidian plugin will host, minus Obsidian.
import type { Curation } from '../../src/core/curate/service.js';
import { curateSettings } from '../../src/core/curate/settings.js';
import { Engine } from '../../src/core/engine.js';
import { ActivityRecord, activityFile } from '../../src/core/activity/record.js';
import { MemoryStateStore } from '../../src/core/extract/state-store.js';
import { answer, coreOperations, type InjectionSettings, type OperationTable } from '../../src/core/operations.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { isMethod } from '../../src/core/protocol/index.js';
import type { Clock, Yield } from '../../src/core/ports.js';
import type { LlmBackend } from '../../src/core/extract/backends/types.js';
import type { PrivateZones } from '../../src/core/note/private-zone.js';

export interface InProcessHost {
  vault: MemoryVault;
  state: MemoryStateStore;
  engine: Engine;
  curation: Curation;
  operations: OperationTable;
  /** One request as a client sends it: params checked, then the operation; unknown methods are refused. */
  call(method: string, params?: unknown): Promise<unknown>;
}

export async function startInProcessHost(files: Record<string, string>, opts: { clock?: Clock; injection?: Partial<InjectionSettings>; backend?: LlmBackend; yieldNow?: Yield; privateZones?: PrivateZones } = {}): Promise<InProcessHost> {
  const clock = opts.clock ?? { now: () => Date.now() };
  const vault = new MemoryVault({ files, clock });
  const state = new MemoryStateStore();
  // The one object a host creates: the engine, given its ports (vault, clock, state store) and settings. Review's
  // backend is `rules` (extend only) unless the test gives one (a scripted model that promotes and deletes).
  const backend = opts.backend;
  const curationOpts = { state, vaultKey: '0123456789abcdef', settings: curateSettings({ device: 'test', actor: 'plugin' }), ...(backend ? { backend: () => backend } : {}) };
  // The activity record in the state store, as a Node host keeps it (logs/activity-<key>.jsonl).
  const activity = new ActivityRecord(state, activityFile('0123456789abcdef'), clock, undefined, opts.yieldNow);
  const engine = new Engine({ ports: { vault, clock, yieldNow: opts.yieldNow ?? (() => Promise.resolve()) }, curation: curationOpts, activity, ...(opts.privateZones ? { config: { privateZones: opts.privateZones } } : {}) });
  const curation = engine.curation!;
  await engine.start();
  const injection: InjectionSettings = { inject: true, sessionStartChars: 4000, promptChars: 1500, promptItems: 5, sessionChars: 24_000, ...opts.injection };
  const operations = coreOperations({ engine, injection: () => injection, clock });
  return {
    vault,
    state,
    engine,
    curation,
    operations,
    async call(method, params = {}) {
      if (!isMethod(method)) throw new Error(`unknown method ${method}`);
      const answered = answer(operations, method, params);
      if (!answered) throw new Error(`${method} is not a core operation`);
      return answered;
    },
  };
}
