// Command-line flags for the demo CLIs (`pnpm mnist`): a table of flags (type, default, help), `--help` text made
// from it, and validation of every value (numbers, integers, ranges, choices) with an error naming the flag and
// what it got. Pure: no process.exit, no printing (the caller decides); never returns NaN for a numeric flag.

import { parseArgs } from 'node:util';

/** One flag: its kind, default, help line and, for numbers, the allowed range; for choices, the choices. */
export type FlagSpec =
  | { readonly kind: 'int' | 'number'; readonly help: string; readonly default?: number; readonly min?: number; readonly max?: number }
  | { readonly kind: 'choice'; readonly help: string; readonly choices: readonly string[]; readonly default?: string }
  | { readonly kind: 'string'; readonly help: string; readonly default?: string }
  | { readonly kind: 'ints'; readonly help: string; readonly default?: readonly number[]; readonly min?: number }
  | { readonly kind: 'boolean'; readonly help: string };

/** The value type a flag parses to. */
export type FlagValue<S extends FlagSpec> = S extends { kind: 'int' | 'number' }
  ? number
  : S extends { kind: 'ints' }
    ? number[]
    : S extends { kind: 'boolean' }
      ? boolean
      : string;

/** Parsed flags: flags with a default (and booleans) are always set, the others may be undefined. */
export type Flags<T extends Record<string, FlagSpec>> = {
  [K in keyof T]: T[K] extends { kind: 'boolean' } ? boolean : T[K] extends { default: unknown } ? FlagValue<T[K]> : FlagValue<T[K]> | undefined;
};

/** A bad command line: unknown flag, missing value, or a value that does not parse or is out of range. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/** The `--help` text: usage line, then one line per flag with its default. */
export function usage<T extends Record<string, FlagSpec>>(command: string, summary: string, spec: T): string {
  const lines = [`usage: ${command} [flags]`, '', summary, '', 'flags:'];
  const rows = Object.entries(spec).map(([name, s]) => {
    const arg = s.kind === 'boolean' ? '' : s.kind === 'choice' ? ` ${s.choices.join('|')}` : s.kind === 'ints' ? ' N[,N...]' : s.kind === 'string' ? ' TEXT' : ' N';
    const def = 'default' in s && s.default !== undefined ? ` (default ${Array.isArray(s.default) ? s.default.join(',') : s.default})` : '';
    return [`  --${name}${arg}`, `${s.help}${def}`];
  });
  rows.push(['  --help', 'print this help']);
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  for (const [a, b] of rows) lines.push(a.padEnd(w) + b);
  return lines.join('\n');
}

function num(name: string, raw: string, s: { kind: 'int' | 'number' | 'ints'; min?: number; max?: number }): number {
  const v = raw.trim() === '' ? Number.NaN : Number(raw);
  const int = s.kind !== 'number';
  if (!Number.isFinite(v) || (int && !Number.isInteger(v))) throw new CliError(`--${name} must be ${int ? 'an integer' : 'a number'}, got '${raw}'`);
  if (s.min !== undefined && v < s.min) throw new CliError(`--${name} must be at least ${s.min}, got ${raw}`);
  if (s.max !== undefined && v > s.max) throw new CliError(`--${name} must be at most ${s.max}, got ${raw}`);
  return v;
}

/** Parses `argv` against the flag table; `help` is true when `--help` (or `-h`) was given. Throws CliError. */
export function parseFlags<T extends Record<string, FlagSpec>>(spec: T, argv: readonly string[]): { flags: Flags<T>; help: boolean } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, s] of Object.entries(spec)) options[name] = { type: s.kind === 'boolean' ? 'boolean' : 'string' };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new CliError((e as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(spec)) {
    const raw = values[name];
    if (s.kind === 'boolean') {
      out[name] = raw === true;
      continue;
    }
    if (raw === undefined) {
      out[name] = s.default === undefined ? undefined : Array.isArray(s.default) ? [...s.default] : s.default;
      continue;
    }
    const text = raw as string;
    if (s.kind === 'int' || s.kind === 'number') out[name] = num(name, text, s);
    else if (s.kind === 'ints') out[name] = text.split(',').map((part) => num(name, part, s));
    else if (s.kind === 'choice') {
      if (!s.choices.includes(text)) throw new CliError(`--${name} must be one of ${s.choices.join(', ')}, got '${text}'`);
      out[name] = text;
    } else out[name] = text;
  }
  return { flags: out as Flags<T>, help: values.help === true };
}

/**
 * The commands' front door: parses argv (then `check`, which may throw a CliError for flags that must agree),
 * prints usage and exits 0 on --help, or exits 2 with the error and usage.
 */
export function parseFlagsOrExit<T extends Record<string, FlagSpec>>(
  command: string,
  summary: string,
  spec: T,
  argv: readonly string[],
  check: (flags: Flags<T>) => void = () => {},
): Flags<T> {
  let parsed: { flags: Flags<T>; help: boolean };
  try {
    parsed = parseFlags(spec, argv);
    check(parsed.flags);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    console.error(`${command}: ${e.message}\n\n${usage(command, summary, spec)}`);
    process.exit(2);
  }
  if (parsed.help) {
    console.log(usage(command, summary, spec));
    process.exit(0);
  }
  return parsed.flags;
}
