// One interface for every LLM backend (claude CLI, Anthropic, Ollama, OpenAI-compatible, rules).
import type { Turn } from '../../transcript/types.js';

import type { BackendName } from '../../config.js';

/** The names config.json takes (BACKENDS in config.ts, the one list). */
export type { BackendName };

export interface CompletionRequest {
  system: string;
  user: string;
  /** Ask for a JSON reply (backends that support a JSON mode use it). */
  json?: boolean;
  maxTokens?: number;
  /** Per-call deadline. */
  timeoutMs?: number;
  /** The window's turns, for backends that read them directly instead of the prompt (rules). */
  turns?: Turn[];
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface CompletionResult {
  text: string;
  usage: Usage;
  model: string;
  /** Estimated cost in US dollars (0 for local and subscription backends). */
  costUsd: number;
  durationMs: number;
  /** How many attempts the call took (1 = no retry). */
  attempts?: number;
}

export interface LlmBackend {
  readonly name: BackendName;
  readonly model: string;
  /** True when calls cost money per token (background spending needs a user-set budget). */
  readonly paid: boolean;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}
