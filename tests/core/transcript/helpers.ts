// Shared bits for the transcript tests: fixture paths, chunked input, a seeded RNG.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../helpers/shared.js';

export const fixturesDir = path.join(repoRoot, 'tests', 'fixtures', 'transcripts');

export function fixture(name: string): string {
  return path.join(fixturesDir, name);
}

export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(fixture(name)));
}

/** Splits bytes into chunks of the given sizes (cycled), to exercise chunk boundaries. */
export function* chunked(bytes: Uint8Array, sizes: number[] = [7]): Generator<Uint8Array> {
  let i = 0;
  let k = 0;
  while (i < bytes.length) {
    const n = Math.max(1, sizes[k++ % sizes.length]!);
    // Fresh copies: a reader must not keep references into a reused buffer.
    yield bytes.slice(i, i + n);
    i += n;
  }
}

export { rng } from '../../../src/core/rng.js';

export function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)]!;
}

export function randomString(r: () => number, n: number, alphabet: string): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const HEX = '0123456789abcdef';
export const B64 = `${ALNUM}+/`;
export const URLSAFE = `${ALNUM}-_`;
