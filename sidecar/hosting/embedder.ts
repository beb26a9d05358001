// The Node embedder: transformers.js feature extraction (mean pooling, normalised), batched, on onnxruntime-node.
// Offline by default: remote models are allowed only for `engram model pull`, which the user runs on purpose.
import fs from 'node:fs';
import path from 'node:path';
import { EngramError, errorMessage } from '../../src/core/errors.js';
import type { EffectiveConfig } from '../../src/core/config.js';
import type { Embedder } from '../../src/core/ports.js';
import { loadTransformers } from './embedding-runtime.js';

export const HUB = 'https://huggingface.co';

export interface ModelLocation {
  /** The configured model id (`embedding.model_id`). */
  id: string;
  /** The folder the model is loaded from, when one exists. */
  dir: string | null;
  /** Where it came from: the configured path, the download folder, or nowhere yet. */
  source: 'embedding.model_path' | 'embedding.multilingual_model_path' | 'downloaded' | 'missing';
  /** The folder `engram model pull` downloads into. */
  downloadDir: string;
  /** `$ENGRAM_HOME/models`. */
  root: string;
}

/** The download folder: `$ENGRAM_HOME/models/<model id>` (transformers.js's cache layout, so pulled files load offline). */
export function modelsRoot(engramHome: string): string {
  return path.join(engramHome, 'models');
}

export function locateModel(opts: { engramHome: string; modelId: string; modelPath: string | null; pathKey?: 'embedding.model_path' | 'embedding.multilingual_model_path' }): ModelLocation {
  const root = modelsRoot(opts.engramHome);
  const downloadDir = path.join(root, ...opts.modelId.split('/'));
  if (opts.modelPath) {
    return { id: opts.modelId, dir: path.resolve(opts.modelPath), source: opts.pathKey ?? 'embedding.model_path', downloadDir, root };
  }
  if (fs.existsSync(path.join(downloadDir, 'config.json'))) return { id: opts.modelId, dir: downloadDir, source: 'downloaded', downloadDir, root };
  return { id: opts.modelId, dir: null, source: 'missing', downloadDir, root };
}

/** What the English default serves, and what the multilingual one does (its model card: 50+ languages). */
const SERVES_ENGLISH = 'English; notes and questions in other languages are matched by keywords (BM25) only';
const SERVES_MULTILINGUAL = 'English, Chinese, Japanese, Korean, German, French, Spanish, Italian, Portuguese, Dutch, Russian and about 40 more (quality not measured by Engram)';

/**
 * The embedding model the configuration asks for: the multilingual one (`embedding.multilingual` on, or auto when
 * it is present locally: its path set, or pulled with `engram model pull --multilingual`), else the English
 * `embedding.model_id`; with the languages it serves. Never the network: `engram model pull` is the only download.
 */
export function configuredModel(config: EffectiveConfig, engramHome: string): ModelLocation & { serves: string; multilingual: boolean } {
  const mode = config.get('embedding.multilingual');
  if (mode !== 'off') {
    const multi = locateModel({ engramHome, modelId: config.get('embedding.multilingual_model_id'), modelPath: config.get('embedding.multilingual_model_path'), pathKey: 'embedding.multilingual_model_path' });
    if (mode === 'on' || multi.dir) return { ...multi, serves: SERVES_MULTILINGUAL, multilingual: true };
  }
  const english = locateModel({ engramHome, modelId: config.get('embedding.model_id'), modelPath: config.get('embedding.model_path') });
  return { ...english, serves: SERVES_ENGLISH, multilingual: false };
}

/** Which ONNX file to run: full precision when present, else the quantised one most hub conversions ship. */
function pickDtype(dir: string): 'fp32' | 'q8' {
  if (fs.existsSync(path.join(dir, 'onnx', 'model.onnx'))) return 'fp32';
  if (fs.existsSync(path.join(dir, 'onnx', 'model_quantized.onnx'))) return 'q8';
  throw new EngramError('not-found', `no onnx/model.onnx or onnx/model_quantized.onnx in ${dir}`, 'point embedding.model_path at a transformers.js model folder, or run `engram model pull`');
}

type Extractor = (texts: string[], o: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

export class TransformersEmbedder implements Embedder {
  constructor(
    readonly modelId: string,
    readonly dimension: number,
    private readonly extractor: Extractor,
    private readonly batchSize = 32,
  ) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map((t) => (t.trim() === '' ? '.' : t));
      const r = await this.extractor(batch, { pooling: 'mean', normalize: true });
      const d = r.dims[r.dims.length - 1];
      for (let j = 0; j < batch.length; j++) out.push(r.data.slice(j * d, (j + 1) * d));
    }
    return out;
  }
}

