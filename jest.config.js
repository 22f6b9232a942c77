// Two projects: fast unit/integration specs beside the code, and end-to-end specs under test/
// that start the platform and talk HTTP over a real socket (embedded and distributed).
//
// The drills are apart: specs that kill and restart OS processes, NATS and Postgres, crash
// browsers under load or fill their memory. They take a third of the suite's time and want the
// machine to themselves, so `npm test` leaves them out and `npm run test:drills` (CI runs both)
// runs them alone, one file at a time (TEST_SUITE=drills; scripts/test.js).
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.base.json');

const DRILLS = [
  '<rootDir>/test/e2e/fault-injection.e2e-spec.ts',
  '<rootDir>/test/e2e/processes.e2e-spec.ts',
  '<rootDir>/test/e2e/batch-worker-failure.e2e-spec.ts',
  '<rootDir>/test/browser/browser-pool.spec.ts',
  '<rootDir>/test/browser/browser-ends.spec.ts',
  '<rootDir>/test/browser/page-budget.spec.ts',
];

const shared = {
  preset: 'ts-jest',
  // jest's node environment, and a file that leaves a handle open fails (test/support/handle-checking-environment.js).
  testEnvironment: '<rootDir>/test/support/handle-checking-environment.js',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
  rootDir: __dirname,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

// jest matches these as regular expressions against absolute paths.
const drillPatterns = DRILLS.map((p) => p.replace('<rootDir>', __dirname).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

module.exports = {
  projects:
    process.env.TEST_SUITE === 'drills'
      ? [{ ...shared, displayName: 'drills', testMatch: DRILLS }]
      : [
          {
            ...shared,
            displayName: 'unit',
            testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
            testPathIgnorePatterns: ['/node_modules/', ...drillPatterns],
          },
          {
            ...shared,
            displayName: 'e2e',
            testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
            testPathIgnorePatterns: ['/node_modules/', ...drillPatterns],
          },
        ],
  // End-to-end specs start whole platforms; their hooks and cases get a generous budget.
  testTimeout: 120000,
};
