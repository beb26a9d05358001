// A large JSON object parsed in steps (the snapshot's note table, the engine's note cache) must give exactly what one
// JSON.parse gives, and refuse exactly what it refuses.
import { describe, expect, it } from 'vitest';
import { JSON_ELEMENT_SEPARATOR, parseJsonSteps } from '../../src/core/json-steps.js';
import { runSync } from '../../src/core/index/snapshot.js';

const bytes = (json: string): Uint8Array => new TextEncoder().encode(json);
const parse = (json: string, block = 2): unknown => {
  // The text and its UTF-8 bytes (as a snapshot holds its note table) parse alike.
  const value = runSync(parseJsonSteps(json, 'notes', block));
  expect(runSync(parseJsonSteps(bytes(json), 'notes', block))).toEqual(value);
  return value;
};

describe('parseJsonSteps', () => {
  it('gives what JSON.parse gives, whatever the notes hold (quotes, braces, commas, escapes, nesting)', () => {
    const notes = [
      { path: 'a "quoted", {braced} [note].md', links: ['x,y', '}', ']'], n: 1 },
      { path: 'back\\slash\\", then "notes":[ inside', tags: [], deep: { a: [[1, 2], { b: '},{' }] } },
      'a bare string, with a comma',
      42,
      null,
      [],
      { path: 'émoji 😀 and \u2028 line separator', time: -1.5e-7 },
    ];
    for (const head of [{ format: 1, terms: ['a', 'b,c'] }, { formatVersion: 4, modelId: '"notes":[', dimension: 0 }, {}]) {
      for (let n = 0; n <= notes.length; n++) {
        const json = JSON.stringify({ ...head, notes: notes.slice(0, n) });
        for (const block of [1, 2, 3, 1024]) expect(parse(json, block)).toEqual(JSON.parse(json));
      }
    }
  });

  it('parses any other layout in one go, and refuses what JSON.parse refuses', () => {
    for (const json of ['{"notes":[1,2],"after":true}', '{"x":{"notes":[1]},"notes":[2,3]}', '{ "notes": [1, 2] }', '[1,2]', '"notes"', '{"notes":[[1,2],[3]]}']) {
      expect(parse(json)).toEqual(JSON.parse(json));
    }
    for (const bad of ['{"notes":[1,,2]}', '{"notes":[1,]}', '{"notes":[,1]}', '{"notes":[1 2]}', '{"notes":[{"a":1},{"a":]}', 'not json', '{"a":1,"notes":[1]']) {
      expect(() => JSON.parse(bad)).toThrow(SyntaxError);
      for (const block of [1, 2]) {
        expect(() => runSync(parseJsonSteps(bad, 'notes', block))).toThrow(SyntaxError);
        expect(() => runSync(parseJsonSteps(bytes(bad), 'notes', block))).toThrow(SyntaxError);
      }
    }
  });

  it("reads the writers' layout (a newline after each element's comma) as JSON.parse does, and any other newlines too", () => {
    const notes = [{ path: 'a,\nb.md', text: 'line one\nline two' }, 'x', [1, 2], { deep: { a: [1, { b: ',' }] } }, 7, null];
    for (const head of [{ format: 1, terms: ['a', 'b,c'] }, {}]) {
      for (let n = 1; n <= notes.length; n++) {
        const json = `${JSON.stringify({ ...head, notes: [] }).slice(0, -2)}${notes.slice(0, n).map((x) => JSON.stringify(x)).join(JSON_ELEMENT_SEPARATOR)}]}`;
        for (const block of [1, 2, 5, 1024]) expect(parse(json, block)).toEqual(JSON.parse(json));
      }
    }
    // Newlines after commas inside the elements (pretty-printed by another writer): the same value.
    const pretty = `{"notes":[${notes.map((x) => JSON.stringify(x, null, 1).replace(/\n\s*/g, '\n')).join(',\n')}]}`;
    for (const block of [1, 2, 1024]) expect(parse(pretty, block)).toEqual(JSON.parse(pretty));
    for (const bad of ['{"notes":[1,\n]}', '{"notes":[1,\n,\n2]}', '{"notes":[1,\n  ]}', '{"notes":[1,\n2],"after":[3]}x', '{"notes":[{"a":1,\n"b":]}']) {
      expect(() => JSON.parse(bad)).toThrow(SyntaxError);
      for (const block of [1, 2]) {
        expect(() => runSync(parseJsonSteps(bad, 'notes', block))).toThrow(SyntaxError);
        expect(() => runSync(parseJsonSteps(bytes(bad), 'notes', block))).toThrow(SyntaxError);
      }
    }
  });

  it('gives the host turns: one step per block of the array', () => {
    const notes = Array.from({ length: 10 }, (_, i) => JSON.stringify({ i }));
    for (const sep of [',', JSON_ELEMENT_SEPARATOR]) {
      const steps = parseJsonSteps(`{"format":1,"notes":[${notes.join(sep)}]}`, 'notes', 3);
      let n = 0;
      while (!steps.next().done) n++;
      expect(n).toBeGreaterThanOrEqual(4);
    }
  });
});
