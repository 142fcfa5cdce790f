/** Jest: ts-jest over spec/, one real MongoDB server for the whole run (see spec/setup/). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // The example app requires the package by name (as users do); under jest that is lib/, unbuilt.
  moduleNameMapper: { '^content-router$': '<rootDir>/lib/index.ts' },
  globalSetup: '<rootDir>/spec/setup/global-setup.js',
  globalTeardown: '<rootDir>/spec/setup/global-teardown.js',
  testTimeout: 30000,
  maxWorkers: 2,
};
