import { describe, expect, it } from 'vitest';
import { CliError, type FlagSpec, parseFlags, usage } from './cli.js';

const FLAGS = {
  batch: { kind: 'int', min: 1, default: 32, help: 'batch size' },
  lr: { kind: 'number', min: 0, help: 'learning rate' },
  optimizer: { kind: 'choice', choices: ['adam', 'sgd'], default: 'adam', help: 'optimizer' },
  hidden: { kind: 'ints', min: 1, default: [128], help: 'hidden widths' },
  'no-optimize': { kind: 'boolean', help: 'skip the optimizer' },
} as const satisfies Record<string, FlagSpec>;

const parse = (...argv: string[]) => parseFlags(FLAGS, argv);

describe('demo CLI flags', () => {
  it('gives defaults, parses numbers, lists and booleans', () => {
    expect(parse().flags).toEqual({ batch: 32, lr: undefined, optimizer: 'adam', hidden: [128], 'no-optimize': false });
    expect(parse('--batch', '64', '--lr', '3e-3', '--hidden', '256,64', '--no-optimize', '--optimizer', 'sgd').flags).toEqual({
      batch: 64,
      lr: 0.003,
      optimizer: 'sgd',
      hidden: [256, 64],
      'no-optimize': true,
    });
    expect(parse('--batch=16').flags.batch).toBe(16);
  });

  it('rejects a non-numeric, fractional or out-of-range value, naming the flag and the value', () => {
    expect(() => parse('--batch', 'abc')).toThrow(CliError);
    expect(() => parse('--batch', 'abc')).toThrow("--batch must be an integer, got 'abc'");
    expect(() => parse('--batch', '1.5')).toThrow("--batch must be an integer, got '1.5'");
    expect(() => parse('--batch', '0')).toThrow('--batch must be at least 1, got 0');
    expect(() => parse('--lr', '')).toThrow("--lr must be a number, got ''");
    expect(() => parse('--hidden', '128,x')).toThrow("--hidden must be an integer, got 'x'");
    expect(() => parse('--optimizer', 'adagrad')).toThrow("--optimizer must be one of adam, sgd, got 'adagrad'");
  });

  it('rejects unknown flags, missing values and positionals', () => {
    expect(() => parse('--bacth', '3')).toThrow(/Unknown option '--bacth'/);
    expect(() => parse('--batch')).toThrow(/--batch/);
    expect(() => parse('extra')).toThrow(CliError);
  });

  it('answers --help and -h with a usage text listing every flag and its default', () => {
    expect(parse('--help').help).toBe(true);
    expect(parse('-h').help).toBe(true);
    const text = usage('pnpm mnist', 'Trains.', FLAGS);
    expect(text).toMatch(/^usage: pnpm mnist \[flags\]/);
    for (const name of Object.keys(FLAGS)) expect(text).toContain(`--${name}`);
    expect(text).toMatch(/--batch N\s+batch size \(default 32\)/);
    expect(text).toMatch(/--optimizer adam\|sgd/);
  });
});
