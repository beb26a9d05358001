// MCP tool inputs derive from the protocol's params: the schema an agent is shown accepts exactly what the host checks.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkParams, paramFields, type Method, type Spec } from '../../src/core/protocol/index.js';
import { zodOf } from '../../sidecar/mcp/tool-input.js';

const accepts = (method: Method, value: unknown): boolean => {
  try {
    checkParams(method, value);
    return true;
  } catch {
    return false;
  }
};

const samples: [Method, unknown][] = [
  ['recall', { query: 'socket' }],
  ['recall', { query: '' }],
  ['recall', { query: 'x'.repeat(4001) }],
  ['recall', { query: 'q', limit: 50 }],
  ['recall', { query: 'q', limit: 51 }],
  ['recall', { query: 'q', limit: 2.5 }],
  ['recall', { query: 'q', types: Array(21).fill('decision') }],
  ['recall', { query: 'q', allProjects: 'yes' }],
  ['remember', { text: 'a fact', scope: 'general', onDuplicate: 'extend' }],
  ['remember', { text: 'a fact', scope: 'everywhere' }],
  ['remember', { text: 'a fact', tags: ['x'.repeat(65)] }],
  ['forget', { ref: 'Note' }],
  ['forget', { ref: 'x'.repeat(1025) }],
  ['curate.apply', { ids: ['1a2b'] }],
  ['curate.apply', { ids: [''] }],
  ['restructure.plan', { threshold: 1.5 }],
];

describe('MCP tool inputs from the protocol', () => {
  it.each(samples)('%s %j: the derived schema and the host agree', (method, value) => {
    const schema = z.object(Object.fromEntries(Object.entries(paramFields(method) as Record<string, Spec>).map(([k, s]) => [k, zodOf(s)])));
    expect(schema.safeParse(value).success).toBe(accepts(method, value));
  });

  it('states the bounds the host checks', () => {
    const limit = zodOf(paramFields('recall').limit);
    expect(limit.safeParse(8).success).toBe(true);
    expect(limit.safeParse(undefined).success).toBe(true);
    expect(limit.safeParse(0).success).toBe(false);
  });
});
