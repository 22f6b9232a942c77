import { ACTION_LIMITS, type BrowserAction } from '@lib/contracts';
import type { ElementHandle, Page } from 'rebrowser-puppeteer-core';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ExtractionSpec, parseSelector, type SelectorExtractor } from '../extraction/selector-extractor';
import { ParsedPage } from '../formats/parsed-page';
import { firstLine, withinDeadline } from './browser-failures';

/** Why the action list stopped: which action (its index path) and what went wrong. */
export interface ActionError {
  /** `actions[3]`, or `actions[2].actions[0]` inside a while loop. */
  action: string;
  type: string;
  message: string;
}

export interface EvaluateResult {
  action: string;
  value: unknown;
  error: string | null;
}

export interface ActionsOutcome {
  evaluateResults: EvaluateResult[];
  /** What collect actions gathered, merged across loop iterations; null when none ran. */
  collected: Record<string, unknown> | null;
  error: ActionError | null;
}

class ActionFailed extends Error {}
/** The page stopped answering (a script looping forever): nothing more can run on it. */
export class PageUnresponsiveError extends Error {}

/** A `css:`/`xpath:`/bare selector as a puppeteer selector. */
export function puppeteerSelector(selector: string): string {
  const { kind, expression } = parseSelector(selector);
  return kind === 'xpath' ? `::-p-xpath(${expression})` : expression;
}

/**
 * Runs the actions of spec 2.3 in order on a loaded page, each with its own timeout inside one
 * budget for the whole list (ACTION_LIMITS). The first failing action stops the list and is
 * reported by its index path; evaluate errors are recorded per entry and do not stop the list.
 */
export class ActionRunner {
  private readonly deadline: number;
  private executed = 0;
  private readonly evaluateResults: EvaluateResult[] = [];
  private collected: Record<string, unknown> | null = null;

  constructor(
    private readonly page: Page,
    private readonly extractor: SelectorExtractor,
    budgetMs: number = ACTION_LIMITS.totalBudgetMs,
  ) {
    this.deadline = performance.now() + budgetMs;
  }

  async run(actions: BrowserAction[]): Promise<ActionsOutcome> {
    let error: ActionError | null = null;
    try {
      await this.runList(actions, 'actions');
    } catch (failure) {
      if (!(failure instanceof StoppedAt)) throw failure;
      error = failure.error;
    }
    return { evaluateResults: this.evaluateResults, collected: this.collected, error };
  }

  private async runList(actions: BrowserAction[], path: string): Promise<void> {
    for (const [index, action] of actions.entries()) {
      const at = `${path}[${index}]`;
      if (this.executed >= ACTION_LIMITS.maxExecuted)
        throw new StoppedAt({
          action: at,
          type: action.type,
          message: `more than ${ACTION_LIMITS.maxExecuted} actions were executed (loops included); the list was stopped`,
        });
      if (this.remaining() <= 0)
        throw new StoppedAt({
          action: at,
          type: action.type,
          message: `the actions' time budget of ${ACTION_LIMITS.totalBudgetMs} ms ran out before this action`,
        });
      this.executed += 1;
      try {
        await this.runOne(action, at);
      } catch (failure) {
        if (failure instanceof StoppedAt) throw failure;
        throw new StoppedAt({ action: at, type: action.type, message: firstLine(failure) });
      }
    }
  }

