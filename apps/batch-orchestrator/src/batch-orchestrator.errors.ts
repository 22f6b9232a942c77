import { AppError } from '@lib/errors';

/** No collection with this id for this client (another client's counts as unknown). */
export class CollectionNotFoundError extends AppError {
  readonly code = 'batch.collection_not_found';
}

/** POST run on a collection without requests (spec 4.4: 404). */
export class CollectionEmptyError extends AppError {
  readonly code = 'batch.collection_empty';
}

/** No run with this id under this collection for this client. */
export class RunNotFoundError extends AppError {
  readonly code = 'batch.run_not_found';
}

/** The collection body breaks a rule of the whole request (more than 1000 requests…): 400. */
export class InvalidCollectionError extends AppError {
  readonly code = 'batch.invalid_collection';
}
