import type { ScrapeRequest } from '../api/api-client';

/** One row of a name → value list (extract, headers, cookies). */
export interface PairRow {
  name: string;
  value: string;
}

export const ACTION_TYPES = [
  'click',
  'input',
  'select',
  'key-press',
  'wait-for-selector',
  'wait-for-timeout',
  'evaluate',
  'collect',
  'while',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** An action as the list editor holds it: every field a type may use, as text. */
export interface ActionRow {
  type: ActionType;
  selector: string;
  text: string;
  value: string;
  key: string;
  script: string;
  time: string;
  /** evaluate: the script's time limit, ms. */
  timeout: string;
  waitForNavigation: boolean;
  optional: boolean;
  /** collect: name → selector as JSON; while: the whole action as JSON (condition, actions). */
  json: string;
}

/** Which fields the editor shows for each action type (the rest are not sent). */
export const ACTION_FIELDS: Record<ActionType, Array<keyof ActionRow>> = {
  click: ['selector', 'waitForNavigation', 'optional'],
  input: ['selector', 'text'],
  select: ['selector', 'value'],
  'key-press': ['key'],
  'wait-for-selector': ['selector', 'time'],
  'wait-for-timeout': ['time'],
  evaluate: ['script', 'timeout'],
  collect: ['json'],
  while: ['json'],
};

export interface ScrapeForm {
  url: string;
  format: 'html' | 'markdown';
  onlyMainContent: boolean;
  includeImages: boolean;
  includeMetadata: boolean;
  browser: boolean;
  browserType: 'light' | 'heavy';
  /** '' no proxy, 'any', or a country code. */
  proxy: string;
  /** The proxy's retry policy (use_proxy as an object); empty: the platform's defaults. */
  proxyMaxRetries: string;
  proxyDelaySeconds: string;
  proxyBackoffFactor: string;
  screenshot: boolean;
  retryOnBlock: boolean;
  /** A scanned PDF's pages read by OCR (2 credits a page). */
  ocr: boolean;
  language: string;
  windowSize: '' | 'desktop' | 'mobile' | 'any';
  customId: string;
  /** A document's pages to read ("1-5"); empty: every page. */
  pages: string;
  /** A document's most pages read; empty: the API's 2,000. */
  maxPages: string;
  httpMethod: 'get' | 'post';
  payload: string;
  contentType: 'json' | 'form';
  networkCapture: boolean;
  resourceTypes: string;
  listenAfterLoadMs: string;
  actions: ActionRow[];
  extract: PairRow[];
  headers: PairRow[];
  cookies: PairRow[];
}

/**
 * What the API assumes for a scrape request's optional fields when they are left out (the OpenAPI
 * document's defaults; test/console/scrape-form.spec.ts fails when they drift apart). The form
 * leaves a field out only when what it shows equals this, so the request always means what the
 * form shows: "light" shown is "light" sent, an unchecked "Include images" is include_images false.
 */
export const API_DEFAULTS = {
  format: 'html',
  only_main_content: false,
  include_images: true,
  include_metadata: false,
  browser: false,
  browser_type: 'heavy',
  screenshot: false,
  retry_on_block: false,
  ocr: false,
} as const;

export function emptyForm(): ScrapeForm {
  return {
    url: '',
    format: 'markdown',
    onlyMainContent: false,
    includeImages: true,
    includeMetadata: false,
    browser: false,
    browserType: 'light',
    proxy: '',
    proxyMaxRetries: '',
    proxyDelaySeconds: '',
    proxyBackoffFactor: '',
    screenshot: false,
    retryOnBlock: false,
    ocr: false,
    language: '',
    windowSize: '',
    customId: '',
    pages: '',
    maxPages: '',
    httpMethod: 'get',
    payload: '',
    contentType: 'json',
    networkCapture: false,
    resourceTypes: '',
    listenAfterLoadMs: '',
    actions: [],
    extract: [],
    headers: [],
    cookies: [],
  };
}

export function emptyAction(type: ActionType = 'click'): ActionRow {
  return {
    type,
    selector: '',
    text: '',
    value: '',
    key: '',
    script: '',
    time: '',
    timeout: '',
    waitForNavigation: false,
    optional: false,
    json: '',
  };
}

/** A problem the form finds before sending (text that must be JSON); keyed like the API's field paths. */
export class FormProblem extends Error {
  constructor(
    readonly path: Array<string | number>,
    message: string,
  ) {
    super(message);
  }
}

function parseJson(text: string, path: Array<string | number>): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FormProblem(path, `Not valid JSON: ${(error as Error).message}`);
  }
}

