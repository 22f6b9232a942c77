/**
 * Architecture rules, checked in CI (npm run lint:deps):
 * - a bounded context never imports another (they talk over libs/contracts subjects only);
 *   apps/platform is the composition root and the one exception (docs/decisions/0002);
 * - libs never import apps;
 * - no circular imports.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-app-to-app',
      severity: 'error',
      comment: 'Contexts talk over the transport (libs/contracts), never by importing each other.',
      from: { path: '^apps/([^/]+)/', pathNot: '^apps/platform/' },
      to: { path: '^apps/([^/]+)/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-lib-to-app',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)generated/|\\.spec\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
