import { AppError } from '@lib/errors';

/** An include or exclude pattern that is not a valid glob or RE2 expression: 400. */
export class InvalidScopePatternError extends AppError {
  readonly code = 'discovery.invalid_pattern';
}

/** ignore_robots asked where the operator has not allowed it (IGNORE_ROBOTS_ALLOWED): 403. */
export class RobotsOverrideRefusedError extends AppError {
  readonly code = 'discovery.robots_override_refused';
}
