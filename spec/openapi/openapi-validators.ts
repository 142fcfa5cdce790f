// Checks for OpenAPI documents in specs: the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator, an
// ES module jest cannot require, so it runs in a child node), Redocly's lint (its CLI, as CI runs it) and
// ajv 2020 for bodies against the document.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const VALIDATE = `
const { Validator } = require('@seriousme/openapi-schema-validator');
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', async () => {
  const result = await new Validator().validate(JSON.parse(input));
  process.stdout.write(JSON.stringify(result));
});`;

/** Validates a document against the OpenAPI 3.1 schema; `errors` says where it does not conform. */
export function validateOpenApiDocument(document: unknown): { valid: boolean; errors?: unknown } {
  const run = spawnSync(process.execPath, ['-e', VALIDATE], { input: JSON.stringify(document), cwd: __dirname, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { valid: boolean; errors?: unknown };
}

const ROOT = resolve(__dirname, '../..');

/** One problem Redocly found. */
export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

/**
 * Lints a document with Redocly's CLI under the repo's redocly.yaml: by default its `recommended` rules as
 * they come (warnings stay warnings, to see them all); `strict` as CI and the documented command run it,
 * `recommended-strict` (every warning an error).
 */
export function lintWithRedocly(document: unknown, options: { strict?: boolean } = {}): LintProblem[] {
  const dir = mkdtempSync(join(tmpdir(), 'redocly-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const args = [cli, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), ...(options.strict ? [] : ['--extends', 'recommended']), '--format', 'json'];
    const run = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
    // Exit 1 means errors were found; the report is on stdout either way.
    if (!run.stdout.trim().startsWith('{')) throw new Error(`redocly lint failed (${run.status}): ${run.stderr}`);
    return (JSON.parse(run.stdout) as { problems: LintProblem[] }).problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };

/** `/posts/abc` -> the document's path template that the dispatcher would match (literals before parameters). */
export function matchTemplate(document: Doc, path: string): string | undefined {
  const parts = path.split('/').filter(Boolean);
  const candidates = Object.keys(document.paths).filter((template) => {
    const segments = template.split('/').filter(Boolean);
    return segments.length === parts.length && segments.every((s, i) => s.startsWith('{') || s === parts[i]);
  });
  // More literal segments first, left to right.
  const score = (t: string) => t.split('/').filter(Boolean).map((s) => (s.startsWith('{') ? '1' : '0')).join('');
  return candidates.sort((a, b) => score(a).localeCompare(score(b)))[0];
}

const pointer = (...segments: string[]) => segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/** Validates response bodies against the schemas the document gives them. */
export function createResponseValidator(document: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document as object, 'openapi');
  return {
    /**
     * Errors of `body` against the document's schema for this path, method, status and media type
     * (the `default` response when the status is not declared); throws when the document has no such schema.
     */
    errorsOf(path: string, method: string, status: number, mediaType: string, body: unknown): unknown[] {
      const template = matchTemplate(document, path);
      if (!template) throw new Error(`no path in the document matches ${path}`);
      const operation = document.paths[template][method.toLowerCase()];
      if (!operation) throw new Error(`the document has no ${method} ${template}`);
      const key = operation.responses[String(status)] ? String(status) : 'default';
      const content = operation.responses[key]?.content?.[mediaType];
      if (!content) throw new Error(`the document has no ${mediaType} answer ${key} for ${method} ${template}`);
      const validate = ajv.getSchema(`openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', key, 'content', mediaType, 'schema')}`);
      if (!validate) throw new Error(`could not compile the schema of ${method} ${template} ${key}`);
      return validate(body) ? [] : (validate.errors ?? []);
    },
    /** Errors of `body` against one component schema. */
    componentErrors(name: string, body: unknown): unknown[] {
      const validate = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
      return validate(body) ? [] : (validate.errors ?? []);
    },
  };
}
