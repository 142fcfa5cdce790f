'use strict';
// The worked examples of docs/hooks.md, loaded from the page itself: each ```ts block starting with
// `// hooks/<name>.ts` is compiled with TypeScript (a dev dependency of this repository) and run as the
// module it is, and `withHookExamples` from hooks/index.ts puts them into the example app's config.
// `HOOK_EXAMPLES=1 npm start` runs the example app with them (see start.js).
const { readFileSync } = require('node:fs');
const path = require('node:path');

const PAGE = path.join(__dirname, '..', 'docs', 'hooks.md');

/** The page's files by name (`hooks/slug.ts` -> its source). */
function pageFiles() {
  const page = readFileSync(PAGE, 'utf8');
  return new Map([...page.matchAll(/```ts\n\/\/ (hooks\/[\w-]+\.ts)\n([^]*?)```/g)].map((m) => [m[1], m[2]]));
}

/** `withHookExamples(config)`: the example app's config with every example of docs/hooks.md in it. */
function loadHookExamples() {
  const ts = require('typescript');
  const files = pageFiles();
  const loaded = new Map();
  const load = (name) => {
    if (loaded.has(name)) return loaded.get(name);
    const source = files.get(name);
    if (source === undefined) throw new Error(`docs/hooks.md has no ${name}`);
    const exports = {};
    loaded.set(name, exports);
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText;
    const requireOf = (id) => {
      if (id === 'content-router') return require('content-router');
      if (id.startsWith('./')) return load(`hooks/${id.slice(2)}.ts`);
      throw new Error(`${name} imports ${id}: the examples use only content-router and each other`);
    };
    new Function('exports', 'require', js)(exports, requireOf);
    return exports;
  };
  return load('hooks/index.ts').withHookExamples;
}

module.exports = { loadHookExamples };
