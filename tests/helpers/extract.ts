// Helpers for extraction tests: turns and sessions, a scripted LLM backend, an in-memory engine setup.
import type { CompletionRequest, CompletionResult, LlmBackend, BackendName } from '../../src/core/extract/backends/types.js';
import type { ExtractSessionOptions } from '../../src/core/extract/extract.js';
import { MemoryStateStore } from '../../src/core/extract/state-store.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import type { Clock } from '../../src/core/ports.js';
import type { Session, Turn } from '../../src/core/transcript/types.js';

export function turn(index: number, role: Turn['role'], text: string, uuid = `u${index}`): Turn {
  return { index, role, text, uuid, offset: index * 100, endOffset: index * 100 + 99, tools: [], errors: [], sidechain: false };
}

export function session(id: string, texts: [Turn['role'], string][], project = 'acme'): Session {
  return { meta: { sessionId: id, agent: 'claude-code', project, cwd: `/home/dev/${project}` }, turns: texts.map(([r, t], i) => turn(i, r, t, `${id}-${i}`)) };
}

export type Script = (req: CompletionRequest, call: number) => string | Error;

/** An LLM backend whose replies come from a function of the request (counts its calls). */
export class ScriptedBackend implements LlmBackend {
  readonly model = 'scripted-1';
  calls = 0;
  requests: CompletionRequest[] = [];

  constructor(
    private readonly script: Script,
    readonly name: BackendName = 'claude',
    readonly paid = false,
    private readonly tokens = 1000,
  ) {}

  complete(req: CompletionRequest): Promise<CompletionResult> {
    this.calls++;
    this.requests.push(req);
    const out = this.script(req, this.calls);
    if (out instanceof Error) return Promise.reject(out);
    return Promise.resolve({ text: out, usage: { inputTokens: this.tokens, outputTokens: 100 }, model: this.model, costUsd: this.paid ? 0.01 : 0, durationMs: 5, attempts: 1 });
  }
}

/** A reply that turns every user turn of the request that mentions `keyword` into a grounded beat. */
export function beatsFor(req: CompletionRequest, keyword = ''): string {
  const beats = (req.turns ?? [])
    .filter((t) => t.role === 'user' && t.text.length >= 30 && t.text.toLowerCase().includes(keyword))
    .map((t) => ({
      type: 'decision',
      title: t.text.split(/\s+/).slice(0, 6).join(' ').replace(/[^\w\s-]/g, ''),
      summary: t.text.slice(0, 120),
      body: t.text,
      scope: 'project',
      durability: /\b(wip|for now|until)\b/i.test(t.text) ? 'working' : 'durable',
      tags: ['test'],
      related: ['Existing note', 'Missing note'],
      confidence: 0.8,
      turns: [t.index],
      quote: t.text.slice(0, 40),
    }));
  return JSON.stringify({ beats });
}

/** An in-memory vault holding `files` and an empty state store, both on `clock`. */
export interface ExtractEnv {
  vault: MemoryVault;
  state: MemoryStateStore;
  clock: Clock;
}

export function extractEnv(clock: Clock, files: Record<string, string> = {}): ExtractEnv {
  return { vault: new MemoryVault({ files, clock }), state: new MemoryStateStore(), clock };
}

/** extractSession's options for one session against `env` (state in vaults/k). */
export function extractOptions(env: ExtractEnv, backend: LlmBackend, s: Session, extra: Partial<ExtractSessionOptions> = {}): ExtractSessionOptions {
  return { ports: { vault: env.vault, clock: env.clock }, state: env.state, vaultDir: 'vaults/k', backend, session: s, ...extra };
}

/** Every file of the vault, path to text: to compare whole vaults. */
export async function vaultSnapshot(vault: MemoryVault): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await vault.list()) out[f.path] = (await vault.read(f.path)).text;
  return out;
}
