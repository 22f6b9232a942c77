import { AppError } from '@lib/errors';
import { Injectable, PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { DomainErrorCode } from '../http-errors/error-status.table';

class UnknownResourceError extends AppError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A path id that cannot be a UUID names nothing: 404 with the same code as an unknown id of that
 * kind (spec 4.3/4.4 speak of unknown collections and runs, not of malformed ids).
 */
@Injectable()
export class ResourceIdPipe implements PipeTransform<string, string> {
  constructor(
    private readonly notFoundCode: DomainErrorCode,
    private readonly kind: string,
  ) {}

  transform(value: string): string {
    if (!isUUID(value)) throw new UnknownResourceError(this.notFoundCode, `${this.kind} ${value} not found.`);
    return value.toLowerCase();
  }
}

export const COLLECTION_ID = new ResourceIdPipe('collection.not_found', 'Collection');
export const RUN_ID = new ResourceIdPipe('run.not_found', 'Run');
export const VIABILITY_RUN_ID = new ResourceIdPipe('viability.run_not_found', 'Viability run');
export const PROJECT_ID = new ResourceIdPipe('project.not_found', 'Project');
export const BATCH_ID = new ResourceIdPipe('batch.not_found', 'Batch');
export const CRAWL_ID = new ResourceIdPipe('discovery.crawl_not_found', 'Crawl');
export const DELIVERY_ID = new ResourceIdPipe('webhook.not_found', 'Delivery');
export const MONITOR_ID = new ResourceIdPipe('monitor.not_found', 'Monitor');