  private async runOne(action: BrowserAction, at: string): Promise<void> {
    const page = this.page;
    switch (action.type) {
      case 'click': {
        const selector = puppeteerSelector(action.selector);
        const element = action.optional ? await page.$(selector) : await this.visible(action.selector, ACTION_LIMITS.defaultWaitMs);
        if (!element) return; // optional and absent
        if (action.wait_for_navigation) {
          await Promise.all([
            page.waitForNavigation({ waitUntil: 'load', timeout: this.bounded(ACTION_LIMITS.maxWaitMs) }),
            element.click(),
          ]);
        } else {
          await element.click();
        }
        return;
      }
      case 'input': {
        const element = await this.visible(action.selector, ACTION_LIMITS.defaultWaitMs);
        await element.type(action.text);
        return;
      }
      case 'key-press':
        await page.keyboard.press(action.key as Parameters<Page['keyboard']['press']>[0]);
        return;
      case 'evaluate': {
        const timeout = this.bounded(action.timeout ?? ACTION_LIMITS.defaultEvaluateMs);
        try {
          const value = await withTimeout(
            page.evaluate(evaluationSource(action.script)),
            timeout,
            `evaluate did not finish within ${timeout} ms`,
          );
          this.evaluateResults.push({ action: at, value: value === undefined ? null : value, error: null });
        } catch (error) {
          this.evaluateResults.push({ action: at, value: null, error: firstLine(error) });
          if (error instanceof TimedOut) await this.assertResponsive();
        }
        return;
      }
      case 'collect': {
        const values = this.extractor.extract(
          new ParsedPage(await page.content(), page.url()),
          action.extract as Record<string, ExtractionSpec>,
        );
        this.collected = mergeCollected(this.collected, values);
        return;
      }
      case 'wait-for-selector': {
        const timeout = this.bounded(action.time ?? ACTION_LIMITS.defaultWaitMs);
        const found = await page.waitForSelector(puppeteerSelector(action.selector), { timeout }).catch(() => null);
        if (!found) throw new ActionFailed(`no element matched ${action.selector} within ${timeout} ms`);
        return;
      }
      case 'wait-for-timeout':
        await sleep(this.bounded(action.time));
        return;
      case 'select': {
        const element = await this.visible(action.selector, ACTION_LIMITS.defaultWaitMs);
        const check = await element.evaluate((el, value) => {
          if (el.tagName !== 'SELECT') return `is a <${el.tagName.toLowerCase()}>, not a <select>`;
          return Array.from((el as HTMLSelectElement).options).some((o) => o.value === value)
            ? null
            : `has no option with value "${value}"`;
        }, action.value);
        if (check) throw new ActionFailed(`${action.selector} ${check}`);
        await (element as ElementHandle<HTMLSelectElement>).select(action.value);
        return;
      }
      case 'while': {
        const max = action.max_iterations ?? ACTION_LIMITS.defaultIterations;
        for (let iteration = 0; iteration < max; iteration += 1) {
          if (!(await this.holds(action.condition))) return;
          await this.runList(action.actions, `${at}.actions`);
        }
        return;
      }
    }
  }

  private async holds(condition: { selector?: string; state?: string; script?: string }): Promise<boolean> {
    if (condition.script !== undefined) {
      const value = await withTimeout(
        this.page.evaluate(evaluationSource(condition.script)),
        this.bounded(ACTION_LIMITS.defaultWaitMs),
        'the while condition script did not finish in time',
      );
      return Boolean(value);
    }
    const element = await this.page.$(puppeteerSelector(condition.selector!));
    if (!element) return false;
    switch (condition.state ?? 'exists') {
      case 'visible':
        return element.isVisible();
      case 'enabled':
        return element.evaluate((el) => !(el as HTMLButtonElement).disabled && el.getAttribute('aria-disabled') !== 'true');
      default:
        return true;
    }
  }

  private async visible(selector: string, waitMs: number): Promise<ElementHandle> {
    const timeout = this.bounded(waitMs);
    const element = await this.page.waitForSelector(puppeteerSelector(selector), { visible: true, timeout }).catch(() => null);
    if (!element) throw new ActionFailed(`no visible element matched ${selector} within ${timeout} ms`);
    return element;
  }

  private async assertResponsive(): Promise<void> {
    try {
      await withTimeout(this.page.evaluate('1'), 2000, 'unresponsive');
    } catch {
      throw new PageUnresponsiveError('the page stopped responding (a script runs without end); no further action can run');
    }
  }

  private remaining(): number {
    return this.deadline - performance.now();
  }

  private bounded(ms: number): number {
    return Math.max(1, Math.min(ms, Math.floor(this.remaining())));
  }
}

class StoppedAt extends Error {
  constructor(readonly error: ActionError) {
    super(error.message);
  }
}

class TimedOut extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  return withinDeadline(work, ms, () => new TimedOut(message));
}

/**
 * evaluate's `script` (spec 2.3): a function — `() => …`, `async () => …`, `function () {…}` — is
 * called; anything else is an expression. A promise either way is awaited.
 */
export function evaluationSource(script: string): string {
  const trimmed = script.trim();
  const isFunction = /^(async\s+)?function\b/.test(trimmed) || /^(async\s*)?(\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>/.test(trimmed);
  return isFunction ? `(${trimmed})()` : trimmed;
}

/**
 * collect accumulates: the first value of a name is kept as extracted; later ones are appended
 * (lists concatenated), so a loop that collects a page of rows per iteration returns all rows.
 */
export function mergeCollected(into: Record<string, unknown> | null, values: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(into ?? {}) };
  for (const [name, value] of Object.entries(values)) {
    if (!(name in merged)) {
      merged[name] = value;
      continue;
    }
    const before = merged[name];
    merged[name] = [...(Array.isArray(before) ? before : [before]), ...(Array.isArray(value) ? value : [value])];
  }
  return merged;
}
