// Unit specs sit beside the code (*.spec.ts); end-to-end suites live in test/ (*.e2e-spec.ts) and need the
// services `npm test` starts (scripts/test.js).
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
  'metering',
  'imaging',
  'webhooks',
  'outbound',
  'local-imaging',
  'tokenizers',
];

module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: [
    '<rootDir>/apps/**/*.spec.ts',
    '<rootDir>/libs/**/*.spec.ts',
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
