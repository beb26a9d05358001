// `engram status` says when search is keyword-only (BM25) because no embedding model is present, and how to fix it;
// with a local model it says hybrid.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { makeTinyModel } from '../helpers/tiny-model.js';

type Status = { host: { index: { mode: string; ready: boolean } } | null; search: { mode: string; model: { id: string; dir: string | null }; bm25Only?: { reason: string; fix: string } } };

describe('engram status: search mode', () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = makeSandbox();
    sb.writeNote('Notes/Cars.md', '# Cars\nThe car needs new tyres.\n');
  });
  afterEach(async () => sb.cleanup());

  const status = (env: NodeJS.ProcessEnv = {}) => JSON.parse(runCli(['status', '--json'], { env: { ...sb.env, ...env } }).stdout) as Status;

  it('with a host and no model: BM25 only, why, and the fix (model pull or embedding.model_path)', async () => {
    sb.serve();
    const st = await waitFor(() => {
      const s = status();
      return s.host?.index.ready ? s : undefined;
    }, 15_000, 'the host index');
    expect(st.host!.index.mode).toMatch(/^bm25/);
    expect(st.search.bm25Only?.reason).toMatch(/no embedding model present/);
    expect(st.search.bm25Only?.reason).toContain(path.join(sb.engramHome, 'models'));
    expect(st.search.bm25Only?.fix).toMatch(/engram model pull/);
    expect(st.search.bm25Only?.fix).toMatch(/embedding\.model_path/);
    const text = runCli(['status'], { env: sb.env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^search {4}BM25 only .*no embedding model present.*Fix: run `engram model pull`.*embedding\.model_path/m);
  });

  it('without a host, a configured model folder that does not exist is named', () => {
    const missing = path.join(sb.root, 'no-such-model');
    const st = status({ ENGRAM_EMBEDDING_MODEL_PATH: missing });
    expect(st.host).toBeNull();
    expect(st.search.bm25Only?.reason).toContain(`embedding.model_path is ${missing}, which does not exist`);
    expect(runCli(['status'], { env: { ...sb.env, ENGRAM_EMBEDDING_MODEL_PATH: missing } }).stdout).toMatch(/^search {4}BM25 only/m);
  });

  it('with a local model the host goes hybrid and status says so, with no BM25-only warning', async () => {
    const model = makeTinyModel(path.join(sb.root, 'models', 'tiny'));
    const env = { ENGRAM_EMBEDDING_MODEL_PATH: model.dir };
    sb.serve(env);
    const st = await waitFor(() => {
      const s = status(env);
      return s.host?.index.mode === 'hybrid' ? s : undefined;
    }, 30_000, 'hybrid mode');
    expect(st.search.bm25Only).toBeUndefined();
    expect(st.search.model.dir).toBe(model.dir);
    const text = runCli(['status'], { env: { ...sb.env, ...env } }).stdout;
    expect(text).toMatch(/^search {4}hybrid/m);
    expect(text).not.toMatch(/BM25 only/);
  });
});
