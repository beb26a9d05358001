// Korean end to end (issue 31): `engram search` and the UserPromptSubmit hook, as real processes, on the Korean vault
// we wrote ourselves (tests/fixtures/vault-ko: no Korean vault is in the corpus). Questions use other particles and
// verb endings than the notes; small talk and off-topic prompts in Korean inject nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';

const fixture = path.resolve(import.meta.dirname, '..', 'fixtures', 'vault-ko');
type HookOut = { hookSpecificOutput: { additionalContext: string } };

let sb: Sandbox;
beforeAll(async () => {
  sb = makeSandbox();
  for (const rel of fs.readdirSync(fixture, { recursive: true }) as string[]) {
    if (rel.endsWith('.md')) sb.writeNote(rel, fs.readFileSync(path.join(fixture, rel), 'utf8'));
  }
  sb.serve();
  await waitFor(() => {
    const r = runCli(['status', '--json'], { env: sb.env });
    return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
  }, 30_000, 'a ready host');
});
afterAll(async () => sb.cleanup());

const search = (q: string): string[] => {
  const r = runCli(['search', q, '--json', '--vault', sb.vault], { env: sb.env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { hits: { path: string }[] }).hits.map((h) => h.path);
};
let session = 0;
const hook = (prompt: string): string => {
  const r = runCli(['hook', 'UserPromptSubmit'], { env: sb.env, input: JSON.stringify({ session_id: `ko-${++session}`, cwd: sb.root, hook_event_name: 'UserPromptSubmit', prompt }) });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout ? (JSON.parse(r.stdout) as HookOut).hookSpecificOutput.additionalContext : '';
};

describe('Korean notes and questions', () => {
  it('engram search finds the note for a Korean question whose particles and endings differ', () => {
    expect(search('보관함을 휴대폰과 노트북 사이에서 동기화하려면?')[0]).toBe('도구/옵시디언 동기화 설정.md');
    expect(search('데이터베이스를 백업에서 복원하려면 어떻게 해?')[0]).toBe('데이터베이스/백업과 복원.md');
    expect(search('김치찌개에 두부는 언제 넣어?')[0]).toBe('요리/김치찌개 레시피.md');
  });

  it('the prompt hook injects the note for a Korean question, and nothing for Korean small talk or off-topic prompts', () => {
    expect(hook('스테이징 서버에 어떻게 배포하나요?')).toContain('[[배포/스테이징 배포 절차|');
    expect(hook('CI에서만 테스트가 실패했던 이유가 뭐였지?')).toContain('[[문제/테스트가 시간대 때문에 실패함|');
    for (const p of ['고마워요, 좋아 보여요', '네, 계속해 주세요', '오늘 서울 날씨 어때?', '페루의 수도는 어디야?']) expect(hook(p), p).toBe('');
  });
});
