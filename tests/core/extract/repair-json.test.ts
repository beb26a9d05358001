import { describe, expect, it } from 'vitest';
import { parseModelJson, stripFences } from '../../../src/core/extract/repair-json.js';

describe('reply repair', () => {
  it('parses clean JSON without repairs', () => {
    const r = parseModelJson('{"beats":[{"title":"a"}]}');
    expect(r.value).toEqual({ beats: [{ title: 'a' }] });
    expect(r.repairs).toEqual([]);
  });

  it('strips a ```json fence and chatter around it', () => {
    const r = parseModelJson('Here are the beats:\n```json\n{"beats":[]}\n```\nHope this helps!');
    expect(r.value).toEqual({ beats: [] });
    expect(r.repairs).toContain('stripped fences or chatter');
    expect(stripFences('```\n[1,2]\n```')).toBe('[1,2]');
  });

  it('escapes raw newlines inside strings', () => {
    const r = parseModelJson('{"beats":[{"body":"line one\nline two"}]}');
    expect(r.value).toEqual({ beats: [{ body: 'line one\nline two' }] });
    expect(r.repairs).toContain('escaped raw newlines in strings');
  });

  it('removes trailing commas', () => {
    const r = parseModelJson('{"beats":[{"a":1,},{"b":2},],}');
    expect(r.value).toEqual({ beats: [{ a: 1 }, { b: 2 }] });
  });

  it('keeps the complete beats of a reply cut off mid-array', () => {
    const r = parseModelJson('{"beats":[{"title":"first","turns":[1]},{"title":"second","turns":[2]},{"title":"thi');
    expect(r.value).toEqual({ beats: [{ title: 'first', turns: [1] }, { title: 'second', turns: [2] }] });
    expect(r.repairs).toContain('closed a truncated reply');
  });

  it('repairs several kinds of damage at once', () => {
    const r = parseModelJson('```json\n{"beats":[{"body":"a\nb",},{"body":"c"');
    expect(r.value).toEqual({ beats: [{ body: 'a\nb' }] });
  });

  it('throws on replies with no JSON at all', () => {
    expect(() => parseModelJson('I cannot help with that.')).toThrow(/no JSON object/);
    expect(() => parseModelJson('{"beats": [ {"title": "x"')).toThrow(/not valid JSON/);
  });
});
