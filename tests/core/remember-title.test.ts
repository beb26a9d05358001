// MCP `remember` names a note from its text's first line: short lines stay as written; long ones become a whole phrase
// under 80 characters (the same title maker the rules extractor uses), never cut mid-clause.
import { describe, expect, it } from 'vitest';
import { titleFromText } from '../../src/core/memory/remember.js';
import { endsMidClause } from '../../src/core/note/title.js';

describe('remember: the title of a remembered note', () => {
  it('keeps a short first line as written, without heading marks', () => {
    expect(titleFromText('## Use pnpm workspaces\n\nbecause npm was slow')).toBe('Use pnpm workspaces');
  });

  it('cuts a long first line at a clause boundary, under 80 characters', () => {
    const t = titleFromText('The e2e tests need ENTIRE_TELEMETRY_OPTOUT=1 or they hang forever waiting on the telemetry endpoint in CI runs');
    expect(t.length).toBeLessThan(80);
    expect(endsMidClause(t)).toBe(false);
    expect(t).toBe('The e2e tests need ENTIRE_TELEMETRY_OPTOUT=1');
  });
});
