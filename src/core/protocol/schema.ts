// A tiny validator for protocol params: small enough for the hook bundle (no zod on the hot path).

export type Check<T> = (v: unknown, path: string) => T;

export class ParamError extends Error {}

/** An object's type from its checks: a field whose check may answer undefined is optional. */
type Shaped<S extends Record<string, Check<unknown>>> = {
  [K in keyof S as undefined extends ReturnType<S[K]> ? never : K]: ReturnType<S[K]>;
} & {
  [K in keyof S as undefined extends ReturnType<S[K]> ? K : never]?: ReturnType<S[K]>;
};

function fail(path: string, what: string): never {
  throw new ParamError(`${path}: ${what}`);
}

type Bounds = { min?: number; max?: number };

function inBounds(x: number, opts: Bounds, path: string): number {
  if (opts.min !== undefined && x < opts.min) fail(path, `at least ${opts.min}`);
  if (opts.max !== undefined && x > opts.max) fail(path, `at most ${opts.max}`);
  return x;
}

export const v = {
  string(opts: { min?: number; max?: number } = {}): Check<string> {
    return (x, p) => {
      if (typeof x !== 'string') fail(p, 'expected a string');
      if (opts.min !== undefined && x.length < opts.min) fail(p, `at least ${opts.min} characters`);
      if (opts.max !== undefined && x.length > opts.max) fail(p, `at most ${opts.max} characters`);
      return x;
    };
  },
  int(opts: Bounds = {}): Check<number> {
    return (x, p) => inBounds(typeof x === 'number' && Number.isInteger(x) ? x : fail(p, 'expected an integer'), opts, p);
  },
  number(opts: Bounds = {}): Check<number> {
    return (x, p) => inBounds(typeof x === 'number' && Number.isFinite(x) ? x : fail(p, 'expected a number'), opts, p);
  },
  boolean(): Check<boolean> {
    return (x, p) => (typeof x === 'boolean' ? x : fail(p, 'expected true or false'));
  },
  oneOf<T extends string>(values: readonly T[]): Check<T> {
    return (x, p) => (typeof x === 'string' && (values as readonly string[]).includes(x) ? (x as T) : fail(p, `one of ${values.join(', ')}`));
  },
  array<T>(item: Check<T>, max = 100): Check<T[]> {
    return (x, p) => {
      if (!Array.isArray(x)) fail(p, 'expected a list');
      if (x.length > max) fail(p, `at most ${max} items`);
      return x.map((e, i) => item(e, `${p}[${i}]`));
    };
  },
  /** Any JSON value (configure's value); size-limited by the frame limit. */
  json(): Check<unknown> {
    return (x) => x;
  },
  optional<T>(c: Check<T>): Check<T | undefined> {
    return (x, p) => (x === undefined || x === null ? undefined : c(x, p));
  },
  object<S extends Record<string, Check<unknown>>>(shape: S): Check<Shaped<S>> {
    return (x, p) => {
      const obj = x === undefined ? {} : x;
      if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail(p, 'expected an object');
      const rec = obj as Record<string, unknown>;
      for (const k of Object.keys(rec)) if (!(k in shape)) fail(`${p}.${k}`, 'unknown field');
      const out: Record<string, unknown> = {};
      for (const [k, check] of Object.entries(shape)) {
        const val = check(rec[k], `${p}.${k}`);
        if (val !== undefined) out[k] = val;
      }
      return out as Shaped<S>;
    };
  },
};
