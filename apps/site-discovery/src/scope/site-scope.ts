import { compilePathPattern } from '@lib/client-patterns';
import { InvalidScopePatternError } from '../site-discovery.errors';
import type { NormalUrl } from '@lib/url-normal-form';

/**
 * Trap rules (issue 39): URLs a site can generate without end. Each is a documented bound rather
 * than a guess about one site: calendars and pagers that link "next" forever are bounded by
 * max_depth; these catch what depth alone lets through cheaply.
 */
export const TRAP_RULES = {
  /** Longer URLs are generated, not written (browsers and sitemaps stop near here too). */
  maxUrlLength: 2_048,
  /** Path segments; `/a/b/…` deeper than this is a relative-link loop. */
  maxSegments: 20,
  /** One segment repeated this often in a path (`/a/b/a/b/a/b`) is a relative-link loop. */
  maxSegmentRepeats: 3,
  /** Distinct query strings on one path (search and filter permutations); past it, none is kept. */
  maxQueriesPerPath: 25,
} as const;

export type ScopeVerdict = 'in' | 'scope' | 'trap';

export interface ScopeSettings {
  startHost: string;
  includeSubdomains: boolean;
  domains: string[];
  includePaths: string[];
  excludePaths: string[];
}

type Matcher = (url: URL) => boolean;

/**
 * Which URLs belong to the site being mapped or crawled: hosts (the start host — `www.` ignored
 * when comparing — its subdomains when asked, listed domains), path patterns (globs by picomatch
 * on the path; `re:` expressions by RE2, linear-time, on path and query, so a client's pattern
 * cannot stall a worker), and the trap rules. Stateful for the query-permutation rule: one
 * instance per map or crawl.
 */
export class SiteScope {
  private readonly baseHost: string;
  private readonly hosts: Set<string>;
  private readonly include: Matcher[];
  private readonly exclude: Matcher[];
  private readonly queriesByPath = new Map<string, Set<string>>();

  constructor(private readonly settings: ScopeSettings) {
    this.baseHost = withoutWww(settings.startHost.toLowerCase());
    this.hosts = new Set([this.baseHost, ...settings.domains.map((d) => withoutWww(d.toLowerCase()))]);
    this.include = settings.includePaths.map(compilePattern);
    this.exclude = settings.excludePaths.map(compilePattern);
  }

  /** Hosts only: whether a page on this host belongs to the site (sitemaps and redirects are asked this). */
  hostInScope(host: string): boolean {
    const bare = withoutWww(host.toLowerCase());
    if (this.hosts.has(bare)) return true;
    return this.settings.includeSubdomains && bare.endsWith(`.${this.baseHost}`);
  }

  verdict(normal: NormalUrl): ScopeVerdict {
    const url = new URL(normal.url);
    if (!this.hostInScope(url.hostname)) return 'scope';
    if (this.include.length > 0 && !this.include.some((m) => m(url))) return 'scope';
    if (this.exclude.some((m) => m(url))) return 'scope';
    return this.isTrap(url) ? 'trap' : 'in';
  }

  private isTrap(url: URL): boolean {
    if (url.href.length > TRAP_RULES.maxUrlLength) return true;
    const segments = url.pathname.split('/').filter(Boolean);
    if (segments.length > TRAP_RULES.maxSegments) return true;
    const counts = new Map<string, number>();
    for (const segment of segments) {
      const seen = (counts.get(segment) ?? 0) + 1;
      if (seen >= TRAP_RULES.maxSegmentRepeats) return true;
      counts.set(segment, seen);
    }
    if (url.search) {
      const path = `${url.host}${url.pathname}`;
      const queries = this.queriesByPath.get(path) ?? new Set<string>();
      if (!queries.has(url.search)) {
        if (queries.size >= TRAP_RULES.maxQueriesPerPath) return true;
        queries.add(url.search);
        this.queriesByPath.set(path, queries);
      }
    }
    return false;
  }
}

function withoutWww(host: string): string {
  return host.startsWith('www.') ? host.slice(4) : host;
}

/** A glob on the path, or `re:<RE2 expression>` on path and query. Invalid ones are the client's 400. */
export function compilePattern(pattern: string): Matcher {
  const compiled = compilePathPattern(pattern);
  if ('problem' in compiled) throw new InvalidScopePatternError(compiled.problem, { pattern });
  return compiled.matches;
}
