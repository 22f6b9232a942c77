// Prisma 7 reads this for `prisma generate`. The datasource URL is only needed by CLI
// commands we do not run (migrations are applied by libs/persistence/src/migration-runner.ts).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
