import { RUN_COMPLETION_EVENTS, type RunKind, type RunWebhookReference, SUBJECTS } from '@lib/contracts';
import type { DatabaseConnection } from '@lib/persistence';
import { systemClock } from '@lib/runtime';
import { randomUUID } from 'node:crypto';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import type { WebhookDispatcher } from '../delivery/webhook-dispatcher';
import { WebhookOutboxStore } from '../persistence/webhook-outbox.store';
import { RunDeliveryListing } from '../run-deliveries/run-delivery-listing';
import type { SigningSecrets } from '../signing-secrets/signing-secrets';
import { WebhookSenderController } from '../webhook-sender.controller';
import { DeliveryLog } from './delivery-log';

/**
 * One family of subjects answers every run kind's webhooks (decision 0036): a run's own is found by
 * the completion event of the kind the route names (and a collection's run under its collection),
 * one delivery by its id within its run; the previous release's per-kind subjects ask the same.
 */
describe.each(DATABASE_BACKENDS)('the delivery log of every run kind (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  let log: DeliveryLog;
  let controller: WebhookSenderController;
  const clientId = `deliveries-${randomUUID()}`;
  const collectionId = randomUUID();
  const runs: Record<RunKind, string> = { collection: randomUUID(), batch: randomUUID(), crawl: randomUUID(), monitor: randomUUID() };
  const pageDelivery = randomUUID();

  async function outboxRow(runId: string, subjectId: string, payload: Record<string, unknown>, id = randomUUID()): Promise<string> {
    await db.sql.query(
      'insert into webhook_outbox (id, run_id, subject_id, client_id, callback_url, payload, next_attempt_at) values ($1, $2, $3, $4, $5, $6::jsonb, now())',
      [id, runId, subjectId, clientId, 'https://hooks.example/receive', JSON.stringify(payload)],
    );
    return id;
  }

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'delivery_log'));
    log = new DeliveryLog(new WebhookOutboxStore(db), systemClock);
    const dispatcher = { nudge: () => undefined } as unknown as WebhookDispatcher;
    controller = new WebhookSenderController({} as SigningSecrets, log, dispatcher, new RunDeliveryListing(new WebhookOutboxStore(db)));
    await outboxRow(runs.collection, runs.collection, {
      event: RUN_COMPLETION_EVENTS.collection,
      run_id: runs.collection,
      collection_id: collectionId,
    });
    await outboxRow(runs.batch, runs.batch, { event: RUN_COMPLETION_EVENTS.batch, batch_id: runs.batch, run_id: runs.batch });
    await outboxRow(runs.crawl, randomUUID(), { event: 'crawl.page', crawl_id: runs.crawl, url: 'https://example.com/a' }, pageDelivery);
    await outboxRow(runs.crawl, runs.crawl, { event: RUN_COMPLETION_EVENTS.crawl, crawl_id: runs.crawl, run_id: runs.crawl });
  });
  afterAll(async () => close());

  const own = (kind: RunKind, extra: Partial<RunWebhookReference> = {}): RunWebhookReference => ({
    client_id: clientId,
    run_id: runs[kind],
    kind,
    ...extra,
  });

  it.each(['collection', 'batch', 'crawl'] as const)("finds a %s run's own webhook by its kind", async (kind) => {
    const found = await log.of(own(kind, kind === 'collection' ? { collection_id: collectionId } : {}));
    expect(found).toMatchObject({ run_id: runs[kind], status: 'pending', attempts: [] });
  });

  it.each([
    ['a batch asked for as a collection run', own('collection', { run_id: runs.batch, collection_id: collectionId })],
    ['a collection run under another collection', own('collection', { collection_id: randomUUID() })],
    ['a collection run asked for as a batch', own('batch', { run_id: runs.collection })],
    ["a crawl's run asked for as a batch", own('batch', { run_id: runs.crawl })],
    ["another client's batch", { ...own('batch'), client_id: 'someone-else' }],
    ["a crawl's delivery asked for under another run", own('crawl', { run_id: runs.batch, delivery_id: pageDelivery })],
  ])('finds nothing for %s', async (_, ref) => {
    await expect(log.of(ref)).rejects.toMatchObject({ code: 'webhook.not_found' });
  });

  it("finds one of a crawl's deliveries by its id, and lists the crawl's two", async () => {
    expect(await log.of(own('crawl', { delivery_id: pageDelivery }))).toMatchObject({ delivery_id: pageDelivery, run_id: runs.crawl });
    const listed = await controller.deliveries({ client_id: clientId, run_id: runs.crawl });
    expect(listed.items.map((d) => d.event)).toEqual(expect.arrayContaining(['crawl.page', 'crawl.completed']));
    expect(listed.items).toHaveLength(2);
  });

  it("answers the previous release's per-kind subjects as the run family does (a rolling upgrade's gateway)", async () => {
    expect(Object.keys(SUBJECTS.webhooks.formerDeliveries)).toHaveLength(7);
    expect(await controller.formerCollectionRun({ client_id: clientId, run_id: runs.collection, collection_id: collectionId })).toEqual(
      await controller.delivery(own('collection', { collection_id: collectionId })),
    );
    expect(await controller.formerBatch({ client_id: clientId, batch_id: runs.batch })).toEqual(await controller.delivery(own('batch')));
    expect(await controller.formerCrawlDelivery({ client_id: clientId, crawl_id: runs.crawl, delivery_id: pageDelivery })).toEqual(
      await controller.delivery(own('crawl', { delivery_id: pageDelivery })),
    );
    expect(await controller.formerCrawlList({ client_id: clientId, crawl_id: runs.crawl })).toEqual(
      await controller.deliveries({ client_id: clientId, run_id: runs.crawl }),
    );
    const redelivered = await controller.formerBatchRedeliver({ client_id: clientId, batch_id: runs.batch });
    expect(redelivered).toMatchObject({ run_id: runs.batch });
    const [row] = await db.sql.query<{ manual: boolean }>('select manual from webhook_outbox where subject_id = $1', [runs.batch]);
    expect(row.manual).toBe(true);
  });
});
