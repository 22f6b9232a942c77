/**
 * Architecture rules, checked in CI (npm run lint:deps):
 * - a bounded context never imports another (they talk over libs/contracts subjects only);
 *   apps/platform is the composition root and the one exception (docs/decisions/0002);
 * - libs never import apps;
 * - the web console (apps/console) runs in a browser over the public API: it imports neither the
 *   server's apps nor its libs, only its own files, its packages and the SDK's generated API types;
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
      name: 'console-uses-public-api-only',
      severity: 'error',
      comment: 'The console is a client of the REST API: the generated types are its whole view of the server.',
      from: { path: '^apps/console/' },
      to: { path: '^(apps/(?!console/)|libs/|sdk/(?!src/generated/))' },
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
