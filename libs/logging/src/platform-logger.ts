import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import { currentCorrelationId } from './correlation';

/**
 * Structured JSON logs (one object a line on stdout). Every line carries the service name and,
 * inside a request or message handler, its correlation id.
 */
export function createRootLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const correlationId = currentCorrelationId();
      return correlationId ? { correlation_id: correlationId } : {};
    },
  });
}

// Nest announces every module and route it wires at start; useful when debugging wiring, noise
// otherwise (about 60 lines per start of the whole platform).
const FRAMEWORK_BOOT_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestMicroservice',
  'NestApplication',
]);

/** Adapts pino to Nest's LoggerService so framework messages come out as JSON too. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write(context && FRAMEWORK_BOOT_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, traceOrContext?: string, context?: string): void {
    const ctx = context ?? (traceOrContext && !traceOrContext.includes('\n') ? traceOrContext : undefined);
    const stack = traceOrContext && traceOrContext.includes('\n') ? traceOrContext : undefined;
    this.logger.error({ context: ctx, stack }, stringify(message));
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: 'info' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, context?: string): void {
    this.logger[level]({ context }, stringify(message));
  }
}

function stringify(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message instanceof Error) return message.stack ?? message.message;
  return JSON.stringify(message);
}
