// Loads a host's config module (ESM or CommonJS; .js, .mjs, .cjs or .ts through jiti) for the types
// command, without building a router: nothing connects to a database. Failures are one-line messages.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createJiti } from 'jiti';
import type { ContentConfig } from '../config/types';
import { validateConfig } from '../config/validate-config';
import { parseEndpointsOptions } from '../endpoints/validate-endpoints';
import { isRecord } from '../util/is-record';

/** A failure the CLI prints as one line (no stack). */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** The first non-empty line of an error's message: what a one-line report shows. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  // A parse error's second line is where it is (`/app/config.ts:2:0`): worth keeping on the one line.
  if (lines.length > 1 && /:\d+:\d+$/.test(lines[1])) return `${lines[0]} at ${lines[1]}`;
  return lines[0] ?? 'unknown error';
}

/** A TypeScript module's namespace comes back as its `default`; a real default export has config keys. */
function pickConfig(mod: Record<string, unknown>): unknown {
  const fallback = mod.default;
  if (isRecord(fallback) && !(Object.hasOwn(fallback, 'config') && !Object.hasOwn(fallback, 'collections') && !Object.hasOwn(fallback, 'db'))) {
    return fallback;
  }
  if (mod.config !== undefined) return mod.config;
  if (isRecord(fallback) && fallback.config !== undefined) return fallback.config;
  return fallback;
}

/**
 * Imports the config module and returns its default export (or `config` export), checked as contentRouter
 * would check it, except for `db` and the options features check at start-up (a JWT secret read from the
 * environment may be absent at build time).
 */
export async function loadConfigModule(file: string): Promise<ContentConfig> {
  const path = resolve(file);
  if (!existsSync(path)) throw new CliError(`config file not found: ${path}`);
  const jiti = createJiti(path, { moduleCache: false, interopDefault: false });
  let mod: unknown;
  try {
    mod = await jiti.import(path);
  } catch (error) {
    throw new CliError(`could not load ${file}: ${firstLine(error)}`);
  }
  const config = isRecord(mod) ? pickConfig(mod) : undefined;
  if (!isRecord(config)) throw new CliError(`${file} has no default export (or "config" export) holding a content-router config object`);
  const problems = validateConfig(config as unknown as ContentConfig, [parseEndpointsOptions]).filter((p) => !/^db\b/.test(p));
  if (problems.length) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
    throw new CliError(`invalid config in ${file}: ${problems[0]}${more}`);
  }
  return config as unknown as ContentConfig;
}
