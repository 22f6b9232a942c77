import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Loads a thread's module. From dist it is JavaScript. Under ts-jest it is the TypeScript source,
 * compiled here as each file loads (decorators as the project compiles them; kept in the system's
 * temporary directory by content, so the next thread loads it compiled), with the project's
 * path aliases (`@lib/…`, from tsconfig.base.json) resolved as tsc-alias resolves them in dist.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const { entry, typescript, aliases } = workerData.sourceThread;
if (entry.endsWith('.ts')) {
  const ts = require(typescript);
  const fs = require('node:fs');
  const Module = require('node:module');
  const compilerOptions = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    esModuleInterop: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
  };
  // Compiled once per content (and compiler) and kept: every test that starts a thread would compile the same files again.
  const cacheDir = require('node:path').join(require('node:os').tmpdir(), 'source-thread-cache');
  fs.mkdirSync(cacheDir, { recursive: true });
  const compiled = (filename) => {
    const source = fs.readFileSync(filename, 'utf8');
    const key = require('node:crypto')
      .createHash('sha1')
      .update(ts.version + JSON.stringify(compilerOptions) + filename + '\0' + source)
      .digest('hex');
    const cached = require('node:path').join(cacheDir, key + '.js');
    try {
      return fs.readFileSync(cached, 'utf8');
    } catch {
      const output = ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
      const partial = cached + '.' + process.pid + '.' + require('node:worker_threads').threadId;
      fs.writeFileSync(partial, output);
      fs.renameSync(partial, cached);
      return output;
    }
  };
  require.extensions['.ts'] = (module, filename) => module._compile(compiled(filename), filename);
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return resolve.call(this, aliases[request] ?? request, ...rest);
  };
}
require(entry);
`;

/**
 * A worker thread running `entry` (a module of this codebase, by its full path, `.js` in dist and
 * `.ts` under ts-jest: pass `path.extname(__filename)` along), with `workerData` as the module reads it.
 */
export function startSourceThread(
  entry: string,
  workerData: Record<string, unknown>,
  options: { resourceLimits?: import('node:worker_threads').ResourceLimits } = {},
): Worker {
  const fromSource = entry.endsWith('.ts');
  return new Worker(BOOTSTRAP, {
    eval: true,
    resourceLimits: options.resourceLimits,
    workerData: {
      ...workerData,
      sourceThread: {
        entry,
        typescript: fromSource ? require.resolve('typescript') : null,
        aliases: fromSource ? projectAliases() : {},
      },
    },
  });
}

/** `@lib/config` → `<root>/libs/config/src`, as tsconfig.base.json's paths say. */
function projectAliases(): Record<string, string> {
  const root = path.resolve(__dirname, '../../..');
  const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return Object.fromEntries(Object.entries(compilerOptions.paths).map(([alias, [target]]) => [alias, path.join(root, target)]));
}
