#!/usr/bin/env node
// The package's bin: `npx content-router generate:types --config <file> --out <file>` (docs/types.md).
import { runCli } from './types-cli/run-cli';

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (line) => process.stderr.write(`${line}\n`),
}).then(
  // Exits explicitly: a config module may have opened handles (a connection) that would keep the process alive.
  (code) => process.stdout.write('', () => process.exit(code)),
  (error: unknown) => {
    process.stderr.write(`content-router: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`);
    process.exit(1);
  },
);
