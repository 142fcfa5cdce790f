// @ts-check
// ESLint over lib/: ESLint's recommended rules and typescript-eslint's strict-type-checked set, with the type
// information of tsconfig.json (the project service). `npm run lint` runs it with --max-warnings 0, and .ci/run
// runs `npm run lint`. A rule is turned off or tuned here only with its reason; a single finding that is right
// as it is carries `// eslint-disable-next-line <rule> -- <why>` at its line.
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    files: ['lib/**/*.ts'],
    extends: [eslint.configs.recommended, tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Off: it overflows the stack on Mongoose's recursive document types (typescript-eslint 8.74, in
      // lib/schema/build-schema.ts), which stops the whole run.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // Numbers read as themselves in a message ("at most 100 fields"); objects, undefined and the rest stay
      // errors, which is what the rule is for.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `(req, res) => res.end()` and `.catch((e) => log(e))` are callbacks, not values: braces would only
      // add lines. A void returned from a block (`return send()`) is still an error.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // An error caught or handed to a callback is typed unknown; it is passed on as it came, as `throw` may.
      // `const { user: _user, ...query } = options` is how a key is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
);
