import picomatch from 'picomatch';
import { clientPattern, clientPatternProblem } from './client-patterns';

/**
 * A discovery scope's path pattern (include_paths, exclude_paths): a glob on the decoded path, or
 * `re:<RE2 expression>` on path and query. Compiled here for every caller — site-discovery when it
 * crawls or maps, the gateway when a monitor's crawl scope is created — so a pattern one accepts
 * the other accepts too. A pattern that does not compile is its problem, in words.
 */
export function compilePathPattern(pattern: string): { matches: (url: URL) => boolean } | { problem: string } {
  if (pattern.startsWith('re:')) {
    const source = pattern.slice(3);
    const wrong = clientPatternProblem(source, 'u');
    if (wrong !== null) return { problem: `"${pattern.slice(0, 100)}" is not a valid RE2 expression: ${wrong}` };
    // Asked of the table at each use, never held: the table frees what it drops (client-patterns).
    return { matches: (url) => clientPattern(source, 'u').test(`${url.pathname}${url.search}`) };
  }
  try {
    const glob = picomatch(pattern.startsWith('/') ? pattern : `/${pattern}`, { dot: true });
    return { matches: (url) => glob(decodeSafely(url.pathname)) };
  } catch (error) {
    return { problem: `"${pattern.slice(0, 100)}" is not a valid glob: ${(error as Error).message}` };
  }
}

function decodeSafely(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
