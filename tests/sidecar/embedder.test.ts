// The production embedder on a tiny real ONNX model: offline loading, vectors equal to the model's own arithmetic,
// semantic recall through the index, and what `model pull` says when the network is unreachable.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbedder, locateModel, pullModel, type TransformersEmbedder } from '../../sidecar/hosting/embedder.js';
import { EngramError } from '../../src/core/errors.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { VaultIndex } from '../../src/core/index/vault-index.js';
import { makeTinyModel, type TinyModel } from '../helpers/tiny-model.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

let tmp: string;
let model: TinyModel;
let embedder: TransformersEmbedder;

beforeAll(async () => {
  tmp = makeTempDir();
  // A folder name with a space: user folders have them, and hub ids do not.
  model = makeTinyModel(path.join(tmp, 'my models', 'tiny bow'));
  embedder = await loadEmbedder(model.dir, { modelId: 'test/tiny-bow' });
});
afterAll(() => removeDir(tmp));

const cos = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i], 0);

describe('transformers.js embedder on the tiny model', () => {
  it('loads offline and reports the model dimension and an id tied to the files', () => {
    expect(embedder.dimension).toBe(384);
    expect(embedder.modelId).toMatch(/^test\/tiny-bow#\d+$/);
    expect(model.dir).toContain(' ');
  });

  it('returns exactly the vectors the generated weights define (batched, unit length)', async () => {
    const texts = ['the car is red', 'the automobile is red', 'apple banana cherry', 'obsidian vault plugin sidecar'];
    const got = await embedder.embed(texts);
    expect(got).toHaveLength(4);
    texts.forEach((t, i) => {
      const want = model.expectedVector(t);
      expect(got[i].length).toBe(384);
      let maxDiff = 0;
      for (let j = 0; j < 384; j++) maxDiff = Math.max(maxDiff, Math.abs(got[i][j] - want[j]));
      expect(maxDiff).toBeLessThan(1e-5);
    });
    expect(cos(got[0], got[1])).toBeGreaterThan(0.75);
    expect(cos(got[0], got[2])).toBeLessThan(0.3);
  });

  it('gives the index semantic recall: a synonym finds a note that shares no word with the query', async () => {
    const vault = new MemoryVault({
      files: {
        'Cars.md': 'the automobile is red and fast',
        'Fruit.md': 'apple banana cherry',
        'Db.md': 'postgres index on the project',
      },
    });
    const index = new VaultIndex({ vault, embedder });
    await index.build();
    expect(index.stats().vectors).toBe(3);
    const bm25 = await index.search('vehicle', { mode: 'bm25' });
    expect(bm25.hits).toHaveLength(0);
    const hybrid = await index.search('vehicle');
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.hits[0].path).toBe('Cars.md');
    expect(hybrid.hits[0].why.join(' ')).toMatch(/meaning/);
    const db = await index.search('sqlite');
    expect(db.hits[0].path).toBe('Db.md');
  });

  it('refuses a folder without a model, saying what to do', async () => {
    const e = (await loadEmbedder(path.join(tmp, 'nothing')).catch((x: unknown) => x)) as EngramError;
    expect(e).toBeInstanceOf(EngramError);
    expect(e.message).toMatch(/no embedding model/);
    expect(e.hint).toMatch(/engram model pull/);
  });

  it('model pull says what it downloads and from where, and fails cleanly when the hub is unreachable', async () => {
    const lines: string[] = [];
    const loc = locateModel({ engramHome: path.join(tmp, 'home'), modelId: 'TaylorAI/bge-micro-v2', modelPath: null });
    expect(loc.source).toBe('missing');
    // A closed local port stands in for "no network": the request fails at once, like an offline machine.
    await expect(pullModel(loc, (l) => lines.push(l), 'http://127.0.0.1:9')).rejects.toThrow(/could not download TaylorAI\/bge-micro-v2/);
    expect(lines.join('\n')).toMatch(/Downloading the embedding model TaylorAI\/bge-micro-v2/);
    expect(lines.join('\n')).toMatch(/from http:\/\/127\.0\.0\.1:9\/TaylorAI\/bge-micro-v2/);
    expect(lines.join('\n')).toContain(loc.downloadDir);
  });
});
