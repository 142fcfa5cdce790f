/** Jest: ts-jest over spec/, one real MongoDB server for the whole run (see spec/setup/). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/spec/setup/global-setup.js',
  globalTeardown: '<rootDir>/spec/setup/global-teardown.js',
  testTimeout: 30000,
  maxWorkers: 2,
};
