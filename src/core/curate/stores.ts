// Curation's state under $ENGRAM_HOME, through the engine's StateStore port: proposals
// (`vaults/<key>/proposals/<id>.json`) and recall statistics (`vaults/<key>/recall-stats.json`), never in notes.
import type { StateStore } from '../extract/state-store';
import { readFormat } from '../format-version';
import { checkProposal, type Proposal, type ProposalStore } from './proposals';

export class StateProposalStore implements ProposalStore {
  /** `dir` is the vault's proposals folder relative to $ENGRAM_HOME, e.g. `vaults/<key>/proposals`. */
  constructor(
    private readonly state: StateStore,
    private readonly dir: string,
  ) {}

  private name(id: string): string {
    if (!/^[0-9a-f]{6,64}$/i.test(id)) throw new Error(`not a proposal id: ${id}`);
    return `${this.dir}/${id}.json`;
  }

  async save(p: Proposal): Promise<void> {
    await this.state.write(this.name(p.id), `${JSON.stringify(p, null, 1)}\n`);
  }

  async load(id: string): Promise<Proposal | null> {
    if (!/^[0-9a-f]{6,64}$/i.test(id)) return null;
    const text = await this.state.read(this.name(id));
    if (text === undefined) return null;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = null;
    }
    return checkProposal(raw, id);
  }

  async list(): Promise<Proposal[]> {
    const out: Proposal[] = [];
    for (const f of await this.state.list(this.dir)) {
      if (!f.endsWith('.json')) continue;
      try {
        const p = await this.load(f.slice(0, -5));
        if (p) out.push(p);
      } catch {
        // A damaged or newer file is reported when applied by id; listing skips it.
      }
    }
    return out;
  }

  async remove(id: string): Promise<void> {
    await this.state.remove(this.name(id));
  }
}

export const RECALL_STATS_FORMAT = 1;

export interface RecallStats {
  version: number;
  /** Vault path → how often and when (epoch ms) it was last recalled. */
  notes: Record<string, { count: number; last: number }>;
}

/** Recall statistics: the sidecar calls `record` with the notes each recall returned. */
export class RecallStatsStore {
  constructor(
    private readonly state: StateStore,
    /** e.g. `vaults/<key>/recall-stats.json` */
    private readonly name: string,
  ) {}

  async load(): Promise<RecallStats> {
    const read = readFormat({ name: this.name, current: RECALL_STATS_FORMAT, validate: (d) => d as unknown as RecallStats }, await this.state.read(this.name));
    return read?.data ?? { version: RECALL_STATS_FORMAT, notes: {} };
  }

  async record(paths: string[], now: number): Promise<void> {
    if (paths.length === 0) return;
    const stats = await this.load();
    for (const p of new Set(paths)) {
      const s = stats.notes[p] ?? { count: 0, last: 0 };
      stats.notes[p] = { count: s.count + 1, last: Math.max(s.last, now) };
    }
    stats.version = RECALL_STATS_FORMAT;
    await this.state.write(this.name, JSON.stringify(stats));
  }

  /** Follows a note that moved (archive, merge), so its history is not lost. */
  async move(from: string, to: string): Promise<void> {
    const stats = await this.load();
    const s = stats.notes[from];
    if (!s) return;
    delete stats.notes[from];
    stats.notes[to] = s;
    await this.state.write(this.name, JSON.stringify(stats));
  }
}

/** Per-vault state names, relative to $ENGRAM_HOME (docs/files.md). */
export function curateStateNames(vaultKey: string): { proposals: string; recallStats: string; rejected: string } {
  return { proposals: `vaults/${vaultKey}/proposals`, recallStats: `vaults/${vaultKey}/recall-stats.json`, rejected: `vaults/${vaultKey}/rejected-proposals.json` };
}

/** A proposal's key for "rejected": its kind and its notes' content hashes, so any change to a note lifts it. */
export function rejectionKey(p: Pick<Proposal, 'kind' | 'sources'>): string {
  return `${p.kind} ${p.sources.map((s) => `${s.path}:${s.hash}`).sort().join(' ')}`;
}

/** Proposals the user rejected (`vaults/<key>/rejected-proposals.json`): not proposed again until one of their notes changes. */
export class RejectedStore {
  constructor(
    private readonly state: StateStore,
    private readonly name: string,
  ) {}

  async load(): Promise<Set<string>> {
    const text = await this.state.read(this.name);
    if (text === undefined) return new Set();
    try {
      const raw = JSON.parse(text) as { keys?: unknown };
      return new Set(Array.isArray(raw.keys) ? raw.keys.filter((k): k is string => typeof k === 'string') : []);
    } catch {
      return new Set();
    }
  }

  async add(keys: string[]): Promise<void> {
    const all = await this.load();
    for (const k of keys) all.add(k);
    // Bounded: the oldest rejections go first (their notes have most likely changed since).
    const list = [...all].slice(-5000);
    await this.state.write(this.name, `${JSON.stringify({ version: 1, keys: list }, null, 1)}\n`);
  }
}

/** What the host calls after each recall (hook injection, MCP `recall`), with the notes it returned. */
export async function recordRecall(state: StateStore, vaultKey: string, paths: string[], now: number): Promise<void> {
  await new RecallStatsStore(state, curateStateNames(vaultKey).recallStats).record(paths, now);
}
