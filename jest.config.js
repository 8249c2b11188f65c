// Unit specs sit beside the code (*.spec.ts) and need nothing running; integration specs sit beside the code too
// (*.int-spec.ts) and use the Redis or database `npm test` starts (scripts/test.js), as do the end-to-end suites in
// test/ (*.e2e-spec.ts). docs/style.md, "Naming and files".
const aliases = [
  'common',
  'contracts',
  'redis',
  'queue',
  'db',
  'catalog',
  'providers',
  'tenancy',
  'metrics',
  'imaging',
  'webhooks',
  'outbound',
  'local-imaging',
  'ledger',
];

module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: [
    '<rootDir>/apps/**/*.spec.ts',
    '<rootDir>/libs/**/*.spec.ts',
    '<rootDir>/apps/**/*.int-spec.ts',
    '<rootDir>/libs/**/*.int-spec.ts',
    '<rootDir>/scripts/**/*.spec.js',
    '<rootDir>/test/**/*.e2e-spec.ts',
  ],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // The OTLP exporter loads node:http with import(), which jest's module sandbox cannot run (it would need
    // --experimental-vm-modules): its package alone is compiled to CommonJS, import() becoming require().
    '/@opentelemetry/otlp-exporter-base/.+\\.js$': [
      'ts-jest',
      { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs', target: 'es2022' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@opentelemetry/otlp-exporter-base/)'],
  moduleNameMapper: Object.fromEntries(aliases.map((lib) => [`^@gateway/${lib}$`, `<rootDir>/libs/${lib}/src`])),
  testTimeout: 60_000,
  setupFiles: ['reflect-metadata'],
};
