// The snapshot's bytes (snapshot.ts): a writer and a reader of its sections, in steps, the checksum over them, and the
// (de)compression stream the packed file goes through.
import { EngramError } from '../errors.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Characters (or bytes) of text encoded or decoded between two steps. */
export const TEXT_STEP = 1 << 18;

/** Word pairs summed between two steps of the checksum (256 KB). */
const CHECKSUM_STEP = 1 << 15;

/**
 * Two 32-bit multiply-rotate lanes, one over even and one over odd words (independent, so the CPU runs them side by
 * side), finished over the tail bytes and the length: catches truncation and corruption quickly (not a MAC). In steps,
 * so a host's UI gets turns while a large snapshot is summed.
 */
export function* checksumSteps(bytes: Uint8Array, end: number): Generator<void, [number, number]> {
  let h1 = 0x9e3779b1 ^ end;
  let h2 = 0x85ebca77;
  const words = end >> 2;
  const aligned = bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, words) : new Uint32Array(bytes.slice(0, words * 4).buffer);
  let i = 0;
  while (i + 1 < words) {
    const stop = Math.min(words - 1, i + 2 * CHECKSUM_STEP);
    for (; i + 1 < words && i < stop; i += 2) {
      h1 = Math.imul(h1 ^ aligned[i], 0xcc9e2d51);
      h1 = (h1 << 15) | (h1 >>> 17);
      h2 = Math.imul(h2 ^ aligned[i + 1], 0x1b873593);
      h2 = (h2 << 13) | (h2 >>> 19);
    }
    yield;
  }
  if (i < words) h1 = Math.imul(h1 ^ aligned[i], 0xcc9e2d51);
  for (let j = words * 4; j < end; j++) h2 = Math.imul(h2 ^ bytes[j], 0x1b873593);
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b);
  h2 = Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  return [(h1 ^ (h2 >>> 11)) >>> 0, (h2 ^ (h1 >>> 7)) >>> 0];
}

export class Writer {
  parts: Uint8Array[] = [];
  size = 0;
  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.size += b.length;
  }
  raw(s: string): void {
    this.push(enc.encode(s));
  }
  u32(n: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n, true);
    this.push(b);
  }
  /** A length-prefixed section padded to 4 bytes, so typed arrays can view it in place. */
  section(b: Uint8Array): void {
    this.sectionOf([b]);
  }
  /** One section written from parts (a large text encoded piece by piece). */
  sectionOf(parts: Uint8Array[]): void {
    const length = parts.reduce((n, p) => n + p.length, 0);
    this.u32(length);
    for (const p of parts) this.push(p);
    const pad = (4 - (length % 4)) % 4;
    if (pad) this.push(new Uint8Array(pad));
  }
  typed(a: Int32Array | Uint16Array | Float32Array | Uint8Array | Uint32Array): void {
    this.section(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }
  /** The file: every part, then the checksum (in steps: the parts and the sum are tens of MB for a large vault). */
  *finish(): Generator<void, Uint8Array> {
    const out = new Uint8Array(this.size + 8);
    let off = 0;
    for (const p of this.parts) {
      out.set(p, off);
      off += p.length;
      if (p.length > 1 << 20) yield;
    }
    const [a, b] = yield* checksumSteps(out, this.size);
    const v = new DataView(out.buffer);
    v.setUint32(this.size, a, true);
    v.setUint32(this.size + 4, b, true);
    return out;
  }
}

export class Reader {
  off = 0;
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array, readonly end: number) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u32(): number {
    if (this.off + 4 > this.end) throw corrupt('ends early');
    const n = this.view.getUint32(this.off, true);
    this.off += 4;
    return n;
  }
  section(): Uint8Array {
    const len = this.u32();
    if (this.off + len > this.end) throw corrupt('a section runs past the end');
    const b = this.bytes.subarray(this.off, this.off + len);
    this.off += len + ((4 - (len % 4)) % 4);
    return b;
  }
  private aligned(b: Uint8Array, size: number): ArrayBuffer {
    if (b.length % size !== 0) throw corrupt('a table has a partial entry');
    // Copy: the views must not pin the whole file buffer, and the byte offset may be unaligned.
    return b.slice().buffer;
  }
  i32(): Int32Array {
    return new Int32Array(this.aligned(this.section(), 4));
  }
  u16(): Uint16Array {
    return new Uint16Array(this.aligned(this.section(), 2));
  }
  f32(): Float32Array {
    return new Float32Array(this.aligned(this.section(), 4));
  }
  u32s(): Uint32Array {
    return new Uint32Array(this.aligned(this.section(), 4));
  }
  text(): string {
    return dec.decode(this.section());
  }
  /**
   * A large text section, decoded in pieces of about TEXT_STEP bytes, each cut where a character starts (UTF-8: not
   * before a continuation byte), one step each. The pieces are never joined: copying megabytes of text into one string
   * is itself a long block.
   */
  *textPieces(): Generator<void, string[]> {
    const b = this.section();
    const out: string[] = [];
    for (let off = 0; off < b.length; ) {
      let end = Math.min(b.length, off + TEXT_STEP);
      while (end < b.length && end > off && (b[end] & 0xc0) === 0x80) end--;
      out.push(dec.decode(b.subarray(off, end)));
      off = end;
      yield;
    }
    return out;
  }
}

/** Bytes handed to a (de)compression stream at a time, so neither side holds the whole file twice at once. */
const PACK_STEP = 1 << 20;

/** Runs bytes through a CompressionStream or DecompressionStream (web standards: Node 18+, Electron), in pieces. */
export async function through(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  const writing = (async () => {
    for (let off = 0; off < bytes.length; off += PACK_STEP) {
      await writer.ready;
      await writer.write(bytes.subarray(off, off + PACK_STEP) as Uint8Array<ArrayBuffer>);
    }
    await writer.close();
  })();
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      const chunk: Uint8Array = r.value;
      parts.push(chunk);
      size += chunk.length;
    }
    await writing;
  } catch (e) {
    writing.catch(() => undefined);
    throw e;
  }
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

export function corrupt(why: string): EngramError {
  return new EngramError('format-version', `index snapshot is damaged (${why}); it will be rebuilt`);
}

