import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Max,
  Min,
  MinLength,
  ValidateNested,
  registerDecorator,
  ValidationOptions,
} from 'class-validator';
import { IsExtractionMap } from './scrape-request-rules';

/**
 * Browser actions (spec 2.3). The spec shows the fields of every type but `select` and `while`;
 * ours are documented in the OpenAPI description and docs/api-guide.md:
 *   select: { selector, value }                      — choose the <option> whose value is `value`
 *   while:  { condition, actions, max_iterations }   — repeat `actions` while `condition` holds
 * Each type is its own class so a bad field is reported at its own location
 * (`["body", "actions", 2, "selector"]`).
 */

export const ACTION_TYPES = [
  'click',
  'input',
  'key-press',
  'evaluate',
  'collect',
  'wait-for-selector',
  'wait-for-timeout',
  'select',
  'while',
] as const;

export const ACTION_LIMITS = {
  /** Declared actions in one request, loops' bodies included. */
  maxDeclared: 200,
  /** Actions executed in one request, every loop iteration counted. */
  maxExecuted: 1000,
  /** Nesting of `while` inside `while`. */
  maxWhileDepth: 3,
  maxIterations: 100,
  defaultIterations: 10,
  /** Longest single wait (wait-for-timeout, wait-for-selector, click navigation). */
  maxWaitMs: 30_000,
  defaultWaitMs: 10_000,
  /** evaluate's own timeout (spec 8: default 30000 ms). */
  defaultEvaluateMs: 30_000,
  maxEvaluateMs: 60_000,
  /** All actions of one request together. */
  totalBudgetMs: 90_000,
} as const;

// By name, not getSchemaPath(class): WhileAction's own schema refers to these before they exist.
const ACTION_SCHEMA_NAMES = [
  'ClickAction',
  'InputAction',
  'KeyPressAction',
  'EvaluateAction',
  'CollectAction',
  'WaitForSelectorAction',
  'WaitForTimeoutAction',
  'SelectAction',
  'WhileAction',
];

/** The OpenAPI `oneOf` for one action (the models are registered by BrowserActionModels). */
export function actionSchema() {
  return { oneOf: ACTION_SCHEMA_NAMES.map((name) => ({ $ref: `#/components/schemas/${name}` })) };
}

const SELECTOR_RULE = 'css:<selector>, xpath:<expression> or a bare //expression';

abstract class ActionBase {
  abstract type: string;
}

export class ClickAction extends ActionBase {
  @ApiProperty({ enum: ['click'] }) @Equals('click') type: 'click';
  @ApiProperty({ description: SELECTOR_RULE }) @IsString() @MinLength(1) @MaxLength(2000) selector: string;
  @ApiPropertyOptional({ default: false, description: 'Wait for the navigation the click starts.' })
  @IsOptional()
  @IsBoolean()
  wait_for_navigation?: boolean;
  @ApiPropertyOptional({ default: false, description: 'A missing element is skipped instead of failing the request.' })
  @IsOptional()
  @IsBoolean()
  optional?: boolean;
}

export class InputAction extends ActionBase {
  @ApiProperty({ enum: ['input'] }) @Equals('input') type: 'input';
  @ApiProperty({ description: SELECTOR_RULE }) @IsString() @MinLength(1) @MaxLength(2000) selector: string;
  @ApiProperty({ description: 'Typed into the element (appended to what it holds).' }) @IsString() @MaxLength(10_000) text: string;
}

export class KeyPressAction extends ActionBase {
  @ApiProperty({ enum: ['key-press'] }) @Equals('key-press') type: 'key-press';
  @ApiProperty({ example: 'Enter', description: 'A key name (Enter, Tab, ArrowDown, Escape, a, …).' })
  @IsString()
  @MinLength(1)
  @MaxLength(50)
  key: string;
}

