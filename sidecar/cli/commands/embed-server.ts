// `engram embed-server`: embeddings over stdio (newline-delimited JSON-RPC 2.0) for a host that cannot load
// onnxruntime itself, such as the Obsidian plugin. The parent owns the pipes, so no token is needed; stdout
// carries only protocol messages, and the server exits when stdin closes.
import readline from 'node:readline';
import type { CommandDefinition } from '../types.js';
import { RpcCode, encodeFrame, failure, parseFrame, success, type RpcRequest } from '../../../src/core/protocol/jsonrpc.js';
import { PROTOCOL_VERSION } from '../../../src/core/protocol/version.js';
import { MAX_EMBED_TEXT_CHARS, MAX_EMBED_TEXTS, embedParams, isEmbedMethod, type EmbedInfo, type EmbedResult } from '../../../src/core/protocol/embed.js';
import { ParamError } from '../../../src/core/protocol/schema.js';
import { errorMessage } from '../../../src/core/errors.js';
import type { Embedder } from '../../../src/core/ports.js';

function toBase64(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export const command: CommandDefinition = {
  usage: 'embed-server [--model <dir>]',
  description: 'Serve embeddings over stdio, one JSON-RPC message per line: info, embed {texts} (vectors as base64 Float32). Used by the Obsidian plugin; loads only local model files.',
  options: { model: { type: 'string', valueName: '<dir>', description: 'Model folder (default: the configured model, English or multilingual: its path or its download)' } },
  async run(ctx) {
    const { configuredModel, locateModel, loadEmbedder } = await import('../../hosting/embedder.js');
    const { engramHome } = await import('../../../src/core/state.js');
    const facts = ctx.facts;
    const config = ctx.config();
    const chosen = configuredModel(config, engramHome(facts));
    const dir = ctx.options.model as string | undefined;
    const loc = dir ? locateModel({ engramHome: engramHome(facts), modelId: chosen.id, modelPath: dir }) : chosen;
    let embedder: Embedder | undefined;
    let unavailable: string | undefined;
    const ready = (async () => {
      if (!loc.dir) {
        unavailable = `no embedding model (${loc.id}); run \`engram model pull\``;
        return;
      }
      try {
        embedder = await loadEmbedder(loc.dir, { modelId: loc.id });
      } catch (e) {
        unavailable = errorMessage(e);
      }
    })();
    const send = (m: Parameters<typeof encodeFrame>[0]) => process.stdout.write(encodeFrame(m));
    const handle = async (req: RpcRequest) => {
      await ready;
      if (!isEmbedMethod(req.method)) return send(failure(req.id, RpcCode.methodNotFound, `unknown method ${req.method}`));
      let params: { texts?: string[] };
      try {
        params = embedParams[req.method](req.params, 'params') as { texts?: string[] };
      } catch (e) {
        if (!(e instanceof ParamError)) throw e;
        return send(failure(req.id, RpcCode.invalidParams, `${e.message} (embed takes {texts: string[]}: at most ${MAX_EMBED_TEXTS.toLocaleString('en-US')} texts of ${MAX_EMBED_TEXT_CHARS.toLocaleString('en-US')} characters)`));
      }
      if (req.method === 'info') {
        const info: EmbedInfo = embedder ? { available: true, modelId: embedder.modelId, dimension: embedder.dimension, protocolVersion: PROTOCOL_VERSION } : { available: false, reason: unavailable, protocolVersion: PROTOCOL_VERSION };
        return send(success(req.id, info));
      }
      if (!embedder) return send(failure(req.id, RpcCode.refused, unavailable ?? 'no embedder'));
      try {
        const vectors = await embedder.embed(params.texts ?? []);
        const result: EmbedResult = { modelId: embedder.modelId, dimension: embedder.dimension, vectors: vectors.map(toBase64) };
        return send(success(req.id, result));
      } catch (e) {
        return send(failure(req.id, RpcCode.internal, errorMessage(e)));
      }
    };
    // One request at a time, in order: embedding is CPU-bound, so parallel requests would only interleave.
    let chain = Promise.resolve();
    const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    rl.on('line', (line) => {
      if (!line.trim()) return;
      const parsed = parseFrame(line);
      if (!parsed.ok) return send(failure(parsed.id, parsed.code, parsed.reason));
      const msg = parsed.message;
      if (!('method' in msg) || !('id' in msg)) return;
      chain = chain.then(async () => {
        await handle(msg);
      }).catch(() => undefined);
    });
    await new Promise<void>((resolve) => rl.on('close', () => resolve()));
    await chain;
    return 0;
  },
};