function pairsToObject(rows: PairRow[]): Record<string, string> | undefined {
  const filled = rows.filter((r) => r.name.trim() !== '');
  return filled.length > 0 ? Object.fromEntries(filled.map((r) => [r.name.trim(), r.value])) : undefined;
}

function actionToRequest(row: ActionRow, index: number): Record<string, unknown> {
  const action: Record<string, unknown> = { type: row.type };
  for (const field of ACTION_FIELDS[row.type]) {
    if (field === 'selector' || field === 'text' || field === 'value' || field === 'key' || field === 'script') action[field] = row[field];
    if (field === 'time' && row.time.trim() !== '') action.time = Number(row.time);
    if (field === 'timeout' && row.timeout.trim() !== '') action.timeout = Number(row.timeout);
    if (field === 'waitForNavigation' && row.waitForNavigation) action.wait_for_navigation = true;
    if (field === 'optional' && row.optional) action.optional = true;
  }
  if (row.type === 'collect') action.extract = parseJson(row.json || '{}', ['actions', index, 'extract']);
  if (row.type === 'while') return { ...(parseJson(row.json || '{}', ['actions', index]) as object), type: 'while' };
  return action;
}

/**
 * The request the form describes. A field is left out only where the form shows the API's own
 * default (API_DEFAULTS); the browser type only counts in browser mode, where the form shows it.
 */
export function toRequest(form: ScrapeForm): ScrapeRequest {
  const request: Record<string, unknown> = { url: form.url.trim() };
  const unlessDefault = <K extends keyof typeof API_DEFAULTS>(field: K, value: (typeof API_DEFAULTS)[K] | string | boolean) => {
    if (value !== API_DEFAULTS[field]) request[field] = value;
  };
  unlessDefault('format', form.format);
  unlessDefault('only_main_content', form.onlyMainContent);
  unlessDefault('include_images', form.includeImages);
  unlessDefault('include_metadata', form.includeMetadata);
  unlessDefault('browser', form.browser);
  if (form.browser) unlessDefault('browser_type', form.browserType);
  const retryPolicy = {
    ...(form.proxyMaxRetries.trim() !== '' ? { max_retries: Number(form.proxyMaxRetries) } : {}),
    ...(form.proxyDelaySeconds.trim() !== '' ? { delay_seconds: Number(form.proxyDelaySeconds) } : {}),
    ...(form.proxyBackoffFactor.trim() !== '' ? { backoff_factor: Number(form.proxyBackoffFactor) } : {}),
  };
  if (form.proxy.trim() !== '') {
    // The short form (a string) unless a retry setting asks for the object form.
    request.use_proxy = Object.keys(retryPolicy).length > 0 ? { proxy: form.proxy.trim(), ...retryPolicy } : form.proxy.trim();
  }
  unlessDefault('screenshot', form.screenshot);
  unlessDefault('retry_on_block', form.retryOnBlock);
  unlessDefault('ocr', form.ocr);
  if (form.language.trim() !== '') request.language = form.language.trim();
  if (form.windowSize !== '') request.window_size = form.windowSize;
  if (form.customId.trim() !== '') request.custom_id = form.customId.trim();
  if (form.pages.trim() !== '') request.pages = form.pages.trim();
  if (form.maxPages.trim() !== '') request.max_pages = Number(form.maxPages);
  if (form.httpMethod === 'post') {
    request.http_method = {
      method: 'post',
      content_type: form.contentType,
      ...(form.payload.trim() !== '' ? { payload: parseJson(form.payload, ['http_method', 'payload']) } : {}),
    };
  }
  if (form.networkCapture) {
    const types = form.resourceTypes
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    request.network_capture = {
      ...(types.length > 0 ? { resource_types: types } : {}),
      ...(form.listenAfterLoadMs.trim() !== '' ? { listen_after_load_ms: Number(form.listenAfterLoadMs) } : {}),
    };
  }
  if (form.actions.length > 0) request.actions = form.actions.map(actionToRequest);
  const extract = pairsToObject(form.extract);
  if (extract) request.extract = extract;
  const headers = pairsToObject(form.headers);
  if (headers) request.headers = headers;
  const cookies = pairsToObject(form.cookies);
  if (cookies) request.cookies = cookies;
  return request as ScrapeRequest;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function rowsOf(value: unknown): PairRow[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).map(([name, v]) => ({ name, value: typeof v === 'string' ? v : JSON.stringify(v) }));
}