export class EvaluateAction extends ActionBase {
  @ApiProperty({ enum: ['evaluate'] }) @Equals('evaluate') type: 'evaluate';
  @ApiProperty({
    description:
      'JavaScript in the page: an expression (`document.title`) or a function, possibly async (`async () => …`). Its JSON value goes to evaluate_results.',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(100_000)
  script: string;
  @ApiPropertyOptional({
    type: 'integer',
    default: ACTION_LIMITS.defaultEvaluateMs,
    nullable: true,
    minimum: 1,
    maximum: ACTION_LIMITS.maxEvaluateMs,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(ACTION_LIMITS.maxEvaluateMs)
  timeout?: number | null;
}

export class CollectAction extends ActionBase {
  @ApiProperty({ enum: ['collect'] }) @Equals('collect') type: 'collect';
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Same format as the top-level extract. Values accumulate into extracted_data across loop iterations.',
  })
  @IsExtractionMap()
  extract: Record<string, string | { selector: string; multiple?: boolean; attribute?: string }>;
}

export class WaitForSelectorAction extends ActionBase {
  @ApiProperty({ enum: ['wait-for-selector'] }) @Equals('wait-for-selector') type: 'wait-for-selector';
  @ApiProperty({ description: SELECTOR_RULE }) @IsString() @MinLength(1) @MaxLength(2000) selector: string;
  @ApiPropertyOptional({
    type: 'integer',
    default: ACTION_LIMITS.defaultWaitMs,
    minimum: 0,
    maximum: ACTION_LIMITS.maxWaitMs,
    description: 'How long to wait, ms.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ACTION_LIMITS.maxWaitMs)
  time?: number;
}

export class WaitForTimeoutAction extends ActionBase {
  @ApiProperty({ enum: ['wait-for-timeout'] }) @Equals('wait-for-timeout') type: 'wait-for-timeout';
  @ApiProperty({ type: 'integer', minimum: 0, maximum: ACTION_LIMITS.maxWaitMs })
  @IsInt()
  @Min(0)
  @Max(ACTION_LIMITS.maxWaitMs)
  time: number;
}

export class SelectAction extends ActionBase {
  @ApiProperty({ enum: ['select'] }) @Equals('select') type: 'select';
  @ApiProperty({ description: `The <select> element: ${SELECTOR_RULE}.` }) @IsString() @MinLength(1) @MaxLength(2000) selector: string;
  @ApiProperty({ description: 'The `value` attribute of the <option> to choose; fails when no option has it.' })
  @IsString()
  @MaxLength(2000)
  value: string;
}

export const WHILE_STATES = ['exists', 'visible', 'enabled'] as const;

/** `while` condition: an element in a state, or a JavaScript expression that is truthy. */
export class WhileCondition {
  @ApiPropertyOptional({ description: `${SELECTOR_RULE}. Give selector (with state) or script.` })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(2000)
  selector?: string;
  @ApiPropertyOptional({ enum: WHILE_STATES, default: 'exists' }) @IsOptional() @IsIn(WHILE_STATES) state?: (typeof WHILE_STATES)[number];
  @ApiPropertyOptional({ description: 'A JavaScript expression evaluated in the page; the loop goes on while it is truthy.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(10_000)
  script?: string;
}

export class WhileAction extends ActionBase {
  @ApiProperty({ enum: ['while'] }) @Equals('while') type: 'while';
  @ApiProperty({ type: WhileCondition })
  @IsObject()
  @ExactlyOneCondition()
  @ValidateNested()
  @Type(() => WhileCondition)
  condition: WhileCondition;
  @ApiProperty({
    type: 'array',
    items: actionSchema(),
    description: 'Run in order on every iteration; may contain while (nesting up to depth 3).',
  })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => UnknownAction, actionDiscriminator())
  actions: BrowserAction[];
  @ApiPropertyOptional({ type: 'integer', default: ACTION_LIMITS.defaultIterations, minimum: 1, maximum: ACTION_LIMITS.maxIterations })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(ACTION_LIMITS.maxIterations)
  max_iterations?: number;
}

/** What an action of an unknown type becomes, so the problem is reported at its `type`. */
export class UnknownAction extends ActionBase {
  @IsIn(ACTION_TYPES, { message: `type must be one of: ${ACTION_TYPES.join(', ')}.` })
  type: string;
}

export type BrowserAction =
  | ClickAction
  | InputAction
  | KeyPressAction
  | EvaluateAction
  | CollectAction
  | WaitForSelectorAction
  | WaitForTimeoutAction
  | SelectAction
  | WhileAction;

export const ACTION_CLASSES = {
  click: ClickAction,
  input: InputAction,
  'key-press': KeyPressAction,
  evaluate: EvaluateAction,
  collect: CollectAction,
  'wait-for-selector': WaitForSelectorAction,
  'wait-for-timeout': WaitForTimeoutAction,
  select: SelectAction,
  while: WhileAction,
} as const;

/** class-transformer turns each plain action into its type's class (keeping `type`). */
export function actionDiscriminator() {
  return {
    discriminator: {
      property: 'type',
      // A getter: WhileAction's decorator asks for this before ACTION_CLASSES exists.
      get subTypes() {
        return Object.entries(ACTION_CLASSES).map(([name, value]) => ({ name, value: value as unknown as new () => unknown }));
      },
    },
    keepDiscriminatorProperty: true,
  };
}

/** Every action schema, for ApiExtraModels where the scrape request is documented. */
export const BROWSER_ACTION_MODELS = [
  ClickAction,
  InputAction,
  KeyPressAction,
  EvaluateAction,
  CollectAction,
  WaitForSelectorAction,
  WaitForTimeoutAction,
  SelectAction,
  WhileAction,
  WhileCondition,
];

function ExactlyOneCondition(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'exactlyOneCondition',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'object' || value === null) return true;
          const c = value as WhileCondition;
          return (c.selector !== undefined) !== (c.script !== undefined) && (c.state === undefined || c.selector !== undefined);
        },
        defaultMessage: () => 'condition needs either {selector, state?: exists|visible|enabled} or {script}, not both.',
      },
    });
}

/** Depth of `while` nesting and the number of declared actions (bodies included). */
export function measureActions(actions: unknown): { declared: number; depth: number } {
  let declared = 0;
  let depth = 0;
  const walk = (list: unknown, level: number) => {
    if (!Array.isArray(list)) return;
    for (const action of list) {
      declared += 1;
      if (action && typeof action === 'object' && (action as { type?: unknown }).type === 'while') {
        depth = Math.max(depth, level + 1);
        walk((action as { actions?: unknown }).actions, level + 1);
      }
    }
  };
  walk(actions, 0);
  return { declared, depth };
}

/** Bounds on the whole action tree: declared count and `while` depth. */
export function WithinActionLimits(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'withinActionLimits',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => {
          if (value === null || value === undefined) return true;
          const { declared, depth } = measureActions(value);
          return declared <= ACTION_LIMITS.maxDeclared && depth <= ACTION_LIMITS.maxWhileDepth;
        },
        defaultMessage: () =>
          `actions may hold at most ${ACTION_LIMITS.maxDeclared} actions in all (loop bodies included) and nest while at most ${ACTION_LIMITS.maxWhileDepth} deep.`,
      },
    });
}
