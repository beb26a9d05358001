// Which client a transcript's name or an MCP `initialize` names: the activity record's client of each entry.
import { describe, expect, it } from 'vitest';
import { clientOfMcp, clientOfTranscript, isHookClient } from '../../../src/core/transcript/client.js';

describe('clientOfMcp', () => {
  it("maps the names Claude Code and Codex give in clientInfo to the record's client ids", () => {
    expect(clientOfMcp('claude-code')).toBe('claude-code');
    expect(clientOfMcp('Claude Code')).toBe('claude-code');
    expect(clientOfMcp('codex-mcp-client')).toBe('codex');
    expect(clientOfMcp('codex')).toBe('codex');
  });

  it('names no client for any other MCP client, or none given', () => {
    for (const name of ['vitest', 'claude-ai', 'cursor-vscode', 'codexlike', '', undefined]) expect(clientOfMcp(name)).toBeUndefined();
  });
});

describe('clientOfTranscript', () => {
  it("tells Codex's rollouts from Claude Code's sessions by name", () => {
    expect(clientOfTranscript('/h/.codex/sessions/2026/11/27/rollout-2026-11-27T09-00-00-019a0000-0000-7000-8000-0000000000c1.jsonl')).toBe('codex');
    expect(clientOfTranscript('C:\\u\\.claude\\projects\\x\\11111111-aaaa-4aaa-8aaa-0000000000a1.jsonl')).toBe('claude-code');
    expect(clientOfTranscript('/tmp/notes.jsonl')).toBeUndefined();
  });

  it('isHookClient keeps only the ids the record knows', () => {
    expect(['codex', 'claude-code', 'cursor', 1, undefined].map(isHookClient)).toEqual([true, true, false, false, false]);
  });
});
