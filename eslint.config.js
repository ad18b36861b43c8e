import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Build output and the SDK's generated types are not linted.
    ignores: ['**/node_modules/', '**/dist/', 'data/', 'docs/', 'coverage/', '.bench/', 'bench/tmp/', 'packages/sdk/src/schema.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Each file is checked with the tsconfig.json nearest to it (the server's, packages/sdk's, console's).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
