// A tiny validator for protocol params: small enough for the hook bundle (no zod on the hot path).

/**
 * What a check accepts, as data: a client that states its own schema (the MCP server's tool inputs) derives it from
 * this, so the bounds are written once, here.
 */
export type Spec =
  | { kind: 'string'; min?: number; max?: number }
  | { kind: 'int' | 'number'; min?: number; max?: number }
  | { kind: 'boolean' }
  | { kind: 'oneOf'; values: readonly string[] }
  | { kind: 'array'; item: Spec; max: number }
  | { kind: 'json' }
  | { kind: 'optional'; inner: Spec }
  | { kind: 'object'; shape: Record<string, Spec> };

export type Check<T> = ((v: unknown, path: string) => T) & { readonly spec: Spec };

const check = <T>(spec: Spec, fn: (v: unknown, path: string) => T): Check<T> => Object.assign(fn, { spec });

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
    return check({ kind: 'string', ...opts }, (x, p) => {
      if (typeof x !== 'string') fail(p, 'expected a string');
      if (opts.min !== undefined && x.length < opts.min) fail(p, `at least ${opts.min} characters`);
      if (opts.max !== undefined && x.length > opts.max) fail(p, `at most ${opts.max} characters`);
      return x;
    });
  },
  int(opts: Bounds = {}): Check<number> {
    return check({ kind: 'int', ...opts }, (x, p) => inBounds(typeof x === 'number' && Number.isInteger(x) ? x : fail(p, 'expected an integer'), opts, p));
  },
  number(opts: Bounds = {}): Check<number> {
    return check({ kind: 'number', ...opts }, (x, p) => inBounds(typeof x === 'number' && Number.isFinite(x) ? x : fail(p, 'expected a number'), opts, p));
  },
  boolean(): Check<boolean> {
    return check({ kind: 'boolean' }, (x, p) => (typeof x === 'boolean' ? x : fail(p, 'expected true or false')));
  },
  oneOf<T extends string>(values: readonly T[]): Check<T> {
    return check({ kind: 'oneOf', values }, (x, p) => (typeof x === 'string' && (values as readonly string[]).includes(x) ? (x as T) : fail(p, `one of ${values.join(', ')}`)));
  },
  array<T>(item: Check<T>, max = 100): Check<T[]> {
    return check({ kind: 'array', item: item.spec, max }, (x, p) => {
      if (!Array.isArray(x)) fail(p, 'expected a list');
      if (x.length > max) fail(p, `at most ${max} items`);
      return x.map((e, i) => item(e, `${p}[${i}]`));
    });
  },
  /** Any JSON value (configure's value); size-limited by the frame limit. */
  json(): Check<unknown> {
    return check({ kind: 'json' }, (x) => x);
  },
  optional<T>(c: Check<T>): Check<T | undefined> {
    return check({ kind: 'optional', inner: c.spec }, (x, p) => (x === undefined || x === null ? undefined : c(x, p)));
  },
  object<S extends Record<string, Check<unknown>>>(shape: S): Check<Shaped<S>> {
    const specs = Object.fromEntries(Object.entries(shape).map(([k, c]) => [k, c.spec]));
    return check({ kind: 'object', shape: specs }, (x, p) => {
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
    });
  },
};
