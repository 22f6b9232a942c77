import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { contractCheckedFetch, contractOf } from '../support/api-contract';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { type InProcessPlatform, startInProcessPlatform } from '../e2e/support/in-process-platform';
import { runtimesUnderTest } from '../e2e/support/runtimes';
import { runEveryOperation } from './flows';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { typesOf } = require('../../scripts/api-description.js') as { typesOf(document: object): Promise<string> };

const ROOT = path.resolve(__dirname, '../..');
const FLOWS = path.join(__dirname, 'flows.ts');

/** Type errors of flows.ts when `@served-api` is the given generated file. */
function typeErrorsAgainst(generated: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json did not parse');
  const program = ts.createProgram([FLOWS], {
    ...config.options,
    noEmit: true,
    paths: { ...config.options.paths, '@served-api': [generated] },
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? `${path.relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

/** What a client author must not need: casts, non-null assertions, `any`, suppressed errors. */
function escapesIn(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isAsExpression(node) ||
      ts.isTypeAssertionExpression(node) ||
      ts.isNonNullExpression(node) ||
      node.kind === ts.SyntaxKind.AnyKeyword
    ) {
      found.push(`line ${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const match of text.matchAll(/@ts-(ignore|expect-error|nocheck)/g)) found.push(`@ts-${match[1]}`);
  return found;
}

/**
 * The document is what a client can trust: types generated from the served /v1/openapi.json
 * type-check flows.ts (every operation, written with no casts), and running it against the service
 * gets only answers the document declares, on their schemas — in both runtimes.
 */
describe.each(runtimesUnderTest('flows'))('client flows from the served document — $name', (runtime) => {
  let site: FixtureSite;
  let receiver: http.Server;
  let env: InProcessPlatform;
  let cleanup: () => Promise<void> = async () => undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'served-api-'));

  beforeAll(async () => {
    site = await startFixtureSite();
    receiver = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      WEBHOOK_POLL_INTERVAL_MS: '50',
      BROWSER_WARM: 'false',
    });
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await new Promise((resolve) => receiver?.close(resolve));
    await site?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('generates types from the served document that type-check every flow with no casts', async () => {
    const generated = path.join(dir, 'served-api.ts');
    fs.writeFileSync(generated, await typesOf((await contractOf(env.url)).document));
    expect(escapesIn(FLOWS)).toEqual([]);
    expect(typeErrorsAgainst(generated)).toEqual([]);
  });

  it('runs every operation of the document, every answer declared and on its schema', async () => {
    const exercised = new Set<string>();
    await runEveryOperation({
      baseUrl: env.url,
      adminToken: env.adminToken,
      pageUrl: `${site.url}/page`,
      callbackUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      fetch: contractCheckedFetch(env.url, (operation) => exercised.add(operation)),
      pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    expect([...exercised].sort()).toEqual((await contractOf(env.url)).operationNames().sort());
  });
});
