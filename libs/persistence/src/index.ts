export * from './database-connection';
export * from './migration-runner';
export * from './persistence.module';
export { Prisma, PrismaClient } from './generated/prisma/client';
export * from './credit-account';
export * from './storable-text';
