// A tiny WebAssembly SIMD kernel for the vector scan: dot products of one query with every stored row, four f32x4
// accumulators per row. JS scalar loops are latency-bound here; this is several times faster. The module is
// assembled below (about 150 bytes, no toolchain); where WebAssembly SIMD is unavailable the store uses its JS loop.

const I32 = 0x7f;
const V128 = 0x7b;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const simd = (op: number): number[] => [0xfd, ...uleb(op)];
const get = (i: number): number[] => [0x20, i];
const set = (i: number): number[] => [0x21, i];
/** i32.const takes a signed LEB128 (64 needs two bytes: a lone 0x40 would read as -64). */
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}
const i32c = (v: number): number[] => [0x41, ...sleb(v)];
/** v128.load with a 4-byte alignment hint and a byte offset. */
const load = (offset: number): number[] => [...simd(0x00), 2, ...uleb(offset)];

// Parameters: 0 q, 1 data, 2 rows, 3 dim, 4 out (byte addresses; dim a multiple of 16).
// Locals: 5 r, 6 i, 7 row pointer, 8 row bytes, 9-12 accumulators.
const [Q, DATA, ROWS, DIM, OUT, R, I, P, RB] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const ACC = [9, 10, 11, 12];

function body(): number[] {
  const code: number[] = [];
  code.push(...get(DIM), ...i32c(2), 0x74, ...set(RB)); // rb = dim << 2
  code.push(...get(DATA), ...set(P), ...i32c(0), ...set(R));
  code.push(0x02, 0x40, 0x03, 0x40); // block, loop
  code.push(...get(R), ...get(ROWS), 0x4e, 0x0d, 1); // if r >= rows: break
  for (const a of ACC) code.push(...simd(0x0c), ...new Array<number>(16).fill(0), ...set(a));
  code.push(...i32c(0), ...set(I));
  code.push(0x03, 0x40); // inner loop over the row, 64 bytes a step
  ACC.forEach((a, k) => {
    code.push(...get(a));
    code.push(...get(Q), ...get(I), 0x6a, ...load(16 * k));
    code.push(...get(P), ...get(I), 0x6a, ...load(16 * k));
    code.push(...simd(0xe6), ...simd(0xe4), ...set(a)); // a += q * d
  });
  code.push(...get(I), ...i32c(64), 0x6a, 0x22, I, ...get(RB), 0x48, 0x0d, 0, 0x0b); // i += 64; loop while i < rb
  code.push(...get(OUT), ...get(R), ...i32c(2), 0x74, 0x6a); // address out + r*4
  code.push(...get(ACC[0]), ...get(ACC[1]), ...simd(0xe4), ...get(ACC[2]), ...simd(0xe4), ...get(ACC[3]), ...simd(0xe4), ...set(ACC[0]));
  code.push(...get(ACC[0]), ...simd(0x1f), 0);
  for (const lane of [1, 2, 3]) code.push(...get(ACC[0]), ...simd(0x1f), lane, 0x92);
  code.push(0x38, 2, 0); // f32.store
  code.push(...get(P), ...get(RB), 0x6a, ...set(P), ...get(R), ...i32c(1), 0x6a, ...set(R), 0x0c, 0, 0x0b, 0x0b); // next row
  code.push(0x0b); // end of function
  const locals = [2, 4, I32, 4, V128];
  const fn = [...locals, ...code];
  return [1, ...uleb(fn.length), ...fn];
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
    ...section(2, [1, 1, 0x65, 1, 0x6d, 0x02, 0x00, 0x01]), // import memory e.m, min 1 page
    ...section(3, [1, 0]),
    ...section(7, [1, 1, 0x73, 0x00, 0x00]), // export "s" = function 0
    ...section(10, body()),
  ]);
}

export interface ScanKernel {
  memory: WebAssembly.Memory;
  /** Scores `rows` rows starting at byte `data` against the query at byte `q` into `out`. */
  scan(q: number, data: number, rows: number, dim: number, out: number): void;
}

let cached: ScanKernel | null | undefined;

/** A fresh kernel instance with its own memory, or null where WebAssembly SIMD is not available. */
export function createScanKernel(): ScanKernel | null {
  if (cached === null) return null;
  try {
    const mod = new WebAssembly.Module(moduleBytes());
    const memory = new WebAssembly.Memory({ initial: 1 });
    const inst = new WebAssembly.Instance(mod, { e: { m: memory } });
    const scan = inst.exports.s as ScanKernel['scan'];
    cached = undefined;
    return { memory, scan };
  } catch {
    cached = null;
    return null;
  }
}
