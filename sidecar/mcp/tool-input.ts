// MCP tool inputs derived from the protocol's params (src/core/protocol/messages.ts): the bounds are written once, and
// the SDK's schema for a tool is the host's own check, described for the agent.
import { z, type ZodType } from 'zod';
import { paramFields, type Method, type Params, type Spec } from '../../src/core/protocol/index.js';

/** The zod type that accepts what the protocol's check accepts (`json`: any value; the host checks it). */
export function zodOf(spec: Spec): ZodType {
  switch (spec.kind) {
    case 'string': {
      let s = z.string();
      if (spec.min !== undefined) s = s.min(spec.min);
      if (spec.max !== undefined) s = s.max(spec.max);
      return s;
    }
    case 'int':
    case 'number': {
      let n = spec.kind === 'int' ? z.number().int() : z.number();
      if (spec.min !== undefined) n = n.min(spec.min);
      if (spec.max !== undefined) n = n.max(spec.max);
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'oneOf':
      return z.enum(spec.values as [string, ...string[]]);
    case 'array':
      return z.array(zodOf(spec.item)).max(spec.max);
    case 'json':
      return z.unknown();
    case 'optional':
      return zodOf(spec.inner).optional();
    case 'object':
      return z.object(Object.fromEntries(Object.entries(spec.shape).map(([k, s]) => [k, zodOf(s)])));
  }
}

type Field<M extends Method> = keyof Params<M> & string;

/**
 * One field of a method's params as a tool input, with what the agent reads about it. Its type is the param's own:
 * zodOf accepts exactly what the check does, which the compiler cannot see through a Spec.
 */
export function param<M extends Method, F extends Field<M>>(method: M, field: F, describe?: string): ZodType<Params<M>[F]> {
  const t = zodOf(paramFields(method)[field]);
  return (describe ? t.describe(describe) : t) as ZodType<Params<M>[F]>;
}

/** Fields of a method's params under the same names, each with its description (null: none). */
export function params<M extends Method, D extends Partial<Record<Field<M>, string | null>>>(method: M, described: D): { [F in keyof D & Field<M>]: ZodType<Params<M>[F]> } {
  const out: Record<string, ZodType> = {};
  for (const [field, d] of Object.entries(described)) out[field] = param(method, field as Field<M>, (d as string | null) ?? undefined);
  return out as { [F in keyof D & Field<M>]: ZodType<Params<M>[F]> };
}

/** One id of `curate.apply`'s ids: what the review and restructure tools take as `show` and `apply`. */
export function proposalId(): ZodType<string> {
  const ids = paramFields('curate.apply').ids;
  if (ids.kind !== 'array') throw new Error('curate.apply: ids is not a list');
  return zodOf(ids.item) as ZodType<string>;
}
