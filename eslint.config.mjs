// Lint: typescript-eslint's type-checked rules on the TypeScript, the recommended rules on the plain Node scripts;
// formatting is Prettier's alone (eslint-config-prettier turns off the rules that would disagree with it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.data/', 'test-output/', 'coverage/', 'apps/console/dist/'] },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: {
          // Vite's config runs in Node, outside the browser-only console project, so it is checked with its own options.
          allowDefaultProject: ['apps/console/vite.config.mts'],
          defaultProject: 'apps/console/tsconfig.node.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      // Leaving a field out of a copy by destructuring it is the idiom, not a leftover.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // Type-only namespaces name the members of a const object as types (QueueName.Chat).
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  {
    // Tests and benches read JSON answers, which are untyped by nature, and assert on values they just checked.
    files: ['test/**', 'bench/**', '**/*.spec.ts', '**/*.int-spec.ts', '**/*.spec.js'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Fakes stand in for async interfaces, whether or not they wait on anything.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // A unit spec needs nothing running: one that uses the Redis or database `npm test` starts is an integration
    // spec, *.int-spec.ts (docs/style.md).
    files: ['**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[object.object.name='process'][object.property.name='env'][property.name=/^TEST_/]",
          message:
            'A spec that uses the Redis or database npm test starts is an integration spec: name it *.int-spec.ts',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/test/helpers/db-test-module'],
              message: 'A spec that uses the database npm test starts is an integration spec: name it *.int-spec.ts',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.jest } },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
  prettier,
);