/**
 * Loads the model from a local folder with `local_files_only` (never the network). The model id stored in snapshots
 * combines the configured id and the ONNX file size, so swapping the files in a folder re-embeds the vault.
 */
export async function loadEmbedder(dir: string, opts: { modelId?: string; batchSize?: number } = {}): Promise<TransformersEmbedder> {
  if (!fs.existsSync(path.join(dir, 'config.json'))) {
    throw new EngramError('not-found', `no embedding model in ${dir} (config.json missing)`, 'run `engram model pull`, or set embedding.model_path to a model folder');
  }
  const dtype = pickDtype(dir);
  const onnxFile = path.join(dir, 'onnx', dtype === 'fp32' ? 'model.onnx' : 'model_quantized.onnx');
  const { env, pipeline } = await loadTransformers();
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  let extractor: Extractor;
  try {
    // An absolute path is never a valid hub id, so transformers.js reads the files from that folder as they are
    // (a folder name with spaces would otherwise be resolved against the working directory).
    extractor = (await pipeline('feature-extraction', path.resolve(dir), { dtype, device: 'cpu', local_files_only: true })) as unknown as Extractor;
  } catch (e) {
    throw new EngramError('backend', `cannot load the embedding model in ${dir}: ${errorMessage(e)}`, 'check the folder holds config.json, tokenizer.json and onnx/, or run `engram model pull`');
  }
  const probe = await extractor(['probe'], { pooling: 'mean', normalize: true });
  const dimension = probe.dims[probe.dims.length - 1];
  const id = `${opts.modelId ?? path.basename(dir)}#${fs.statSync(onnxFile).size}`;
  return new TransformersEmbedder(id, dimension, extractor, opts.batchSize);
}

export interface ModelState {
  location: ModelLocation;
  embedder?: Embedder;
  /** Why there is no embedder: search runs on BM25 alone. */
  problem?: string;
}

/** The configured embedding model, loaded from its folder; when there is none or it fails to load, why. */
export async function resolveModel(config: EffectiveConfig, engramHome: string): Promise<ModelState> {
  const location = configuredModel(config, engramHome);
  if (!location.dir) {
    const how = location.multilingual ? ['engram model pull --multilingual', 'embedding.multilingual_model_path'] : ['engram model pull', 'embedding.model_path'];
    return { location, problem: `no embedding model yet (run \`${how[0]}\` to download ${location.id}, or set ${how[1]})` };
  }
  try {
    return { location, embedder: await loadEmbedder(location.dir, { modelId: location.id }) };
  } catch (e) {
    return { location, problem: errorMessage(e) };
  }
}

/** The files a sentence-embedding model needs, relative to its folder. */
export const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

/**
 * Downloads the model from the Hugging Face hub into the download folder (the only network use of Engram's index).
 * `say` is told what is fetched and from where before anything is.
 */
export async function pullModel(loc: ModelLocation, say: (line: string) => void, remoteHost = HUB): Promise<TransformersEmbedder> {
  say(`Downloading the embedding model ${loc.id}`);
  say(`  from ${remoteHost.replace(/\/$/, '')}/${loc.id} (files: ${MODEL_FILES.join(', ')}; about 20-90 MB)`);
  say(`  into ${loc.downloadDir}`);
  const { env, pipeline } = await loadTransformers();
  env.allowRemoteModels = true;
  env.remoteHost = remoteHost.endsWith('/') ? remoteHost : `${remoteHost}/`;
  env.useFSCache = true;
  // transformers.js's file cache keeps `<cacheDir>/<model id>/<file>`: exactly the download folder.
  env.cacheDir = loc.root;
  try {
    await pipeline('feature-extraction', loc.id, { dtype: 'q8', device: 'cpu' });
  } catch (e) {
    throw new EngramError(
      'io',
      `could not download ${loc.id} from ${remoteHost}: ${errorMessage(e)}`,
      `check your network (or HTTPS proxy); or download ${MODEL_FILES.join(', ')} yourself into a folder and run \`engram configure embedding.model_path <folder>\``,
    );
  } finally {
    env.allowRemoteModels = false;
  }
  return loadEmbedder(loc.downloadDir, { modelId: loc.id });
}
