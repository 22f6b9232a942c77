export * from './database-connection';
export * from './migration-runner';
export * from './persistence.module';
export { Prisma, PrismaClient } from './generated/prisma/client';
// Row types of every table, for stores that read and write them with SQL: derived from the schema, never hand-written.
export type {
  ApiToken,
  Client,
  Collection,
  CountryProxyRequest,
  CreditLedgerEntry,
  CreditReservation,
  IdempotencyKey,
  Job,
  JobResult,
  Project,
  Run,
  ViabilityRun,
  ViabilityUrl,
  WebhookDelivery,
  WebhookOutbox,
  WebhookSecret,
} from './generated/prisma/client';
export * from './handed-over-rows';
export * from './credit-account';
export * from './storable-text';
export * from './quota-thresholds';
