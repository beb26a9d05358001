// The embed server's messages (`engram embed-server`, newline-delimited JSON-RPC over stdio): embeddings for a host
// that cannot load onnxruntime itself, such as the Obsidian plugin. Checked here, like the host's methods.
import { v, type Check } from './schema.js';

export const MAX_EMBED_TEXTS = 1024;
export const MAX_EMBED_TEXT_CHARS = 100_000;

export const embedParams = {
  info: v.object({}),
  embed: v.object({ texts: v.array(v.string({ max: MAX_EMBED_TEXT_CHARS }), MAX_EMBED_TEXTS) }),
} satisfies Record<string, Check<unknown>>;

export type EmbedMethod = keyof typeof embedParams;

export function isEmbedMethod(name: string): name is EmbedMethod {
  return Object.prototype.hasOwnProperty.call(embedParams, name);
}

export type EmbedInfo =
  | { available: true; modelId: string; dimension: number; protocolVersion: string }
  | { available: false; reason?: string; protocolVersion: string };

/** Vectors as base64 of their Float32 bytes (little-endian), in the order of the texts. */
export interface EmbedResult {
  modelId: string;
  dimension: number;
  vectors: string[];
}

/** What each embed method answers (beside its params, as MethodResults in messages.ts does for the host's methods). */
export interface EmbedResults {
  info: EmbedInfo;
  embed: EmbedResult;
}

export type EmbedParams<M extends EmbedMethod> = ReturnType<(typeof embedParams)[M]>;

/** The one place an embed server's answer takes its method's type (the child is ours, started with our token-less stdio). */
export function embedResultOf<M extends EmbedMethod>(_method: M, raw: unknown): EmbedResults[M] {
  return raw as EmbedResults[M];
}
