// The `content-router` command line: `generate:types --config <file> [--out <file>]`. Returns the exit
// code instead of exiting, and reports every failure as one line on stderr.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, firstLine, loadConfigModule } from './load-config';
import { TypeNameConflictError, generateTypes } from '../types-gen/generate-types';

export const USAGE = 'usage: content-router generate:types --config <config file> [--out <file.ts>]';

export interface CliIo {
  /** Writes the generated file to stdout when there is no --out. */
  stdout(text: string): void;
  stderr(line: string): void;
}

/** Runs the command; 0 on success, 1 when the config or generation fails, 2 for a usage mistake. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let values: { config?: string; out?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: { config: { type: 'string', short: 'c' }, out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    io.stderr(`content-router: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stderr(USAGE);
    return 0;
  }
  if (positionals[0] !== 'generate:types' || positionals.length > 1) {
    io.stderr(`content-router: ${positionals.length ? `unknown command "${positionals.join(' ')}"` : 'no command given'}\n${USAGE}`);
    return 2;
  }
  if (!values.config) {
    io.stderr(`content-router generate:types: --config is required\n${USAGE}`);
    return 2;
  }
  try {
    const config = await loadConfigModule(values.config);
    const source = generateTypes(config, { source: values.config });
    if (!values.out) {
      io.stdout(source);
      return 0;
    }
    const out = resolve(values.out);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, source);
    io.stderr(`content-router: wrote ${relative(process.cwd(), out)}`);
    return 0;
  } catch (error) {
    // CliError and TypeNameConflictError messages are written for this line; anything else gives its first line.
    const message = error instanceof CliError || error instanceof TypeNameConflictError ? error.message : firstLine(error);
    io.stderr(`content-router generate:types: ${message}`);
    return 1;
  }
}
