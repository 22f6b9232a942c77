import type { PlatformConfig } from '@lib/config';
import type { ScrapeExecutionFacts, ScrapeRequest, ScrapeResultBody } from '@lib/contracts';
import { AppError, type SerializedAppError } from '@lib/errors';
import { SimpleFetcher } from '@lib/http-fetch';
import { TargetAllowlist, TargetGuard } from '@lib/target-guard';
import { parentPort, workerData } from 'node:worker_threads';
import { ContentValidator } from '../content-validation/content-validator';
import { SelectorExtractor } from '../extraction/selector-extractor';
import { MainContentReader } from '../formats/main-content-reader';
import { MarkdownConverter } from '../formats/markdown-converter';
import { PageFormatter } from '../formats/page-formatter';
import { GuidanceAdvisor } from '../guidance/guidance-advisor';
import { ProxyRotation } from '../proxy-rotation/proxy-rotation';
import { DocumentThreads } from '../documents/document-threads';
import { SimpleScrapeExecutor, type SimpleScrapeOptions } from '../sync-scrape/simple-scrape.executor';

/**
 * A simple-mode scrape engine on a thread of its own (see SimpleScrapeThreads, its main-thread
 * side): the same SimpleScrapeExecutor, built from the same config, doing the requests it is sent
 * side by side, as the event loop's own does.
 */
export interface ThreadSettings {
  role: 'simple-scrape-thread';
  config: PlatformConfig;
}

export type ThreadRequest = { id: number; request: ScrapeRequest; options: SimpleScrapeOptions };

export type ThreadReply =
  | { id: number; value: { facts: ScrapeExecutionFacts; result: ScrapeResultBody } }
  /** A domain error as its wire form (its code decides the status); anything else as its message. */
  | { id: number; error: SerializedAppError | { message: string } }
  | { id: 0; ready: true };

export function simpleScrapeExecutorFor(
  config: Pick<PlatformConfig, 'targetAllowlist' | 'proxyPool' | 'documentMaxBytes' | 'memoryReclaimIdleMs'>,
  reader: MainContentReader,
) {
  const guard = new TargetGuard(new TargetAllowlist(config.targetAllowlist));
  const extractor = new SelectorExtractor();
  return new SimpleScrapeExecutor(
    guard,
    new SimpleFetcher(guard),
    new ProxyRotation(config),
    new ContentValidator(),
    new PageFormatter(new MarkdownConverter(reader), extractor),
    extractor,
    new GuidanceAdvisor(),
    config,
    new DocumentThreads(config.memoryReclaimIdleMs || 30_000),
  );
}

async function serve(settings: ThreadSettings): Promise<void> {
  const port = parentPort!;
  const executor = simpleScrapeExecutorFor(settings.config, await MainContentReader.load());
  port.on('message', ({ id, request, options }: ThreadRequest) => {
    executor.execute(request, options).then(
      (value) => port.postMessage({ id, value } satisfies ThreadReply),
      (error: unknown) =>
        port.postMessage({
          id,
          error: error instanceof AppError ? error.toJSON() : { message: error instanceof Error ? error.message : String(error) },
        } satisfies ThreadReply),
    );
  });
  port.postMessage({ id: 0, ready: true } satisfies ThreadReply);
}

if (parentPort && (workerData as ThreadSettings | undefined)?.role === 'simple-scrape-thread') {
  // A failure to start rejects unhandled, which ends the thread with an 'error' the main thread hears.
  void serve(workerData as ThreadSettings);
}
