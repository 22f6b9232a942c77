import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/**
 * No Docker engine runs on the development and CI machines, so the image is not built there
 * (README says so). What keeps it honest: its install and build steps are CI's, compared here —
 * the same npm install command, the same build command, every system package CI installs, and
 * the Node.js major that CI's second test run uses.
 */
const ROOT = path.resolve(__dirname, '../..');
const dockerfile = fs.readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8');
const ciRun = fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
const entrypoint = fs.readFileSync(path.join(ROOT, 'deploy/entrypoint.sh'), 'utf8');

const runSteps = [...dockerfile.matchAll(/^RUN (.+(?:\\\n.+)*)$/gm)].map((m) => m[1].replace(/\\\n\s*/g, ' '));
const aptPackages = (text: string) =>
  [...text.matchAll(/apt-get install ((?:-\S+ )*)([a-z0-9 .+-]+?)(?:\s*(?:>|&&|\\|$))/gm)].flatMap((m) => m[2].trim().split(/\s+/));

describe('the container image (deploy/Dockerfile) and CI (.ci/run)', () => {
  it('installs dependencies with the command CI uses', () => {
    const ciInstall = /^npm ci .*$/m.exec(ciRun)?.[0];
    expect(ciInstall).toBe('npm ci --no-audit --no-fund');
    expect(runSteps).toContain(ciInstall);
  });

  it('builds with the command CI uses', () => {
    expect(ciRun).toMatch(/^node scripts\/build\.js$/m);
    expect(runSteps.some((step) => step.startsWith('node scripts/build.js'))).toBe(true);
  });

  it('installs every system package CI installs for the platform', () => {
    // CI's own, never run by the platform: jq (README's examples pipe through it) and what the
    // Python SDK's checks need (npm run test:python: an interpreter with httpx, pytest and mypy).
    const checksOnly = new Set(['jq', 'python3-httpx', 'python3-pytest', 'mypy', 'python3-venv', 'python3-setuptools']);
    const ci = aptPackages(ciRun).filter((name) => !checksOnly.has(name));
    expect(ci).toEqual(expect.arrayContaining(['chromium', 'chromium-headless-shell']));
    expect(aptPackages(dockerfile)).toEqual(expect.arrayContaining(ci));
  });

  it('runs the Node.js major CI tests on besides the machine’s (the current LTS)', () => {
    const ciMajor = /^NODE_LTS_VERSION=(\d+)\.\d+\.\d+$/m.exec(ciRun)?.[1];
    const stages = [...dockerfile.matchAll(/^FROM node:(\d+)-/gm)].map((m) => m[1]);
    expect(Number(ciMajor)).toBeGreaterThanOrEqual(24);
    expect(stages).toEqual([ciMajor, ciMajor]);
    // And package.json admits both Node.js versions CI tests (the machine's 20, first, and the LTS) and 22, as README says.
    const engines = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    const ciLts = /^NODE_LTS_VERSION=(\S+)$/m.exec(ciRun)?.[1] as string;
    for (const version of ['20.19.0', process.version, ciLts, '22.12.0'])
      expect([version, semver.satisfies(version, engines)]).toEqual([version, true]);
    expect(semver.satisfies('20.18.0', engines)).toBe(false);
  });

  it('starts what Kubernetes asks for: every context, the whole platform, and the migrations', () => {
    expect(entrypoint).toContain('"$name" = "platform"');
    expect(entrypoint).toContain('"$name" = "migrate"');
    expect(entrypoint).toContain('scripts/start-service.js "$name"');
    expect(dockerfile).toMatch(/^USER node$/m);
  });
});
