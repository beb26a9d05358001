import { describe, expect, it } from 'vitest';
import { LineDecoder, PROTOCOL_VERSION, checkParams, compareProtocol, encodeFrame, mismatchAdvice, parseFrame, request, ParamError } from '../../../src/core/protocol/index.js';

describe('JSON-RPC framing', () => {
  it('parses requests, notifications and responses, and reports everything else without throwing', () => {
    expect(parseFrame('{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}')).toMatchObject({ ok: true, message: { id: 1, method: 'ping' } });
    expect(parseFrame('{"jsonrpc":"2.0","method":"spool.notify"}')).toMatchObject({ ok: true, message: { method: 'spool.notify' } });
    expect(parseFrame('{"jsonrpc":"2.0","id":"a","result":null}')).toMatchObject({ ok: true });
    expect(parseFrame('{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"x"}}')).toMatchObject({ ok: true });
    for (const bad of ['', 'nope', '[]', '{"id":1,"method":"x"}', '{"jsonrpc":"1.0","id":1,"method":"x"}', '{"jsonrpc":"2.0","id":{},"method":"x"}', '{"jsonrpc":"2.0","id":1,"method":"x","params":3}', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":null,"method":"x"}']) {
      expect(parseFrame(bad).ok, bad).toBe(false);
    }
    expect(parseFrame('not json')).toMatchObject({ ok: false, code: -32700 });
  });

  it('splits a stream into lines across chunk boundaries and refuses an endless line', () => {
    const d = new LineDecoder(64);
    const frame = encodeFrame(request(1, 'ping', {}));
    expect(d.push(frame.slice(0, 10))).toEqual([]);
    expect(d.push(frame.slice(10) + frame)).toHaveLength(2);
    expect(d.push(new TextEncoder().encode('{"a":1}\r\n\n'))).toEqual(['{"a":1}']);
    expect(() => d.push('x'.repeat(65))).toThrow(/larger than/);
  });
});

describe('protocol versions', () => {
  it('only the major decides compatibility, and the advice names the side to update', () => {
    expect(compareProtocol(PROTOCOL_VERSION)).toBe('compatible');
    expect(compareProtocol('1.7', '1.0')).toBe('compatible');
    expect(compareProtocol('2.0', '1.3')).toBe('client-newer');
    expect(compareProtocol('0.9', '1.0')).toBe('host-newer');
    expect(compareProtocol('x', '1.0')).toBe('invalid');
    expect(compareProtocol(3, '1.0')).toBe('invalid');
    expect(mismatchAdvice('client-newer', '2.0', '1.0')).toMatch(/update the host/);
    expect(mismatchAdvice('host-newer', '1.0', '2.0')).toMatch(/update this engram CLI/);
  });
});

describe('params validation', () => {
  it('accepts good params, refuses unknown fields, wrong types and out-of-range values with a path', () => {
    expect(checkParams('recall', { query: 'x', limit: 3 })).toEqual({ query: 'x', limit: 3 });
    expect(checkParams('status', undefined)).toEqual({});
    const cases: [string, unknown][] = [
      ['recall', { query: '' }],
      ['recall', { query: 'x', limit: 0 }],
      ['recall', { query: 'x', limit: 1.5 }],
      ['recall', { query: 'x', extra: 1 }],
      ['hello', { token: 't' }],
      ['context', { event: 'Stop' }],
      ['remember', { text: 5 }],
      ['read', []],
    ];
    for (const [m, p] of cases) expect(() => checkParams(m as 'recall', p), JSON.stringify(p)).toThrow(ParamError);
    expect(() => checkParams('recall', { query: 'x', limit: 99 })).toThrow(/params\.limit: at most 50/);
    // Whole numbers and any numbers share their bounds; each names what it expected.
    expect(() => checkParams('recall', { query: 'x', limit: 2.5 })).toThrow(/params\.limit: expected an integer/);
    expect(checkParams('restructure.plan', { threshold: 0.9 })).toEqual({ threshold: 0.9 });
    expect(() => checkParams('restructure.plan', { threshold: 1.5 })).toThrow(/params\.threshold: at most 1/);
    expect(() => checkParams('restructure.plan', { threshold: '0.9' })).toThrow(/params\.threshold: expected a number/);
    expect(() => checkParams('restructure.plan', { threshold: Number.NaN })).toThrow(/expected a number/);
  });
});
