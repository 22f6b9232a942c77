#!/usr/bin/env node
// `npm run readme:examples` (CI runs it on a fresh clone): every ```bash block of README.md, in
// order, in one bash, against a platform this script starts (`npm start`'s entry point, on a fresh
// DATA_DIR) and a local target site standing in for https://example.com (no internet needed: the
// platform is told TARGET_ALLOWLIST=<that site>, as README's offline note says).
//
// Every curl the examples run reports its status (curl's --write-out to stderr). A command must
// get 2xx answers only, unless README writes the answer it expects under it as `# → NNN …` (or
// `# → NNN or MMM`); then every answer it gets must be one of those. Any other answer, a command
// that fails (set -e, pipefail) or a run past EXAMPLES_TIMEOUT_MS (default 5 minutes) fails the
// script, which prints each command with what it got.
//
// The walkthrough runs EXAMPLES_PASSES times (default 2), each in a new shell against the same
// platform, as a reader who runs it again would: a step that only works once fails the second pass.
'use strict';
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const README = process.env.README_PATH ?? path.join(root, 'README.md');
const TIMEOUT_MS = Number(process.env.EXAMPLES_TIMEOUT_MS ?? 300_000);
const PASSES = Number(process.env.EXAMPLES_PASSES ?? 2);
/** `# → 409 …` or `# → 201 or 409 …`: the statuses README says to expect. */
const EXPECTED = /#\s*→\s*(\d{3}(?:\s+or\s+\d{3})*)\b/;

