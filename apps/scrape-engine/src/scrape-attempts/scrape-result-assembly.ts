import type { ScrapeExecutionFacts, ScrapeRequest, ScrapeResultBody } from '@lib/contracts';
import type { EngineSpec } from '../engines/engine-table';
import { withFormatNotes } from '../formats/page-formatter';
import type { Guidance, GuidanceAdvisor, ScrapeOutcome } from '../guidance/guidance-advisor';
import { type AttemptFailure, type AttemptsOutcome, executionFacts } from './scrape-attempts';

/** The typed failures of every engine. */
type FailureType = Extract<ScrapeOutcome, { kind: 'failure' }>['errorType'];

/** The response's content fields, as an executor shaped them from its answer (or `noPageContent()` without one). */
export type ShapedBody = Omit<
  ScrapeResultBody,
  'statusCode' | 'message' | 'executionTime' | 'potentiallyBlockedByCaptcha' | 'timings' | 'guidance'
>;

/** The site's answer as the response reports it. */
export interface AnswerStatus {
  statusCode: number;
  statusText: string;
}

/**
 * The last step every engine shares: from the attempts' outcome and the shaped body to the spec
 * 2.7 response (status, message, timings, captcha flag) with its guidance and format notes, and
 * the facts billing and the job listing go by. Credits are the engine's (ENGINES) when the site
 * answered — or `credits` when the answer costs more (a document's pages) — nothing otherwise. `adjust` lets an engine refine the guidance before format notes
 * are added (the browser: a failed action outranks "usable").
 */
export function assembleScrapeResult<A, F extends AttemptFailure & { errorType: FailureType }>(input: {
  engine: EngineSpec;
  request: ScrapeRequest;
  outcome: AttemptsOutcome<A, F>;
  answered: AnswerStatus | null;
  body: ShapedBody;
  notes: string[];
  timings: Record<string, number>;
  totalMs: number;
  targetHost: string;
  advisor: GuidanceAdvisor;
  credits?: number;
  adjust?: (guidance: Guidance) => Guidance;
}): { facts: ScrapeExecutionFacts; result: ScrapeResultBody } {
  const { outcome, answered, engine } = input;
  const { verdict, failure, attempts } = outcome;
  const credits = answered ? Math.max(engine.credits, input.credits ?? 0) : 0;
  const scrapeOutcome: ScrapeOutcome =
    answered && verdict
      ? { kind: 'response', statusCode: answered.statusCode, verdict, attempts }
      : { kind: 'failure', errorType: failure!.errorType, message: failure!.message, attempts };
  let guidance = input.advisor.advise(input.request, scrapeOutcome, credits);
  if (input.adjust) guidance = input.adjust(guidance);
  const result: ScrapeResultBody = {
    ...input.body,
    statusCode: answered?.statusCode ?? 0,
    message: answered ? answered.statusText : failure!.message,
    executionTime: Math.round(input.totalMs) / 1000,
    potentiallyBlockedByCaptcha: verdict?.potentiallyBlockedByCaptcha ?? false,
    timings: Object.fromEntries(Object.entries(input.timings).map(([name, ms]) => [name, Math.round(ms * 10) / 10])),
    guidance: withFormatNotes(guidance, input.notes),
  };
  return { facts: executionFacts(engine.mode, credits, input.targetHost, answered?.statusCode ?? null, outcome), result };
}
