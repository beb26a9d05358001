// A small, strict argument parser: unknown options and missing values are usage errors.
import { EngramError } from '../../src/core/errors.js';
import { didYouMeanText } from '../../src/core/suggest.js';
import type { OptionSpec } from './types.js';

export type OptionValues = Record<string, string | number | boolean | string[] | undefined>;

export interface ParsedArgs {
  positionals: string[];
  options: OptionValues;
}

/**
 * `explain` words the refusal of an option the command does not take but others do (e.g. `--json` where there is no
 * JSON output); anything else is "unknown option".
 */
export function parseArgs(argv: string[], specs: Record<string, OptionSpec>, explain?: (name: string) => string | undefined): ParsedArgs {
  const refuse = (name: string, shown: string) =>
    new EngramError('usage', explain?.(name) ?? `unknown option: ${shown}${shown.startsWith('--') ? didYouMeanText(name, Object.keys(specs), (s) => `--${s}`) : ''}`);
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) if (spec.short) byShort.set(spec.short, name);
  const positionals: string[] = [];
  const options: OptionValues = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
      if (!Object.hasOwn(specs, name) && name.startsWith('no-') && Object.hasOwn(specs, name.slice(3)) && specs[name.slice(3)].type === 'boolean') {
        options[name.slice(3)] = false;
        continue;
      }
    } else if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
      name = byShort.get(arg.slice(1));
      if (!name) throw refuse(arg.slice(1), arg);
    } else {
      positionals.push(arg);
      continue;
    }
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec) throw refuse(name, `--${name}`);
    let value: string | number | boolean;
    if (spec.type === 'boolean') {
      if (inline !== undefined && !['true', 'false'].includes(inline)) {
        throw new EngramError('usage', `--${name} takes no value`);
      }
      value = inline !== 'false';
    } else {
      const raw = inline ?? argv[++i];
      if (raw === undefined) throw new EngramError('usage', `--${name} needs a value`);
      if (spec.type === 'number') {
        const n = Number(raw);
        if (!Number.isFinite(n)) throw new EngramError('usage', `--${name} needs a number, got "${raw}"`);
        value = n;
      } else value = raw;
    }
    if (spec.multiple) {
      const list = (options[name] as string[] | undefined) ?? [];
      list.push(String(value));
      options[name] = list;
    } else options[name] = value;
  }
  return { positionals, options };
}

export function formatOptions(specs: Record<string, OptionSpec>): string {
  const rows = Object.entries(specs).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'boolean' ? '' : ` ${spec.valueName ?? '<value>'}`}`;
    return [flag, spec.description] as const;
  });
  const width = Math.max(0, ...rows.map(([f]) => f.length));
  return rows.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`).join('\n');
}
