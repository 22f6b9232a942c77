import { AppError } from '@lib/errors';

/** No collection with this id for this client (another client's counts as unknown). */
export class CollectionNotFoundError extends AppError {
  readonly code = 'collection.not_found';
}

/** POST run on a collection without requests (spec 4.4: 404). */
export class CollectionEmptyError extends AppError {
  readonly code = 'collection.empty';
}

/** No run with this id under this collection for this client. */
export class RunNotFoundError extends AppError {
  readonly code = 'run.not_found';
}

/** The collection body breaks a rule of the whole request (more than 1000 requests…): 400. */
export class InvalidCollectionError extends AppError {
  readonly code = 'collection.invalid';
}

/** No project with this id for this client. */
export class ProjectNotFoundError extends AppError {
  readonly code = 'project.not_found';
}

/** No batch with this id for this client. */
export class BatchNotFoundError extends AppError {
  readonly code = 'batch.not_found';
}

/**
 * The operation is not allowed in the project's or batch's current state (decision 0014's
 * tables): 409, with the current state in `details.state`.
 */
export class InvalidStateError extends AppError {
  readonly code = 'run.invalid_state';
}

/** A project's settings break a rule (defaults that are not scrape-request fields, a blocked callback): 422. */
export class InvalidProjectError extends AppError {
  readonly code = 'project.invalid';
}

/** A batch write breaks a rule of the whole request (too many requests for one write or for the batch): 400. */
export class InvalidBatchError extends AppError {
  readonly code = 'batch.invalid';
}

/** A projects-listing cursor that is not one of ours, or was made under another status filter (400). */
export class InvalidProjectCursorError extends AppError {
  readonly code = 'project.invalid_cursor';
}

/** No monitor with this id for this client. */
export class MonitorNotFoundError extends AppError {
  readonly code = 'monitor.not_found';
}

/** The client has as many monitors as its plan allows. */
export class MonitorLimitReachedError extends AppError {
  readonly code = 'monitor.limit_reached';
}
