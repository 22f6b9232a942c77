import type { BillableMode, ScrapeRequest } from '@lib/contracts';
import { CREDIT_COST } from '@lib/plans';

/** The ways this engine can fetch a page. */
export type EngineName = 'simple' | 'light' | 'heavy';

/** What a request may ask of an engine. */
export type EngineFeature =
  /** The page's HTML as served (simple) or rendered (browsers), and everything derived from it: markdown, extract, metadata. */
  | 'page_content'
  /** Scripts run, so content built in the browser is there. */
  | 'javascript'
  /** A chosen HTTP method and body (spec 2.5): a browser always loads the page with GET. */
  | 'http_method'
  | 'screenshot'
  | 'actions'
  | 'network_capture'
  /** Stealth: a consistent browser fingerprint and the evasions of puppeteer-extra's stealth plugin. */
  | 'stealth'
  /** Images, fonts and media load (light skips them unless a screenshot needs them). */
  | 'full_resources';

export interface EngineSpec {
  name: EngineName;
  /** Credits charged when the site answers (spec 8). */
  credits: number;
  /** The ScrapeExecutionFacts mode it bills as. */
  mode: BillableMode;
  features: ReadonlySet<EngineFeature>;
  /**
   * Pages per second through the service at 4 in flight on the 2-core development machine
   * (`npm run bench`; the simple figure at 16 in flight): the order, not a promise.
   */
  measuredPagesPerSecond: number;
}

const BROWSER_FEATURES: EngineFeature[] = ['page_content', 'javascript', 'screenshot', 'actions', 'network_capture'];

/**
 * Which engine does what, at what cost — the one place the choice between them is written down,
 * in the spirit of Firecrawl's engine table (`apps/api/src/scraper/scrapeURL/engines/index.ts`).
 * The request names its engine (spec 2.1: `browser`, `browser_type`); the table checks the engine
 * can serve what the request asks, prices it, and tells guidance the cheapest engine that would.
 */
export const ENGINES: Record<EngineName, EngineSpec> = {
  simple: {
    name: 'simple',
    credits: CREDIT_COST.simple_request,
    mode: 'simple',
    features: new Set<EngineFeature>(['page_content', 'http_method']),
    measuredPagesPerSecond: 103,
  },
  light: {
    name: 'light',
    credits: CREDIT_COST.browser_request,
    mode: 'browser',
    features: new Set<EngineFeature>(BROWSER_FEATURES),
    measuredPagesPerSecond: 9.9,
  },
  heavy: {
    name: 'heavy',
    credits: CREDIT_COST.browser_request,
    mode: 'browser',
    features: new Set<EngineFeature>([...BROWSER_FEATURES, 'stealth', 'full_resources']),
    measuredPagesPerSecond: 1.5,
  },
};

/** Cheapest first, then fastest: the order in which engines are considered for a set of features. */
export const ENGINE_PREFERENCE: readonly EngineName[] = (Object.keys(ENGINES) as EngineName[]).sort(
  (a, b) => ENGINES[a].credits - ENGINES[b].credits || ENGINES[b].measuredPagesPerSecond - ENGINES[a].measuredPagesPerSecond,
);

/** The engine a request names. */
export function engineOf(request: Pick<ScrapeRequest, 'browser' | 'browser_type'>): EngineName {
  return request.browser ? request.browser_type : 'simple';
}

/** The features a request asks for (beyond page content, which every request asks for). */
export function featuresOf(request: Pick<ScrapeRequest, 'screenshot' | 'actions' | 'network_capture' | 'http_method'>): EngineFeature[] {
  const features: EngineFeature[] = ['page_content'];
  if (request.screenshot) features.push('screenshot');
  if (request.actions && request.actions.length > 0) features.push('actions');
  if (request.network_capture) features.push('network_capture');
  if (request.http_method) features.push('http_method');
  return features;
}

/** What of `features` the engine cannot do (empty: it can do all of it). */
export function unsupportedBy(engine: EngineName, features: readonly EngineFeature[]): EngineFeature[] {
  return features.filter((feature) => !ENGINES[engine].features.has(feature));
}

/** The cheapest (then fastest) engine that can do all of `features`; null when none can. */
export function cheapestEngineWith(features: readonly EngineFeature[]): EngineName | null {
  return ENGINE_PREFERENCE.find((engine) => unsupportedBy(engine, features).length === 0) ?? null;
}
