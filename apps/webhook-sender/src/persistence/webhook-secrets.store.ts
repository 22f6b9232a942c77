import { DATABASE, type DatabaseConnection, type WebhookSecret } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/**
 * The `webhook_secrets` table, owned by webhook-sender; secrets are stored sealed (SecretSealer),
 * this store never sees a plain one. Prisma Client: one row per client, read once per delivery
 * attempt and written on first use or rotation — off every hot path (docs/decisions/0012).
 */
@Injectable()
export class WebhookSecretStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** Stores `sealed` unless the client has a secret already (two first uses at once agree on the winner's). */
  async insertIfAbsent(clientId: string, sealed: string, at: Date): Promise<void> {
    await this.db.prisma.webhookSecret.createMany({ data: [{ clientId, secret: sealed, createdAt: at }], skipDuplicates: true });
  }

  async sealedOf(clientId: string): Promise<string | null> {
    const row = await this.db.prisma.webhookSecret.findUnique({ where: { clientId }, select: { secret: true } });
    return row?.secret ?? null;
  }

  /** Replaces the client's secret (rotation), creating it when there was none. */
  async replace(clientId: string, sealed: string, at: Date): Promise<void> {
    await this.db.prisma.webhookSecret.upsert({
      where: { clientId },
      create: { clientId, secret: sealed, createdAt: at, rotatedAt: at },
      update: { secret: sealed, rotatedAt: at },
    });
  }

  /** Swaps the stored form of the same secret, unless a rotation replaced it meanwhile. */
  async reseal(clientId: string, stored: string, resealed: string): Promise<void> {
    await this.db.prisma.webhookSecret.updateMany({ where: { clientId, secret: stored }, data: { secret: resealed } });
  }

  /** Up to `limit` secrets not sealed under `prefix` (the current key), in client order. */
  async notSealedWith(prefix: string, limit: number): Promise<Array<Pick<WebhookSecret, 'clientId' | 'secret'>>> {
    return this.db.prisma.webhookSecret.findMany({
      where: { NOT: { secret: { startsWith: prefix } } },
      select: { clientId: true, secret: true },
      orderBy: { clientId: 'asc' },
      take: limit,
    });
  }
}
