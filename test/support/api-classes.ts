import fs from 'node:fs';
import path from 'node:path';
import * as contracts from '@lib/contracts';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The API's request and response classes by name: the contracts' exports and those of the
 * gateway's own DTO, request and query files. The contract tests hold the served OpenAPI document
 * to these classes' validators.
 */
export function apiClasses(): Map<string, new () => object> {
  const modules: Array<Record<string, unknown>> = [contracts];
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(dir, e.name);
      return e.isDirectory() ? walk(full) : /\.(dto|request|query)\.ts$/.test(e.name) ? [full] : [];
    });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  for (const file of walk(path.join(ROOT, 'apps/gateway/src'))) modules.push(require(file) as Record<string, unknown>);
  const classes = new Map<string, new () => object>();
  for (const value of modules.flatMap((m) => Object.values(m)))
    if (typeof value === 'function' && /^[A-Z]/.test(value.name)) classes.set(value.name, value as new () => object);
  return classes;
}