/** The ```bash blocks of a Markdown text, in order. */
function bashBlocks(markdown) {
  return [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/**
 * Shell commands of the blocks, each with the status README expects of it (null: any 2xx). A
 * command runs on while a line ends in a backslash or a single-quoted string is still open; the
 * comments right under it (and its own trailing comment) may state `# → NNN`.
 */
function commandsOf(blocks) {
  const commands = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    let current = null;
    for (const line of lines) {
      if (current && current.open) {
        current.lines.push(line);
        current.open = continues(current.lines);
        continue;
      }
      const comment = /^\s*#/.test(line);
      if (comment || line.trim() === '') {
        const expected = comment && current && /^\s*#/.test(line) ? EXPECTED.exec(line) : null;
        if (expected && current.expected === null) current.expected = statusesOf(expected[1]);
        if (line.trim() === '') current = null;
        continue;
      }
      current = { lines: [line], expected: null, open: false };
      current.open = continues(current.lines);
      commands.push(current);
    }
  }
  for (const command of commands) {
    const trailing = EXPECTED.exec(command.lines[command.lines.length - 1]);
    if (trailing && command.expected === null) command.expected = statusesOf(trailing[1]);
  }
  return commands.map(({ lines, expected }) => ({ text: lines.join('\n'), expected }));
}

function statusesOf(text) {
  return text.split(/\s+or\s+/).map(Number);
}

function continues(lines) {
  const text = lines.join('\n');
  const quotes = (text.match(/'/g) ?? []).length;
  return quotes % 2 === 1 || /\\$/.test(lines[lines.length - 1]);
}

/** The README's commands made runnable here: tokens given, hosts pointed at the local service and site. */
function scriptOf(commands, { apiHost, siteOrigin }) {
  const body = commands
    .map((command, i) => {
      // README asks the reader to paste the tokens from the banner; this run knows them.
      if (/^export (ADMIN|DEMO)=\S*…/.test(command.text)) return `echo "@@cmd ${i}" >&2`;
      const text = command.text.replaceAll('localhost:8080', apiHost).replaceAll('https://example.com', siteOrigin);
      return `echo "@@cmd ${i}" >&2\n${text}`;
    })
    .join('\n');
  return [
    'set -euo pipefail',
    // Every answer's status, on stderr, tagged so it can be told from the commands' own output.
    `curl() { command curl --silent --show-error --max-time 120 --write-out '%{stderr}@@status %{http_code} %{method} %{url_effective}\\n' "$@"; }`,
    body,
    'echo "@@end" >&2',
  ].join('\n');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The stand-in for example.com: an article on every path, a three-page PDF at /report.pdf (the document tests' own), and a webhook receiver. */
function startTargetSite() {
  const deliveries = [];
  const article = (url) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Example article</title>
<meta name="description" content="A page standing in for example.com in README's examples."></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main><article><h1>Example Domain</h1>
<p>This page is served by scripts/readme-examples.js at ${url} so that every example of README runs offline.</p>
<p>Green tea is brewed at 80 °C for two minutes; black tea at 95 °C for four. Both are better without milk, say the growers.</p>
<ul><li>Sencha</li><li>Darjeeling</li></ul><p><a href="/a">More about tea</a></p></article></main>
<footer>© Example</footer></body></html>`;
  const pdf = fs.readFileSync(path.join(root, 'test', 'fixtures', 'documents', 'report.pdf'));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    if (req.method === 'POST' && url.pathname.startsWith('/hooks/')) {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        deliveries.push({ path: url.pathname, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
      return;
    }
    if (url.pathname === '/report.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'self'" })
      .end(article(url.pathname));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port, deliveries })));
}

async function waitForHealth(url, child, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the platform exited with ${child.exitCode} before it served`);
    try {
      const res = await fetch(`${url}/v1/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the platform did not answer /v1/health within ${deadlineMs} ms`);
}

/** One run of the whole walkthrough in a new shell: whether every command got what README says. */
async function runPass(script, commands, tokens, pass) {
  const started = Date.now();
  const bash = spawn('bash', ['-c', script], { env: { ...process.env, ...tokens }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  bash.stdout.on('data', (c) => process.stdout.write(c));
  bash.stderr.on('data', (c) => (stderr += c));
  const timer = setTimeout(() => bash.kill('SIGKILL'), TIMEOUT_MS);
  const code = await new Promise((resolve) => bash.on('exit', (c, signal) => resolve(c ?? signal)));
  clearTimeout(timer);
  const { rows, ended, other, reached } = judge(commands, stderr);
  console.log(
    `\nREADME examples, pass ${pass} of ${PASSES}: ${commands.length} commands, ${rows.reduce((n, r) => n + r.statuses.length, 0)} requests, ${Date.now() - started} ms`,
  );
  for (const row of rows) {
    const mark = row.ok ? 'ok  ' : 'FAIL';
    console.log(
      `${mark} ${String(row.i).padStart(2)} [${row.statuses.join(',') || '-'}]${row.expected ? ` expected ${row.expected.join(' or ')}` : ''}  ${row.first}`,
    );
  }
  if (other.length > 0) console.log(`stderr of the examples:\n${other.join('\n')}`);
  const bad = rows.filter((r) => !r.ok);
  if (code !== 0 || !ended)
    console.error(
      `pass ${pass}: the examples stopped at command ${reached} (bash exit ${code}${code === 'SIGKILL' ? `, past ${TIMEOUT_MS} ms` : ''})`,
    );
  if (bad.length > 0) console.error(`pass ${pass}: ${bad.length} command(s) got an answer README does not say to expect`);
  return code === 0 && ended && bad.length === 0;
}

/** Which commands got an answer they should not have, from the tagged stderr lines. */
function judge(commands, stderr) {
  const got = commands.map(() => []);
  let current = -1;
  const other = [];
  for (const line of stderr.split('\n')) {
    const cmd = /^@@cmd (\d+)$/.exec(line);
    const status = /^@@status (\d{3}) (\S+) (\S+)$/.exec(line);
    if (cmd) current = Number(cmd[1]);
    else if (status && current >= 0) got[current].push({ status: Number(status[1]), method: status[2], url: status[3] });
    else if (line.trim() !== '' && line !== '@@end') other.push(line);
  }
  const rows = commands.map((command, i) => {
    const statuses = got[i].map((g) => g.status);
    const ok =
      command.expected === null
        ? statuses.every((s) => s >= 200 && s < 300)
        : statuses.length > 0 && statuses.every((s) => command.expected.includes(s));
    return { i, first: command.text.split('\n')[0].slice(0, 110), expected: command.expected, statuses, ok };
  });
  return { rows, ended: stderr.includes('@@end'), other, reached: current };
}

async function main() {
  require('./build').ensureBuilt({ ifNeeded: true });
  const commands = commandsOf(bashBlocks(fs.readFileSync(README, 'utf8')));
  if (commands.length === 0) throw new Error(`no bash example in ${README}`);
  const site = await startTargetSite();
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-examples-'));
  const tokens = { ADMIN: `adm_${crypto.randomBytes(16).toString('hex')}`, DEMO: `demo_${crypto.randomBytes(16).toString('hex')}` };
  const platform = spawn(process.execPath, ['--expose-gc', path.join(root, 'dist', 'apps', 'platform', 'src', 'main.js')], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: tokens.ADMIN,
      DEMO_TOKEN: tokens.DEMO,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // However this script ends (an error, a closed pipe, Ctrl-C), the platform it started ends with it.
  const stopPlatform = () => platform.exitCode === null && platform.kill('SIGKILL');
  process.once('exit', stopPlatform);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGPIPE', 'SIGHUP']) process.once(signal, () => process.exit(1));
  process.stdout.on('error', () => process.exit(1));
  let platformOutput = '';
  platform.stdout.on('data', (c) => (platformOutput += c));
  platform.stderr.on('data', (c) => (platformOutput += c));
  let failed = true;
  try {
    await waitForHealth(`http://127.0.0.1:${port}`, platform, 120_000);
    const script = scriptOf(commands, { apiHost: `127.0.0.1:${port}`, siteOrigin: `http://127.0.0.1:${site.port}` });
    failed = false;
    for (let pass = 1; pass <= PASSES && !failed; pass += 1) failed = !(await runPass(script, commands, tokens, pass));
  } finally {
    platform.kill('SIGTERM');
    await new Promise((resolve) => (platform.exitCode !== null ? resolve() : platform.once('exit', resolve)));
    site.server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (failed && process.env.EXAMPLES_SHOW_PLATFORM_LOG) console.error(platformOutput);
  }
  process.exit(failed ? 1 : 0);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { bashBlocks, commandsOf, scriptOf, judge };
