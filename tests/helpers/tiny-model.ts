// A tiny but real ONNX sentence embedder (transformers.js), generated into a temp folder: a BERT-style WordPiece tokenizer and
// a Gather/Mul graph whose token vectors come from a seeded generator. Words of one synonym group share a vector, so
// ranking tests can assert semantic recall; `expectedVector` recomputes what the model must output from the weights alone.
import fs from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
export const SYNONYM_GROUPS = [
  ['car', 'automobile', 'vehicle'],
  ['memory', 'remember', 'recall'],
  ['note', 'notes', 'notebook'],
  ['search', 'find', 'lookup'],
  ['database', 'postgres', 'sqlite'],
  ['deploy', 'release', 'ship'],
];
const WORDS = (
  'the a an and or of to in on for with is are was be it this that as by from at obsidian vault markdown plugin sidecar ' +
  'claude code hook session prompt index vector embedding orama bm25 chokidar watcher file folder tag link project daily meeting ' +
  'idea todo done bug fix test apple banana cherry python typescript node rust go java red blue fast slow'
).split(/\s+/);

export interface TinyModel {
  /** The model folder (config.json, tokenizer*.json, onnx/model.onnx). */
  dir: string;
  dimension: number;
  vocab: string[];
  /** normalize(mean of token vectors incl. [CLS]/[SEP], whose vectors are zero) for a text of in-vocabulary words. */
  expectedVector(text: string): Float32Array;
}

function hash32(s: string): number {
  let h = 2166136261;
  for (const c of s) {
    h ^= c.codePointAt(0)!;
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

function vecFor(key: string, dim: number): Float32Array {
  let s = hash32(key);
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    v[i] = (s / 2 ** 32) * 2 - 1;
  }
  return v;
}

export function makeTinyModel(dir: string, dim = 384): TinyModel {
  const vocab = [...SPECIAL];
  for (const g of SYNONYM_GROUPS) vocab.push(...g);
  for (const w of WORDS) if (!vocab.includes(w)) vocab.push(w);
  vocab.push('##s', '##ing', '##ed');
  const V = vocab.length;
  const groupOf = new Map(SYNONYM_GROUPS.flatMap((g, gi) => g.map((w) => [w, `group:${gi}`] as const)));
  const E = new Float32Array(V * dim);
  vocab.forEach((tok, id) => {
    if (!SPECIAL.includes(tok)) E.set(vecFor(groupOf.get(tok) ?? tok, dim), id * dim);
  });

  const T = onnx.TensorProto.DataType;
  const INT = onnx.AttributeProto.AttributeType.INT;
  const dyn = (...d: (string | number)[]) => ({ dim: d.map((x) => (typeof x === 'number' ? { dimValue: x } : { dimParam: x })) });
  const bytes = onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 7,
      opsetImport: [{ domain: '', version: 13 }],
      producerName: 'engram-tiny-embedder-fixture',
      graph: {
        name: 'tiny_bow_embedder',
        node: [
          { opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['tok_emb'], name: 'gather', attribute: [{ name: 'axis', type: INT, i: 0 }] },
          { opType: 'Cast', input: ['attention_mask'], output: ['mask_f'], name: 'cast', attribute: [{ name: 'to', type: INT, i: T.FLOAT }] },
          { opType: 'Unsqueeze', input: ['mask_f', 'axes_2'], output: ['mask_3d'], name: 'unsqueeze' },
          { opType: 'Mul', input: ['tok_emb', 'mask_3d'], output: ['last_hidden_state'], name: 'mul' },
        ],
        initializer: [
          { name: 'embeddings', dataType: T.FLOAT, dims: [V, dim], rawData: new Uint8Array(E.buffer) },
          { name: 'axes_2', dataType: T.INT64, dims: [1], int64Data: [2] },
        ],
        input: [
          { name: 'input_ids', type: { tensorType: { elemType: T.INT64, shape: dyn('batch', 'seq') } } },
          { name: 'attention_mask', type: { tensorType: { elemType: T.INT64, shape: dyn('batch', 'seq') } } },
        ],
        output: [{ name: 'last_hidden_state', type: { tensorType: { elemType: T.FLOAT, shape: dyn('batch', 'seq', dim) } } }],
      },
    }),
  ).finish();

  const special = SPECIAL.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: special,
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  };
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), bytes);
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' }),
  );
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: dim, vocab_size: V, num_hidden_layers: 1, num_attention_heads: 1, intermediate_size: dim, max_position_embeddings: 512, type_vocab_size: 2, pad_token_id: 0 }),
  );

  const idOf = new Map(vocab.map((t, i) => [t, i]));
  return {
    dir,
    dimension: dim,
    vocab,
    expectedVector(text: string): Float32Array {
      const words = text.toLowerCase().split(/\s+/).filter(Boolean);
      const sum = new Float32Array(dim);
      for (const w of words) {
        const id = idOf.get(w);
        if (id === undefined) throw new Error(`"${w}" is not in the tiny model's vocabulary`);
        for (let i = 0; i < dim; i++) sum[i] += E[id * dim + i];
      }
      // Mean over [CLS] + words + [SEP]; the specials are zero vectors. Normalising removes the 1/(n+2) factor.
      let norm = 0;
      for (let i = 0; i < dim; i++) norm += sum[i] * sum[i];
      norm = Math.sqrt(norm);
      return sum.map((x) => x / norm);
    },
  };
}
