// The index snapshot: one binary file a host writes atomically to `vaults/<key>/snapshot`.
// Layout: magic "ENGRAMIX", u32 format version, u32 header length, header JSON (model, dimension, the note table with
// content hash and mtime per note), then length-prefixed sections (chunk text, four BM25 fields, the line sketch,
// vectors), 4-byte aligned, then an 8-byte checksum of everything before it. Anything that does not check out is
// refused, never trusted.
import { EngramError } from '../errors.js';
import { isLinkList } from './chunk.js';
import { Posting, type FieldIndex } from './postings.js';
import { FIELDS, type IndexedNote, type TextIndex } from './text-index.js';
import { VectorStore } from './vector-store.js';
import { LineSketch } from './line-sketch.js';
import { parseJsonSteps } from '../json-steps.js';
import { checksumSteps, corrupt, Reader, TEXT_STEP, through, Writer } from './snapshot-bytes.js';

// 4: snapshots of format 3 written without a vector store may hold postings of the wrong notes (encodeSnapshot did not
// compact them), and note times now read date keys and file-name dates: every older snapshot is rebuilt once.
// 5: notes are indexed as bounded passages with heading paths and carry a display name: older snapshots are rebuilt.
// 5: terms are cut by script and stemmed per language (tokenize.ts, language.ts): a snapshot of older terms would
// leave Chinese, Japanese, Korean, German or French notes unfindable by the queries of today's tokenizer.
// 6: long lists are cut into pieces of a few items, frontmatter values are indexed with the tags, Excalidraw scene data
// and block ids are no longer indexed: older snapshots hold other passages and postings.
// 7: the file a host writes is deflated (`packSnapshot`: about a third of the size); posting ids are stored as gaps
// (the deflate finds them); the note table leaves out what the path gives (folder) and what counting gives (first
// chunk), and notes carry their properties as `key: value` lines for excerpts. Older snapshots are rebuilt.
// 8: English irregular forms are indexed by their base ("went" as "go"), and the boilerplate line sketch
// (line-sketch.ts) follows the four fields, so the first excerpt after a restart does not count every note's lines.
// Older postings hold the forms apart: a format 7 snapshot is rebuilt.
// 9: a property declared empty (a template's `price:`) is indexed by its key, and a note without body text is told
// apart from others by its whole text: a format 8 snapshot holds neither.
// 10: a list `type` (`type: [[Cities]]`) and numbers with a dot (coordinates, prices, phone numbers) are indexed with
// the properties, a note made from a template is told apart from it by its properties, and a note dated only by its
// file carries another date property for time phrases (`dated`): a format 9 snapshot holds none of these.
export const SNAPSHOT_FORMAT_VERSION = 10;
const MAGIC = 'ENGRAMIX';
/** A packed snapshot: this magic, the u32 format version, then the raw snapshot deflated (`deflate-raw`). */
const PACKED_MAGIC = 'ENGRAMIZ';
const enc = new TextEncoder();
const dec = new TextDecoder();

export interface SnapshotHeader {
  formatVersion: number;
  modelId: string | null;
  dimension: number;
  createdAt: number;
  chunks: number;
  notes: IndexedNote[];
}

/** Runs a step generator to the end at once (TimeSlicer.run yields between its steps). */
export function runSync<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Postings of this many terms are copied (or read) between two steps, or of this many entries when sooner. */
const TERMS_STEP = 1024;
const POSTINGS_STEP = 1 << 14;
/** Characters of passage text sliced, looked at for links or counted for the line sketch between two steps. */
const CHARS_STEP = 1 << 14;
/** Notes of the note table encoded or decoded between two steps. */
const NOTES_STEP = 256;

/** `JSON.stringify(header)`, byte for byte, encoded a block of notes at a time (the note table is megabytes). */
function* headerParts(header: SnapshotHeader): Generator<void, Uint8Array[]> {
  const { notes, ...head } = header;
  const open = JSON.stringify({ ...head, notes: [] });
  const parts = [enc.encode(open.slice(0, -2))];
  for (let i = 0; i < notes.length; i += NOTES_STEP) {
    // What the path and the order give is left out (`storedNote`); `restoreNotes` puts it back.
    const block = notes.slice(i, i + NOTES_STEP).map((n) => JSON.stringify(storedNote(n))).join(',');
    parts.push(enc.encode(i === 0 ? block : `,${block}`));
    yield;
  }
  parts.push(enc.encode(']}'));
  return parts;
}

