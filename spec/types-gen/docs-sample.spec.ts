// docs/types.md shows a config and "the file it declares": the second must be what the generator writes
// for the first, word for word, so the page cannot fall behind the generator again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { ContentConfig } from '../../lib';
import { generateTypes } from '../../lib/types-gen/generate-types';

const page = readFileSync(join(__dirname, '../../docs/types.md'), 'utf8');

/** The ```ts blocks of the page's "What is generated" section, in order. */
function sampleBlocks(): string[] {
  const section = page.slice(page.indexOf('## What is generated'), page.indexOf('### Naming rule'));
  return [...section.matchAll(/```ts\n([^]*?)```/g)].map((m) => m[1]);
}

/** The page's config block, run as the TypeScript module it is (defineConfig and the handler stubbed). */
function sampleConfig(source: string): ContentConfig {
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const exports: { default?: ContentConfig } = {};
  new Function('exports', 'defineConfig', 'handler', 'process', js)(exports, (config: ContentConfig) => config, () => ({ ok: true }), { env: { MONGODB_URI: 'mongodb://localhost/db' } });
  return exports.default!;
}

it("docs/types.md's sample output is what generate:types writes for its sample config", () => {
  const [config, output] = sampleBlocks();
  expect(generateTypes(sampleConfig(config), { source: 'content.config.ts' })).toBe(output);
});
