import { AppError } from '@lib/errors';
import { Injectable, PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';

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
  constructor(private readonly kind: 'collection' | 'run') {}

  transform(value: string): string {
    if (!isUUID(value)) throw new UnknownResourceError(`batch.${this.kind}_not_found`, `${this.kind === 'run' ? 'Run' : 'Collection'} ${value} not found.`);
    return value.toLowerCase();
  }
}

export const COLLECTION_ID = new ResourceIdPipe('collection');
export const RUN_ID = new ResourceIdPipe('run');