/**
 * `texts.slice(0, count).join(separator)` encoded as UTF-8, a block at a time (the chunk texts are megabytes, the body
 * terms one), cut only where no surrogate pair is split.
 */
function* joinedParts(texts: string[], count: number, separator: string): Generator<void, Uint8Array[]> {
  const parts: Uint8Array[] = [];
  let from = 0;
  let chars = 0;
  for (let c = 0; c < count; c++) {
    chars += texts[c].length + separator.length;
    if (chars < TEXT_STEP && c < count - 1) continue;
    const block = texts.slice(from, c + 1).join(separator);
    const last = block.charCodeAt(block.length - 1);
    if (c < count - 1 && separator === '' && last >= 0xd800 && last <= 0xdbff) continue;
    parts.push(enc.encode(from > 0 ? `${separator}${block}` : block));
    from = c + 1;
    chars = 0;
    yield;
  }
  return parts;
}

type StoredNote = Omit<IndexedNote, 'folder' | 'firstChunk'>;

function storedNote(n: IndexedNote): StoredNote {
  const { folder: _folder, firstChunk: _first, ...rest } = n;
  return rest;
}

/**
 * The note table as the index holds it, in place and in steps: folders from the paths, first chunks by counting (the
 * notes are in chunk order).
 */
function* restoreNotes(stored: StoredNote[], chunks: number): Generator<void, IndexedNote[]> {
  let first = 0;
  for (let i = 0; i < stored.length; i++) {
    const n = stored[i] as IndexedNote;
    if (typeof n?.path !== 'string' || !Number.isInteger(n.chunkCount) || n.chunkCount < 0) throw corrupt('a note of the table is unreadable');
    const slash = n.path.lastIndexOf('/');
    n.folder = slash < 0 ? '' : n.path.slice(0, slash);
    n.firstChunk = first;
    first += n.chunkCount;
    if ((i + 1) % NOTES_STEP === 0) yield;
  }
  if (first !== chunks) throw corrupt('the note table does not cover the chunks');
  return stored as IndexedNote[];
}

/** Encodes in steps (sections, term blocks, the checksum), so a UI thread gets turns while a large snapshot is written. */
export function* encodeSnapshot(text: TextIndex, vectors: VectorStore | null, modelId: string | null): Generator<void, Uint8Array> {
  // The file holds live slots only, so dead ones must go first, vectors or not (the postings name slot numbers).
  if (text.deadNotes > 0) {
    const chunkMap = text.compact();
    vectors?.compact(chunkMap);
  }
  const w = new Writer();
  w.raw(MAGIC);
  w.u32(SNAPSHOT_FORMAT_VERSION);
  const header: SnapshotHeader = {
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    modelId: vectors ? modelId : null,
    dimension: vectors?.dimension ?? 0,
    createdAt: Date.now(),
    chunks: text.chunkCount,
    notes: text.notes.filter((n): n is IndexedNote => n !== null),
  };
  w.sectionOf(yield* headerParts(header));
  // Chunk texts as one UTF-8 blob plus UTF-16 end offsets: decoding it once and slicing is far faster than JSON.
  w.section(enc.encode(JSON.stringify(text.chunkHeading.slice(0, text.chunkCount))));
  const ends = new Uint32Array(text.chunkCount);
  let end = 0;
  for (let c = 0; c < text.chunkCount; c++) {
    end += text.chunkText[c].length;
    ends[c] = end;
  }
  w.typed(ends);
  w.sectionOf(yield* joinedParts(text.chunkText, text.chunkCount, ''));
  yield;
  for (const f of FIELDS) {
    yield* writeField(w, text.fields[f], f === 'body' ? text.chunkCount : header.notes.length);
    yield;
  }
  w.section(text.lines.encode());
  if (vectors) {
    w.typed(vectors.has.slice(0, text.chunkCount));
    w.typed(vectors.data.subarray(0, text.chunkCount * vectors.dimension));
  }
  return yield* w.finish();
}

