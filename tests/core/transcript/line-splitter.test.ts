import { describe, expect, it } from 'vitest';
import { splitLines, chunksOf, type Line } from '../../../src/core/transcript/line-splitter.js';
import { chunked } from './helpers.js';

async function collect(src: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts = {}): Promise<Line[]> {
  const out: Line[] = [];
  for await (const l of splitLines(src, opts)) out.push(l);
  return out;
}

const enc = new TextEncoder();

describe('splitLines', () => {
  it('gives exact byte offsets, whatever the chunk sizes', async () => {
    const text = 'first\nsécond ünïcode 🚀\n\nlast line';
    const bytes = enc.encode(text);
    for (const sizes of [[1], [2, 3], [5], [1024]]) {
      const lines = await collect(chunked(bytes, sizes));
      expect(lines.map((l) => l.text)).toEqual(['first', 'sécond ünïcode 🚀', '', 'last line']);
      for (const l of lines) {
        // The offset points at the line's bytes in the file.
        const slice = new TextDecoder().decode(bytes.subarray(l.offset, l.offset + l.byteLength)).replace(/\n$/, '');
        expect(slice).toBe(l.text);
      }
      expect(lines.at(-1)!.unterminated).toBe(true);
      expect(lines.reduce((n, l) => n + l.byteLength, 0)).toBe(bytes.length);
    }
  });

  it('decodes a character split across chunks whole', async () => {
    const bytes = enc.encode('🚀é\n');
    const lines = await collect(chunked(bytes, [1]));
    expect(lines[0]!.text).toBe('🚀é');
  });

  it('strips CR of CRLF endings but counts its byte', async () => {
    const lines = await collect(chunksOf('a\r\nb\r\n'));
    expect(lines.map((l) => [l.text, l.offset, l.byteLength])).toEqual([
      ['a', 0, 3],
      ['b', 3, 3],
    ]);
  });

  it('adds the start offset when the host starts mid-file', async () => {
    const lines = await collect(chunksOf('x\ny\n'), { startOffset: 1000 });
    expect(lines.map((l) => l.offset)).toEqual([1000, 1002]);
  });

  it('skips a line over the limit without buffering it, and keeps counting offsets', async () => {
    const big = 'z'.repeat(5000);
    const bytes = enc.encode(`short\n${big}\nafter\n${big}`);
    const lines = await collect(chunked(bytes, [333]), { maxLineBytes: 1000 });
    expect(lines.map((l) => l.text)).toEqual(['short', null, 'after', null]);
    expect(lines[2]!.offset).toBe(6 + 5001);
    expect(lines[3]!.byteLength).toBe(5000);
  });

  it('handles lines of several MB', async () => {
    const big = 'y'.repeat(6 * 1024 * 1024);
    const lines = await collect(chunksOf(`${big}\nend\n`, 65536));
    expect(lines[0]!.text!.length).toBe(big.length);
    expect(lines[1]).toMatchObject({ text: 'end', offset: big.length + 1 });
  });

  it('yields nothing for an empty stream', async () => {
    expect(await collect(chunksOf(''))).toEqual([]);
  });
});
