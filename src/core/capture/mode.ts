// Write control (`capture.mode`): what capture may do with a beat. `auto` writes it into a note (the default), `inbox`
// holds it as a proposal in the review pane until the user approves it, `off` captures nothing. Set globally, per beat
// type and per project; of the modes that apply to a beat, the strictest wins (a project set to `off` is never
// captured, whatever its types say).

export const CAPTURE_MODES = ['auto', 'inbox', 'off'] as const;
export type CaptureMode = (typeof CAPTURE_MODES)[number];

export interface CapturePolicy {
  mode: CaptureMode;
  /** Beat type → mode (`decision=inbox`). */
  byType: Record<string, CaptureMode>;
  /** Project → mode (`acme=off`). */
  byProject: Record<string, CaptureMode>;
}

const STRICTNESS: Record<CaptureMode, number> = { auto: 0, inbox: 1, off: 2 };

function isMode(v: string): v is CaptureMode {
  return (CAPTURE_MODES as readonly string[]).includes(v);
}

/** `name=mode` entries as config keeps them; an entry that is not one is the error's text. */
export function parseModeRules(entries: readonly string[]): { ok: true; rules: Record<string, CaptureMode> } | { ok: false; error: string } {
  const rules: Record<string, CaptureMode> = {};
  for (const raw of entries) {
    const e = raw.trim();
    if (!e) continue;
    const at = e.lastIndexOf('=');
    const name = at > 0 ? e.slice(0, at).trim() : '';
    const mode = at > 0 ? e.slice(at + 1).trim() : '';
    if (!name || !isMode(mode)) return { ok: false, error: `"${e}" is not name=${CAPTURE_MODES.join('|')}` };
    rules[name] = mode;
  }
  return { ok: true, rules };
}

/** The mode for a beat of this type in this project: the strictest of the global, the type's and the project's. */
export function captureModeFor(policy: CapturePolicy, of: { type?: string; project?: string }): CaptureMode {
  const modes: CaptureMode[] = [policy.mode];
  if (of.type !== undefined && policy.byType[of.type]) modes.push(policy.byType[of.type]);
  if (of.project !== undefined && policy.byProject[of.project]) modes.push(policy.byProject[of.project]);
  return modes.reduce((a, b) => (STRICTNESS[b] > STRICTNESS[a] ? b : a));
}

/** The policy from the three configuration values (`capture.mode`, `capture.mode_by_type`, `capture.mode_by_project`). */
export function capturePolicy(mode: CaptureMode, byType: readonly string[], byProject: readonly string[]): CapturePolicy {
  const rules = (entries: readonly string[]) => {
    const r = parseModeRules(entries);
    return r.ok ? r.rules : {};
  };
  return { mode, byType: rules(byType), byProject: rules(byProject) };
}