/** A request (a suggested one from guidance or viability) back into the form. */
export function fromRequest(request: Record<string, unknown>): ScrapeForm {
  const form = emptyForm();
  form.url = text(request.url);
  // A field the request leaves out is the API's default, not the form's.
  form.format = (request.format ?? API_DEFAULTS.format) === 'markdown' ? 'markdown' : 'html';
  form.onlyMainContent = request.only_main_content === true;
  form.includeImages = request.include_images !== false;
  form.includeMetadata = request.include_metadata === true;
  form.browser = request.browser === true;
  form.browserType = (request.browser_type ?? API_DEFAULTS.browser_type) === 'light' ? 'light' : 'heavy';
  const proxy = request.use_proxy as
    string | { proxy?: string; max_retries?: number; delay_seconds?: number; backoff_factor?: number } | null | undefined;
  form.proxy = typeof proxy === 'string' ? proxy : text(proxy?.proxy);
  if (proxy && typeof proxy === 'object') {
    form.proxyMaxRetries = text(proxy.max_retries);
    form.proxyDelaySeconds = text(proxy.delay_seconds);
    form.proxyBackoffFactor = text(proxy.backoff_factor);
  }
  form.screenshot = request.screenshot === true;
  form.retryOnBlock = request.retry_on_block === true;
  form.ocr = request.ocr === true;
  form.language = text(request.language);
  form.windowSize = (['desktop', 'mobile', 'any'] as const).find((w) => w === request.window_size) ?? '';
  form.customId = text(request.custom_id);
  form.pages = text(request.pages);
  form.maxPages = text(request.max_pages);
  const method = request.http_method as { method?: string; payload?: unknown; content_type?: string } | undefined;
  if (method?.method === 'post') {
    form.httpMethod = 'post';
    form.contentType = method.content_type === 'form' ? 'form' : 'json';
    form.payload = method.payload === undefined ? '' : JSON.stringify(method.payload, null, 2);
  }
  const capture = request.network_capture as { resource_types?: string[]; listen_after_load_ms?: number } | undefined | null;
  if (capture) {
    form.networkCapture = true;
    form.resourceTypes = (capture.resource_types ?? []).join(', ');
    form.listenAfterLoadMs = text(capture.listen_after_load_ms);
  }
  if (Array.isArray(request.actions)) {
    form.actions = request.actions.map((raw: Record<string, unknown>) => {
      const type = ACTION_TYPES.find((t) => t === raw.type) ?? 'click';
      const row = emptyAction(type);
      row.selector = text(raw.selector);
      row.text = text(raw.text);
      row.value = text(raw.value);
      row.key = text(raw.key);
      row.script = text(raw.script);
      row.time = text(raw.time);
      row.timeout = text(raw.timeout);
      row.waitForNavigation = raw.wait_for_navigation === true;
      row.optional = raw.optional === true;
      if (type === 'collect') row.json = JSON.stringify(raw.extract ?? {}, null, 2);
      if (type === 'while') row.json = JSON.stringify(raw, null, 2);
      return row;
    });
  }
  form.extract = rowsOf(request.extract);
  form.headers = rowsOf(request.headers);
  form.cookies = rowsOf(request.cookies);
  return form;
}

/** A request handed to the playground from another page (guidance, viability), read once. */
const DRAFT_KEY = 'scrape-console.playground-draft';

export function handToPlayground(request: Record<string, unknown>): void {
  window.sessionStorage.setItem(DRAFT_KEY, JSON.stringify(request));
}

export function takeHandedRequest(): Record<string, unknown> | null {
  const raw = window.sessionStorage.getItem(DRAFT_KEY);
  window.sessionStorage.removeItem(DRAFT_KEY);
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
