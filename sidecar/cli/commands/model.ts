// `engram model pull|status`: the embedding model. `pull` is Engram's only download, and says what and from where.
import { EngramError } from '../../../src/core/errors.js';
import { engramHome } from '../../../src/core/state.js';
import { configuredModel, HUB, locateModel, pullModel, resolveModel } from '../../hosting/embedder.js';
import type { CommandDefinition } from '../types.js';
import { engramEntry } from '../../hosting/start-host.js';
import { ensureTransformers } from '../../hosting/embedding-runtime.js';

export const command: CommandDefinition = {
  usage: 'model pull|status [--multilingual] [--json]',
  description: 'Download the embedding model (pull) or show which model search uses and which languages it serves (status). Without a model, search is keyword-only (BM25).',
  details: `pull downloads embedding.model_id (English), or with --multilingual embedding.multilingual_model_id (Chinese, Japanese, Korean, German, French and ~45 more; used from then on while embedding.multilingual is auto), from ${HUB} (or $HF_ENDPOINT) into $ENGRAM_HOME/models/; nothing else in Engram's index uses the network.`,
  options: { multilingual: { type: 'boolean', description: 'pull the multilingual model (embedding.multilingual_model_id) instead of the English one' } },
  async run(ctx) {
    const sub = ctx.args[0];
    const facts = ctx.facts;
    const config = ctx.config();
    if (sub === 'pull') {
      const modelId = ctx.options.multilingual === true ? config.get('embedding.multilingual_model_id') : config.get('embedding.model_id');
      const loc = locateModel({ engramHome: engramHome(facts), modelId, modelPath: null });
      await ensureTransformers(engramEntry(), (l) => ctx.stdout(l));
      const embedder = await pullModel(loc, (l) => ctx.stdout(l), ctx.env.HF_ENDPOINT || HUB);
      ctx.stdout(`Ready: ${embedder.modelId}, ${embedder.dimension} dimensions. Run \`engram index\` to embed the vault.`);
      return 0;
    }
    if (sub === 'status') {
      const t0 = performance.now();
      const m = await resolveModel(config, engramHome(facts));
      const ms = performance.now() - t0;
      const serves = configuredModel(config, engramHome(facts)).serves;
      const status = {
        modelId: m.location.id,
        serves,
        source: m.location.source,
        folder: m.location.dir,
        downloadFolder: m.location.downloadDir,
        loaded: m.embedder !== undefined,
        dimension: m.embedder?.dimension ?? null,
        loadMs: Math.round(ms),
        searchMode: m.embedder ? 'hybrid' : 'bm25',
        problem: m.problem ?? null,
      };
      if (ctx.global.json) {
        ctx.stdout(JSON.stringify(status, null, 2));
        return 0;
      }
      ctx.stdout(`embedding model: ${status.modelId} (${status.source === 'missing' ? 'not downloaded' : `from ${status.source}`})`);
      ctx.stdout(`  serves: ${serves}`);
      if (status.folder) ctx.stdout(`  folder: ${status.folder}`);
      if (m.embedder) ctx.stdout(`  loaded in ${status.loadMs} ms: ${m.embedder.dimension} dimensions; search is hybrid (BM25 + vectors)`);
      else ctx.stdout(`  search is keyword-only (BM25): ${status.problem}`);
      return 0;
    }
    throw new EngramError('usage', `unknown model action "${sub ?? ''}"`, 'use `engram model pull` or `engram model status`');
  },
};
