/**
 * Loads an ESM-only package (got-scraping, proxy-chain) from this CommonJS codebase. TypeScript
 * compiles `import()` to `require()` under `module: commonjs`; a direct eval keeps the real dynamic
 * import and the calling script's module loader (which Jest's VM needs).
 */
export function importEsm<T>(specifier: string): Promise<T> {
  return eval(`import(${JSON.stringify(specifier)})`) as Promise<T>;
}
