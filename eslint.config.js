import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import rapport from './eslint/function-size.js';

// What dependency-cruiser (.dependency-cruiser.cjs) cannot see in imports: SQL built outside a
// repository with the executor a service holds, and dependencies set on a service after it is built.
const sqlOutsideRepositories = {
  selector: 'CallExpression[callee.property.name=/^(selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)$/]',
  message: "SQL is built in the module's repositories, repository.ts and <caller>.repository.ts (they own the SQL and take any executor).",
};
const setterInjection = [
  {
    selector: 'Property[key.name=/^set[A-Z]/], MethodDefinition[key.name=/^set[A-Z]/]',
    message: 'No setter injection: a service gets what it needs when it is built, in src/services.ts.',
  },
];

// The size limits of src/: no function with more than 80 lines of its own code (eslint/function-size.js),
// no service file over 400 lines, no service function with more than four parameters (an actor and an
// input object instead of id strings in a row). Released migrations never change, so they are not held
// to them.
const SERVICE_FILES = ['src/modules/**/service.ts', 'src/modules/**/*.service.ts'];
// The console: never the server's source, and no feature reaching into another's files. What two
// features share lives in console/src/shared/; what a feature offers the others is its index.ts. A file
// `depth` folders below its feature's folder leaves the feature with depth + 1 `../`: the folder named
// next is another feature (console/src/features/<other>/), which may be imported from its index.ts only.
const serverSource = { regex: '^(\\.\\./)+(src|test)/', message: "The console reads the server's contract from @rapport/sdk." };
const CONSOLE_FEATURE_DEPTHS = [0, 1, 2, 3, 4];
const otherFeature = (depth) => ({
  regex: `^(\\.\\./){${depth + 1}}(?!\\.\\./)[^/]+/(?!index\\.ts$)`,
  message: "Another feature's files are its own: import what it offers from its index.ts, or move what both need to console/src/shared/.",
});

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
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/**/repository.ts', 'src/modules/**/*.repository.ts'],
    rules: { 'no-restricted-syntax': ['error', sqlOutsideRepositories] },
  },
  {
    files: ['src/modules/**/service.ts'],
    rules: { 'no-restricted-syntax': ['error', sqlOutsideRepositories, ...setterInjection] },
  },
  {
    // The console reaches the server only over HTTP, through the SDK (types, the error table): never its source.
    files: ['console/src/**/*.ts', 'console/src/**/*.tsx'],
    rules: { 'no-restricted-imports': ['error', { patterns: [serverSource] }] },
  },
  // A console feature (console/src/features/<name>/) uses another only through that one's index.ts.
  ...CONSOLE_FEATURE_DEPTHS.map((depth) => ({
    files: [`console/src/features/*/${'*/'.repeat(depth)}*.ts`, `console/src/features/*/${'*/'.repeat(depth)}*.tsx`],
    rules: { 'no-restricted-imports': ['error', { patterns: [serverSource, otherFeature(depth)] }] },
  })),
  {
    // The console's words come from its locale files (console/src/locales): no literal text in its components.
    files: ['console/src/**/*.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'JSXText[value=/[A-Za-z\\u4e00-\\u9fff]/]',
          message: "UI text comes from the locale files: t('feature.key'), not a literal.",
        },
        {
          selector: 'JSXAttribute[name.name=/^(title|placeholder|aria-label|alt|label|okText|cancelText|description|message)$/] > Literal',
          message: "UI text comes from the locale files: t('feature.key'), not a literal.",
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/migrations/**'],
    plugins: { rapport },
    rules: { 'rapport/function-size': ['error', { max: 80 }] },
  },
  {
    // Every file of src/ (a service most of all): split by caller before it passes 400 lines. Not the
    // frozen migrations, nor the two tables that are one list by design: the schema's table types and
    // the error codes (each a row).
    files: ['src/**/*.ts'],
    ignores: ['src/db/migrations/**', 'src/db/schema.ts', 'src/http/error-codes.ts'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: SERVICE_FILES,
    rules: { 'max-params': ['error', 4] },
  },
);
