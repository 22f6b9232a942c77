#!/usr/bin/env node
// Builds the platform: generates the Prisma client, compiles TypeScript and rewrites the
// `@lib/*` path aliases so plain `node` can run dist/. `--if-needed` skips the work when no
// source is newer than the last build (so `npm start` stays fast); `--generate-only` only
// refreshes the Prisma client (what `npm test` needs, since ts-jest compiles the sources).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const schema = path.join(root, 'prisma', 'schema.prisma');
const generatedClient = path.join(root, 'libs', 'persistence', 'src', 'generated', 'prisma', 'client.ts');

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'generated') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function bin(name) {
  return path.join(root, 'node_modules', '.bin', name);
}

function run(cmd, cmdArgs, env = process.env) {
  execFileSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env });
}

function generatePrismaClient() {
  if (fs.existsSync(generatedClient) && fs.statSync(generatedClient).mtimeMs >= fs.statSync(schema).mtimeMs) return;
  // `prisma generate` only needs the schema engine's path to exist; it never runs it. Pointing it
  // at the node binary keeps the CLI from trying to download an engine (no internet here).
  const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath };
  run(bin('prisma'), ['generate'], env);
}

const consoleDir = path.join(root, 'apps', 'console');
const consoleBuild = path.join(root, 'dist', 'console', 'index.html');
const apiTypes = path.join(root, 'sdk', 'src', 'generated', 'api.ts');

/**
 * The web console (apps/console) with Vite into dist/console, which the gateway serves at
 * /console. Skipped when the build is newer than its sources and the API types it is typed by;
 * without Vite (an image pruned of dev dependencies) an existing build is kept as it is.
 */
function buildConsole({ ifNeeded = false } = {}) {
  const sources = Math.max(newestMtime(consoleDir), fs.existsSync(apiTypes) ? fs.statSync(apiTypes).mtimeMs : 0);
  const built = fs.existsSync(consoleBuild) ? fs.statSync(consoleBuild).mtimeMs : 0;
  if (ifNeeded && built >= sources) return;
  if (!fs.existsSync(bin('vite'))) {
    if (built > 0) return;
    throw new Error('The web console is not built and Vite is not installed: run npm ci, then npm run build.');
  }
  run(bin('vite'), ['build', '--config', path.join(consoleDir, 'vite.config.mjs')]);
}

/**
 * Builds dist/ (or only the Prisma client). With `ifNeeded`, nothing is compiled when no source is
 * newer than the last build. Entry scripts call this in-process, so `npm start` is one node
 * process that receives SIGTERM itself (a `build && node …` chain leaves a shell in between that
 * does not forward signals).
 */
function ensureBuilt({ ifNeeded = false, generateOnly = false } = {}) {
  generatePrismaClient();
  // The end-to-end tests drive the console in a browser, so `npm test` builds it too.
  buildConsole({ ifNeeded: ifNeeded || generateOnly });
  if (generateOnly) return;
  const sources = Math.max(
    ...['libs', 'bench', 'prisma'].map((d) => newestMtime(path.join(root, d))),
    ...fs
      .readdirSync(path.join(root, 'apps'))
      .filter((app) => app !== 'console')
      .map((app) => newestMtime(path.join(root, 'apps', app))),
    fs.statSync(path.join(root, 'tsconfig.build.json')).mtimeMs,
    fs.statSync(path.join(root, 'tsconfig.base.json')).mtimeMs,
  );
  // npm start and the other entry scripts keep the packed SDK current too (README installs it).
  packSdk({ ifNeeded: true });
  if (ifNeeded && fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs >= sources) return;
  run(bin('tsc'), ['-p', 'tsconfig.build.json']);
  run(bin('tsc-alias'), ['-p', 'tsconfig.build.json']);
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, new Date().toISOString());
}

const sdkDir = path.join(root, 'sdk');
const sdkPackage = fs.existsSync(path.join(sdkDir, 'package.json')) ? require(path.join(sdkDir, 'package.json')) : null;
/** The packed SDK, what README tells a client project to install (npm pack's name for the scoped package). */
const sdkTarball = sdkPackage
  ? path.join(sdkDir, `${sdkPackage.name.replace(/^@/, '').replace('/', '-')}-${sdkPackage.version}.tgz`)
  : null;

/**
 * The SDK compiled (sdk/dist) and packed (sdk/<name>-<version>.tgz, or into `destination`): the
 * tarball installs from anywhere, where `npm install ./sdk` would only link the folder and need
 * this repository's node_modules beside it. With `ifNeeded`, skipped while the tarball is newer
 * than the SDK's sources (its generated types included); skipped when there is no SDK or no tsc
 * (an image pruned of dev dependencies).
 */
function packSdk({ ifNeeded = false, destination = sdkDir } = {}) {
  if (!sdkPackage || !fs.existsSync(bin('tsc'))) return null;
  const tarball = path.join(destination, path.basename(sdkTarball));
  const sources = Math.max(
    newestMtime(path.join(sdkDir, 'src')),
    fs.statSync(apiTypes).mtimeMs,
    fs.statSync(path.join(sdkDir, 'package.json')).mtimeMs,
  );
  if (ifNeeded && fs.existsSync(tarball) && fs.statSync(tarball).mtimeMs >= sources) return tarball;
  run(bin('tsc'), ['-p', path.join('sdk', 'tsconfig.json')]);
  fs.mkdirSync(destination, { recursive: true });
  execFileSync('npm', ['pack', '--silent', '--pack-destination', destination], { cwd: sdkDir, stdio: ['ignore', 'ignore', 'inherit'] });
  return tarball;
}

module.exports = { ensureBuilt, buildConsole, packSdk, root };

/**
 * The SDK (sdk/): its OpenAPI document and generated types from the compiled gateway, then its own
 * build and tarball; then the console again if those types changed (it is typed by them).
 */
function buildSdk() {
  run(process.execPath, [path.join(root, 'scripts', 'api-description.js'), '--write']);
  packSdk();
  buildConsole({ ifNeeded: true });
}

module.exports.buildSdk = buildSdk;

if (require.main === module) {
  const args = new Set(process.argv.slice(2));
  ensureBuilt({ ifNeeded: args.has('--if-needed'), generateOnly: args.has('--generate-only') });
  // `npm run build` (no flags) also builds the SDK; start scripts only need the platform.
  if (args.size === 0) buildSdk();
}