function* writeField(w: Writer, f: FieldIndex, docs: number): Generator<void, void> {
  const terms: string[] = [];
  const counts = new Uint32Array(f.terms.size);
  let total = 0;
  for (const [t, p] of f.terms) {
    counts[terms.length] = p.n;
    terms.push(t);
    total += p.n;
  }
  const ids = new Int32Array(total);
  const tfs = new Uint16Array(total);
  let off = 0;
  let done = 0;
  for (const p of f.terms.values()) {
    // Ids ascend: each is stored as its gap from the one before (small numbers a deflate packs tightly).
    let prev = 0;
    for (let i = 0; i < p.n; i++) {
      ids[off + i] = p.ids[i] - prev;
      prev = p.ids[i];
    }
    tfs.set(p.tfs.subarray(0, p.n), off);
    off += p.n;
    if (++done % TERMS_STEP === 0) yield;
  }
  w.sectionOf(yield* joinedParts(terms, terms.length, '\n'));
  w.typed(counts);
  w.typed(ids);
  w.typed(tfs);
  w.typed(f.lengths.slice(0, docs));
}

function* readField(r: Reader, f: FieldIndex, docs: number): Generator<void, void> {
  const termText = r.text();
  const terms = termText === '' ? [] : termText.split('\n');
  const counts = r.u32s();
  const ids = r.i32();
  const tfs = r.u16();
  const lengths = r.f32();
  if (counts.length !== terms.length || ids.length !== tfs.length || lengths.length !== docs) throw corrupt('field tables disagree');
  let off = 0;
  let since = 0;
  for (let i = 0; i < terms.length; i++) {
    const n = counts[i];
    if (off + n > ids.length) throw corrupt('postings run past their table');
    // Gaps back to ids (writeField); a gap below 1 after the first would break the ascending order search relies on.
    let id = 0;
    for (let j = off; j < off + n; j++) {
      const gap = ids[j];
      if (gap < (j === off ? 0 : 1) || gap > docs) throw corrupt('a posting list is out of order');
      id += gap;
      ids[j] = id;
    }
    if (n > 0 && id >= docs) throw corrupt('a posting names no document');
    f.terms.set(terms[i], new Posting(ids.subarray(off, off + n), tfs.subarray(off, off + n), n));
    off += n;
    since += n;
    if ((i + 1) % TERMS_STEP === 0 || since >= POSTINGS_STEP) {
      since = 0;
      yield;
    }
  }
  f.lengths = lengths.length > 0 ? lengths : new Float32Array(1024);
  f.liveDocs = docs;
  let total = 0;
  for (let i = 0; i < lengths.length; i++) total += lengths[i];
  f.totalLength = total;
}

/** Reads only the header (for `status` and to decide whether the model changed). Throws on anything off. */
export function verifySnapshot(bytes: Uint8Array): SnapshotHeader {
  return runSync(verifySteps(bytes));
}

function* verifySteps(bytes: Uint8Array): Generator<void, SnapshotHeader> {
  if (bytes.length < MAGIC.length + 16) throw corrupt('too short');
  const magic = dec.decode(bytes.subarray(0, 8));
  if (magic === PACKED_MAGIC) throw new EngramError('format-version', 'a packed index snapshot must be unpacked first (unpackSnapshot)');
  if (magic !== MAGIC) throw new EngramError('format-version', 'not an Engram index snapshot; it will be rebuilt');
  const r = new Reader(bytes, bytes.length - 8);
  r.off = 8;
  const version = r.u32();
  if (version !== SNAPSHOT_FORMAT_VERSION) {
    throw new EngramError('format-version', `index snapshot format ${version} is not ${SNAPSHOT_FORMAT_VERSION}; it will be rebuilt`);
  }
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [a, b] = yield* checksumSteps(bytes, bytes.length - 8);
  if (v.getUint32(bytes.length - 8, true) !== a || v.getUint32(bytes.length - 4, true) !== b) throw corrupt('checksum mismatch');
  let header: SnapshotHeader;
  try {
    header = (yield* parseJsonSteps(r.section(), 'notes', 256)) as SnapshotHeader;
  } catch {
    throw corrupt('unreadable header');
  }
  if (!Array.isArray(header.notes) || typeof header.chunks !== 'number') throw corrupt('header lacks the note table');
  yield;
  header.notes = yield* restoreNotes(header.notes, header.chunks);
  header.formatVersion = version;
  return header;
}

