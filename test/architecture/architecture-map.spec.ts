import fs from 'node:fs';
import path from 'node:path';
import { BOUNDED_CONTEXTS, JOB_QUEUE, SUBJECTS } from '@lib/contracts';
import {
  REPOSITORY_ROOT,
  cyclesOf,
  firstCellsOf,
  importsOf,
  packageGraph,
  packageOf,
  readDocument,
  sectionOf,
  sourceFiles,
} from '../support/source-tree';

// docs/architecture.md is the map a newcomer reads first. It is drawn by hand, so it drifts unless
// something compares it with the code: these specs fail when a context, a subject family, a table
// or the database's users exist in one and not the other, and when the packages' imports stop
// being a tree a reader can follow (a package-level cycle, or a relative path into another package).

const ARCHITECTURE = 'docs/architecture.md';
// apps/ that are not bounded contexts: the composition root and the browser console.
const NOT_CONTEXTS = new Set(['platform', 'console']);

const contextsInCode = (): string[] =>
  fs
    .readdirSync(path.join(REPOSITORY_ROOT, 'apps'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !NOT_CONTEXTS.has(entry.name))
    .map((entry) => entry.name)
    .sort();

/** The flowchart's nodes, id → label's first line, and the ids drawn on the database node. */
function flowchart(markdown: string): { labels: Map<string, string>; onDatabase: Set<string> } {
  const mermaid = /```mermaid\n([\s\S]*?)```/.exec(markdown);
  if (!mermaid) throw new Error(`${ARCHITECTURE} has no mermaid flowchart`);
  const labels = new Map<string, string>();
  for (const match of mermaid[1].matchAll(/\b([a-z][a-z0-9]*)(?:\[\(|\(\[|\{\{|\[)"?([^\]<)}"|]+)/g)) {
    labels.set(match[1], match[2].trim());
  }
  const database = [...labels].find(([, label]) => /^Postgres/.test(label))?.[0];
  if (!database) throw new Error('the flowchart has no database node (a label starting "Postgres")');
  const onDatabase = new Set<string>();
  for (const match of mermaid[1].matchAll(/\b([a-z][a-z0-9]*)\s*---\s*([a-z][a-z0-9]*)\b/g)) {
    if (match[2] === database) onDatabase.add(match[1]);
    if (match[1] === database) onDatabase.add(match[2]);
  }
  return { labels, onDatabase };
}

/** `<context>.<entity>` of a subject: the family a row of the subjects table stands for. */
const familyOf = (subject: string): string => subject.split('.').slice(0, 2).join('.');

function subjectsInCode(): string[] {
  const all: string[] = [JOB_QUEUE.subject];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') all.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(SUBJECTS);
  return all;
}

/**
 * The subjects a row of the table names: backticked names in its first cell; a name that starts
 * with `…` continues the cell's first name's context, `{a,b}` lists alternatives, and a
 * `<context>` placeholder stands for every context that answers it.
 */
function subjectsInDocument(markdown: string): string[] {
  const subjects: string[] = [];
  for (const cell of firstCellsOf(sectionOf(markdown, 'Subjects'))) {
    const names = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((name) => /\.v\d+$/.test(name));
    const context = names[0]?.split('.')[0];
    for (const name of names) {
      const full = name.startsWith('…') ? `${context}${name.slice(1)}` : name;
      const braces = /\{([^}]+)\}/.exec(full);
      const expanded = braces ? braces[1].split(',').map((alt) => full.replace(braces[0], alt)) : [full];
      for (const subject of expanded) {
        if (subject.startsWith('<context>.')) {
          for (const c of BOUNDED_CONTEXTS) if (c !== 'gateway') subjects.push(subject.replace('<context>', c));
        } else if (!subject.startsWith('ops.')) {
          subjects.push(subject);
        }
      }
    }
  }
  return subjects;
}

describe(`${ARCHITECTURE}, compared with the code`, () => {
  const markdown = readDocument(ARCHITECTURE);

  it('draws every bounded context under apps/, and no context that is not there', () => {
    const drawn = [...flowchart(markdown).labels.values()].filter((label) => /^[a-z]+(-[a-z]+)+$|^gateway$/.test(label));
    expect([...new Set(drawn)].sort()).toEqual(contextsInCode());
    expect([...BOUNDED_CONTEXTS].sort()).toEqual(contextsInCode());
  });

  it('draws on the database exactly the contexts whose code uses it (@lib/persistence)', () => {
    const { labels, onDatabase } = flowchart(markdown);
    const drawnOnDatabase = [...onDatabase].map((id) => labels.get(id)).sort();
    const usingDatabase = contextsInCode().filter((context) =>
      sourceFiles({ specs: false })
        .filter((file) => file.startsWith(`apps/${context}/`))
        .some((file) => importsOf(file).some((i) => i.toPackage === 'libs/persistence')),
    );
    expect(drawnOnDatabase).toEqual(usingDatabase);
  });

  it('lists every subject family of libs/contracts in its subjects table, and only those', () => {
    const inCode = subjectsInCode();
    const inDocument = subjectsInDocument(markdown);
    expect([...new Set(inDocument.map(familyOf))].sort()).toEqual([...new Set(inCode.map(familyOf))].sort());
    // A subject the table names must exist: a renamed subject leaves no stale row behind.
    expect(inDocument.filter((subject) => !inCode.includes(subject))).toEqual([]);
  });

  it('lists every table of prisma/schema.prisma with its owner, and only those', () => {
    const schema = readDocument('prisma/schema.prisma');
    const tables = [...schema.matchAll(/@@map\("([^"]+)"\)/g)].map((m) => m[1]);
    const documented = firstCellsOf(sectionOf(markdown, 'Tables, owners and stores'))
      .flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]))
      .filter((table) => table !== '_prisma_migrations');
    expect(documented.sort()).toEqual(tables.sort());
  });
});

describe('the packages under apps/ and libs/', () => {
  it('import one another without a cycle', () => {
    expect(cyclesOf(packageGraph())).toEqual([]);
  });

  it('reach another package by its alias (@lib/…), never by a relative path (the composition root excepted)', () => {
    const crossings = sourceFiles({ specs: true })
      .filter((file) => !file.startsWith('apps/platform/'))
      .flatMap((file) => importsOf(file).filter((i) => i.relative && i.toPackage !== null && i.toPackage !== packageOf(file)))
      .map((i) => `${i.file} → ${i.specifier}`);
    expect(crossings).toEqual([]);
  });

  it('finds a cycle and a relative crossing when there is one (the checks above can fail)', () => {
    const graph = new Map([
      ['libs/a', new Set(['libs/b'])],
      ['libs/b', new Set(['libs/c'])],
      ['libs/c', new Set(['libs/a'])],
      ['libs/d', new Set(['libs/a'])],
    ]);
    expect(cyclesOf(graph)).toEqual([['libs/a', 'libs/b', 'libs/c']]);
    expect(cyclesOf(new Map([['libs/a', new Set(['libs/a'])]]))).toEqual([['libs/a']]);
    expect(packageOf('libs/persistence/src/x.ts')).toBe('libs/persistence');
  });
});
