#!/usr/bin/env node
// `npm run test:python` (CI runs it): the Python SDK as a user gets it. In a fresh virtualenv (with
// the system's site packages: httpx, pytest and mypy come from Debian, offline), `pip install
// ./sdk/python` — the package, not its sources —, then `mypy --strict` on the installed package and
// on sdk/python/examples, then pytest (sdk/python/tests: the flows against the embedded platform,
// which needs dist/, built here when missing or stale).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const sdk = path.join(root, 'sdk', 'python');
// Debian's interpreter: its packages (python3-httpx, python3-pytest, mypy) are what .ci/run installs.
const python = process.env.PYTHON ?? (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

// Strict, for the oldest Python the package supports. `Unpack` for typed `**options` (PEP 692) is on
// by default from mypy 1.7; Debian's mypy 1.0 has it behind this flag.
const MYPY = ['--strict', '--python-version', '3.10', '--no-incremental', '--enable-incomplete-feature=Unpack'];

/** A file mypy must refuse, with each of `expected` in what it says: the typed options catch these. */
function mustNotTypeCheck(py, file, expected) {
  console.log(`$ ${py} -m mypy ${MYPY.join(' ')} ${file}   # must fail`);
  let output = '';
  try {
    execFileSync(py, ['-m', 'mypy', ...MYPY, file], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
  }
  const missing = expected.filter((text) => !output.includes(text));
  if (output === '' || missing.length > 0)
    throw new Error(
      `mypy should have refused ${path.relative(root, file)} saying ${missing.join(', ') || expected.join(', ')}; it said:\n${output}`,
    );
  console.log(output.trim());
}

function run(command, args, options = {}) {
  console.log(`$ ${[command, ...args].join(' ')}`);
  execFileSync(command, args, { stdio: 'inherit', cwd: root, ...options });
}

function main() {
  const probe = 'import sys, httpx, pytest, mypy; assert sys.version_info >= (3, 10), sys.version';
  try {
    execFileSync(python, ['-c', probe], { stdio: 'pipe' });
  } catch {
    console.error(
      `${python} lacks Python ≥ 3.10 with httpx, pytest and mypy: apt-get install -y python3-httpx python3-pytest mypy python3-venv python3-setuptools (or set PYTHON)`,
    );
    process.exit(1);
  }
  run(process.execPath, [path.join(root, 'scripts', 'build.js'), '--if-needed']);
  const venv = fs.mkdtempSync(path.join(os.tmpdir(), 'scrapeapi-venv-'));
  try {
    run(python, ['-m', 'venv', '--system-site-packages', venv]);
    const py = path.join(venv, 'bin', 'python');
    // Offline: the build backend (setuptools) and httpx are the system's.
    run(py, ['-m', 'pip', 'install', '--quiet', '--no-build-isolation', '--no-deps', '--no-index', sdk]);
    run(py, ['-m', 'mypy', ...MYPY, '-p', 'scrapeapi']);
    run(py, ['-m', 'mypy', ...MYPY, path.join(sdk, 'examples')]);
    mustNotTypeCheck(py, path.join(sdk, 'typing-checks', 'misspelt_option.py'), [
      'Unexpected keyword argument "fromat"',
      'Argument "browser"',
    ]);
    // From a folder outside the sources, so `import scrapeapi` is the installed package.
    run(py, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--rootdir', sdk, path.join(sdk, 'tests')], { cwd: venv });
  } finally {
    fs.rmSync(venv, { recursive: true, force: true });
  }
}

try {
  main();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