/** Loads a verified snapshot into empty structures. */
export function* decodeSnapshot(bytes: Uint8Array, text: TextIndex): Generator<void, { header: SnapshotHeader; vectors: VectorStore | null }> {
  const header = yield* verifySteps(bytes);
  yield;
  const r = new Reader(bytes, bytes.length - 8);
  r.off = 12;
  r.section();
  const headings = JSON.parse(r.text()) as (string | null)[];
  const ends = r.u32s();
  yield;
  const pieces = yield* r.textPieces();
  const length = pieces.reduce((n, p) => n + p.length, 0);
  if (headings.length !== header.chunks || ends.length !== header.chunks || (ends.length > 0 && ends[ends.length - 1] !== length)) throw corrupt('chunk table');
  const texts = new Array<string>(ends.length);
  const links = new Uint8Array(Math.max(1024, header.chunks));
  // Each passage sliced out of the decoded pieces (`piece` starts at character `base` of the whole).
  let piece = 0;
  let base = 0;
  for (let c = 0, start = 0, since = 0; c < ends.length; start = ends[c], c++) {
    while (piece < pieces.length - 1 && start >= base + pieces[piece].length) base += pieces[piece++].length;
    let t = pieces[piece]?.slice(start - base, ends[c] - base) ?? '';
    for (let p = piece, b = base; p < pieces.length - 1 && b + pieces[p].length < ends[c]; ) {
      b += pieces[p++].length;
      t += pieces[p].slice(0, ends[c] - b);
    }
    texts[c] = t;
    // Read again from the text rather than stored: one regex pass over passages that hold a link at all.
    if ((texts[c].includes('[') || texts[c].includes('http')) && isLinkList(texts[c])) links[c] = 1;
    since += ends[c] - start;
    if ((c + 1) % 512 === 0 || since >= CHARS_STEP) {
      since = 0;
      yield;
    }
  }
  yield;
  for (const f of FIELDS) {
    yield* readField(r, text.fields[f], f === 'body' ? header.chunks : header.notes.length);
    yield;
  }
  text.notes = header.notes;
  text.slotOf.clear();
  const chunkNote = new Int32Array(Math.max(1024, header.chunks));
  for (let slot = 0; slot < header.notes.length; slot++) {
    const n = header.notes[slot];
    text.slotOf.set(n.path, slot);
    for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) chunkNote[c] = slot;
    if ((slot + 1) % NOTES_STEP === 0) yield;
  }
  yield;
  text.chunkNote = chunkNote;
  text.chunkLinks = links;
  text.chunkHeading = headings.map((h) => h ?? undefined);
  text.chunkText = texts;
  text.chunkCount = header.chunks;
  const lines = yield* LineSketch.decode(r.section());
  if (!lines) throw corrupt('the line sketch is unreadable');
  text.lines = lines;
  let vectors: VectorStore | null = null;
  if (header.dimension > 0) {
    const has = new Uint8Array(r.section().slice());
    const data = r.f32();
    if (has.length !== header.chunks || data.length !== header.chunks * header.dimension) throw corrupt('vector table size');
    vectors = VectorStore.from(header.dimension, has, data, header.chunks);
  }
  return { header, vectors };
}

/** The file a host writes: the snapshot deflated behind its own magic and version (a third of the size or less). */
export async function packSnapshot(raw: Uint8Array): Promise<Uint8Array> {
  const body = await through(raw, new CompressionStream('deflate-raw'));
  const out = new Uint8Array(12 + body.length);
  out.set(enc.encode(PACKED_MAGIC), 0);
  new DataView(out.buffer).setUint32(8, SNAPSHOT_FORMAT_VERSION, true);
  out.set(body, 12);
  return out;
}

/**
 * The raw snapshot inside a packed one (a raw one is returned as it is). The version is read before anything is
 * inflated, so an old file is refused at once; a damaged one is refused as damaged.
 */
export async function unpackSnapshot(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.length < 12 || dec.decode(bytes.subarray(0, 8)) !== PACKED_MAGIC) return bytes;
  const version = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (version !== SNAPSHOT_FORMAT_VERSION) {
    throw new EngramError('format-version', `index snapshot format ${version} is not ${SNAPSHOT_FORMAT_VERSION}; it will be rebuilt`);
  }
  try {
    return await through(bytes.subarray(12), new DecompressionStream('deflate-raw'));
  } catch {
    throw corrupt('its compressed data does not inflate');
  }
}
