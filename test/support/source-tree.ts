import fs from 'node:fs';
import path from 'node:path';

/** The repository's root: the architecture tests read its source and documents as files. */
export const REPOSITORY_ROOT = path.resolve(__dirname, '..', '..');

/** A package of the source tree: `apps/<name>` or `libs/<name>`. */
export type PackageName = `${'apps' | 'libs'}/${string}`;

/** One import of a source file, resolved to the package it reaches (null: an npm package or node built-in). */
export interface SourceImport {
  file: string;
  specifier: string;
  toPackage: PackageName | null;
  relative: boolean;
}

const IMPORT_PATTERN = /(?:^|\s)(?:import|export)\s[^'"`;]*?from\s+['"]([^'"]+)['"]|(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** Every TypeScript source file of apps/ and libs/ but generated code; specs too when asked. */
export function sourceFiles(options: { specs: boolean }): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'generated' && entry.name !== 'node_modules') walk(full);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        if (options.specs || !/\.(e2e-)?spec\.ts$/.test(entry.name)) files.push(path.relative(REPOSITORY_ROOT, full));
      }
    }
  };
  for (const top of ['apps', 'libs']) walk(path.join(REPOSITORY_ROOT, top));
  return files;
}

export function packageOf(file: string): PackageName | null {
  const match = /^(apps|libs)\/([^/]+)\//.exec(file.split(path.sep).join('/'));
  return match ? (`${match[1]}/${match[2]}` as PackageName) : null;
}

/** The imports of one file (`import … from`, `export … from`, `import()`, `require()`). */
export function importsOf(file: string): SourceImport[] {
  const text = fs.readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8');
  const found: SourceImport[] = [];
  for (const match of text.matchAll(IMPORT_PATTERN)) {
    const specifier = match[1] ?? match[2];
    if (specifier.startsWith('@lib/')) {
      found.push({ file, specifier, toPackage: `libs/${specifier.slice('@lib/'.length).split('/')[0]}`, relative: false });
    } else if (specifier.startsWith('.')) {
      const target = path.relative(REPOSITORY_ROOT, path.resolve(REPOSITORY_ROOT, path.dirname(file), specifier));
      found.push({ file, specifier, toPackage: packageOf(target + '/'), relative: true });
    } else {
      found.push({ file, specifier, toPackage: null, relative: false });
    }
  }
  return found;
}

/** Package → the other packages its non-spec files import. */
export function packageGraph(): Map<PackageName, Set<PackageName>> {
  const graph = new Map<PackageName, Set<PackageName>>();
  for (const file of sourceFiles({ specs: false })) {
    const from = packageOf(file);
    if (!from) continue;
    const edges = graph.get(from) ?? new Set<PackageName>();
    graph.set(from, edges);
    for (const { toPackage } of importsOf(file)) if (toPackage && toPackage !== from) edges.add(toPackage);
  }
  return graph;
}

/** The cycles of a directed graph, each as the packages on it (Tarjan's strongly connected components of more than one node, or a self-loop). */
export function cyclesOf<T>(graph: Map<T, Set<T>>): T[][] {
  let index = 0;
  const indexOf = new Map<T, number>();
  const low = new Map<T, number>();
  const stack: T[] = [];
  const onStack = new Set<T>();
  const cycles: T[][] = [];
  const visit = (node: T): void => {
    indexOf.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: T[] = [];
      let member: T;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) cycles.push(component.reverse());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return cycles;
}

export function readDocument(relativePath: string): string {
  return fs.readFileSync(path.join(REPOSITORY_ROOT, relativePath), 'utf8');
}

/** The lines of a markdown document under a `## heading`, up to the next heading of that level. */
export function sectionOf(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`);
  if (start === -1) throw new Error(`no "## ${heading}" section`);
  const end = lines.findIndex((line, i) => i > start && /^## /.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

/** The first cell of every body row of the markdown tables in a text (each table's header and rule rows left out). */
export function firstCellsOf(text: string): string[] {
  const cells: string[] = [];
  let previousWasRow = false;
  for (const line of text.split('\n')) {
    const isRow = line.startsWith('|');
    // A row after a non-row starts a table: its header.
    if (isRow && previousWasRow && !/^\|\s*:?-/.test(line)) cells.push(line.split('|')[1].trim());
    previousWasRow = isRow;
  }
  return cells.filter((cell) => cell !== '');
}
