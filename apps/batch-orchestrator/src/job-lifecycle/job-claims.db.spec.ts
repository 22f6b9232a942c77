import { loadPlatformConfig } from '@lib/config';
import type { DatabaseConnection } from '@lib/persistence';
import { systemClock } from '@lib/runtime';
import { randomUUID } from 'node:crypto';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { JobStore } from '../persistence/jobs.store';
import { JobClaims } from './job-claims';
import type { JobCompletion } from './job-completion';

/**
 * Claims are fenced by attempt and taken once — except by the worker that already took the job and
 * lost the reply (a broker restart drops replies in flight): it is answered `claimed` again, with
 * no second quota check and no second credit hold, so the job runs now rather than a lease later.
 */
describe.each(DATABASE_BACKENDS)('JobClaims (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  let claims: JobClaims;
  const finishedAtClaim: Array<{ jobId: string; kind: string; message: string }> = [];

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'job_claims'));
    // Completion is reached only when the quota is exhausted: recorded here, not run.
    const completion = {
      completeWithin: async (_tx: unknown, job: { id: string }, outcome: { kind: string; message: string }) => {
        finishedAtClaim.push({ jobId: job.id, kind: outcome.kind, message: outcome.message });
        return { creditsMoved: false, runCompleted: false };
      },
    } as unknown as JobCompletion;
    claims = new JobClaims(systemClock, loadPlatformConfig({}), completion, new JobStore(db));
  });
  afterAll(async () => close());

  async function dispatchedJob(clientId: string, monthlyCredits: number | null, mode: 'simple' | 'browser' = 'simple'): Promise<string> {
    const runId = randomUUID();
    await db.sql.query(
      "insert into runs (id, collection_id, client_id, status, total_requests, max_concurrency, monthly_credits, created_at) values ($1, $2, $3, 'in_progress', 1, 1, $4, now())",
      [runId, randomUUID(), clientId, monthlyCredits],
    );
    const id = randomUUID();
    await db.sql.query(
      'insert into jobs (id, run_id, collection_id, client_id, position, url, request, mode, queued_at, dispatched_at) values ($1, $2, $3, $4, 0, \'https://example.com/\', \'{"url":"https://example.com/"}\', $5, now(), now())',
      [id, runId, randomUUID(), clientId, mode],
    );
    return id;
  }

  const holdsOf = async (clientId: string) =>
    (await db.sql.query<{ n: number }>('select count(*)::int as n from credit_reservations where client_id = $1', [clientId]))[0].n;

  it.each([
    ['a quota', 1000],
    ['no quota', null],
  ])('answers the same worker again (%s), holds its credits once, and fences everyone else off', async (_, quota) => {
    const clientId = `claims-${randomUUID()}`;
    const jobId = await dispatchedJob(clientId, quota);
    const first = await claims.claim({ job_id: jobId, attempt: 1, worker_id: 'w1' });
    expect(first.reply).toMatchObject({ outcome: 'claimed', client_id: clientId, request: { url: 'https://example.com/' } });
    expect(first.heldFor).toBe(quota === null ? null : clientId);
    const [{ started_at: startedAt }] = await db.sql.query<{ started_at: Date }>('select started_at from jobs where id = $1', [jobId]);

    // The reply was lost; the worker asks again.
    const again = await claims.claim({ job_id: jobId, attempt: 1, worker_id: 'w1' });
    expect(again.reply).toEqual(first.reply);
    expect(again.heldFor).toBeNull();
    expect(await holdsOf(clientId)).toBe(quota === null ? 0 : 1);
    const [row] = await db.sql.query<{ started_at: Date; worker_id: string }>('select started_at, worker_id from jobs where id = $1', [
      jobId,
    ]);
    expect(row).toEqual({ started_at: startedAt, worker_id: 'w1' });

    // Another worker given the same delivery, or anyone with an older attempt, is stale.
    expect((await claims.claim({ job_id: jobId, attempt: 1, worker_id: 'w2' })).reply).toEqual({ outcome: 'stale' });
    await db.sql.query('update jobs set attempt = 2, started_at = null, worker_id = null where id = $1', [jobId]);
    expect((await claims.claim({ job_id: jobId, attempt: 1, worker_id: 'w1' })).reply).toEqual({ outcome: 'stale' });
    expect((await claims.claim({ job_id: jobId, attempt: 2, worker_id: 'w2' })).reply).toMatchObject({ outcome: 'claimed' });
    // A finished job is nobody's, its first worker's included.
    await db.sql.query("update jobs set status = 'completed', completed_at = now() where id = $1", [jobId]);
    expect((await claims.claim({ job_id: jobId, attempt: 2, worker_id: 'w2' })).reply).toEqual({ outcome: 'stale' });
  });

  const month = () => new Date().toISOString().slice(0, 7);

  it.each([
    ['simple', 1],
    ['browser', 5],
  ] as const)("holds a %s job's cost (%i) in the month, as the job's hold, while the quota covers it", async (mode, cost) => {
    const clientId = `claims-${randomUUID()}`;
    const jobId = await dispatchedJob(clientId, 10, mode);
    expect((await claims.claim({ job_id: jobId, attempt: 1, worker_id: 'w1' })).heldFor).toBe(clientId);
    const holds = await db.sql.query<{ id: string; credits: number; month: string }>(
      'select id, credits, month from credit_reservations where client_id = $1',
      [clientId],
    );
    expect(holds).toEqual([{ id: expect.any(String), credits: cost, month: month() }]);
    const [job] = await db.sql.query<{ reservation_id: string }>('select reservation_id from jobs where id = $1', [jobId]);
    expect(job.reservation_id).toBe(holds[0].id);
  });

  it("finishes the job as quota_exceeded, holding nothing, when the month's charges and live holds leave less than its cost", async () => {
    const clientId = `claims-${randomUUID()}`;
    await db.sql.query('insert into credit_balances (client_id, month, charged) values ($1, $2, 6)', [clientId, month()]);
    await db.sql.query(
      "insert into credit_reservations (id, client_id, month, credits, expires_at, created_at) values ($1, $3, $4, 3, now() + interval '1 hour', now()), ($2, $3, $4, 50, now() - interval '1 second', now())",
      [randomUUID(), randomUUID(), clientId, month()],
    );
    // 6 charged + 3 held + 1 = 10: covered (the expired hold of 50 counts for nothing).
    const covered = await dispatchedJob(clientId, 10);
    expect((await claims.claim({ job_id: covered, attempt: 1, worker_id: 'w1' })).heldFor).toBe(clientId);
    // 6 + 3 + 1 (that job's hold) + 1 > 10.
    const over = await dispatchedJob(clientId, 10);
    const claimed = await claims.claim({ job_id: over, attempt: 1, worker_id: 'w1' });
    expect(claimed).toMatchObject({ reply: { outcome: 'stale' }, settledFor: clientId, heldFor: null });
    expect(finishedAtClaim.filter((f) => f.jobId === over)).toEqual([
      { jobId: over, kind: 'quota_exceeded', message: `monthly credit quota exhausted (10 of 10 used in ${month()}; this job needs 1)` },
    ]);
    expect(await holdsOf(clientId)).toBe(3);
    const [job] = await db.sql.query<{ reservation_id: string | null }>('select reservation_id from jobs where id = $1', [over]);
    expect(job.reservation_id).toBeNull();
  });

  // Decision 0036: the previous release claims and finishes jobs by the functions' former names
  // while a rolling upgrade replaces it; those names forward to the renamed functions.
  it('claims and finishes a job by the former function names, as a process of the previous release does', async () => {
    const clientId = `claims-${randomUUID()}`;
    const jobId = await dispatchedJob(clientId, null);
    const lease = new Date(Date.now() + 60_000);
    const [claimed] = await db.sql.query<{ o_id: string; o_status: string; o_started_at: Date | null; o_request: unknown }>(
      'select o_id, o_status, o_started_at, o_request from claim_batch_job($1, 1, $2, now(), $3, $4, $3, 1, 5)',
      [jobId, 'old-worker', lease, randomUUID()],
    );
    expect(claimed).toMatchObject({ o_id: jobId, o_started_at: expect.any(Date), o_request: { url: 'https://example.com/' } });
    const [finished] = await db.sql.query<{ o_status: string; o_last_job: boolean }>(
      `select o_status, o_last_job from finish_batch_job($1, 1, 'completed', now(), 200, 'OK', null, 12, null,
         array[]::text[], array[]::text[], true, 0, '<p>ok</p>', null, 'simple', '{}'::jsonb)`,
      [jobId],
    );
    // The job as it was locked (processing), and that its end was the run's last.
    expect(finished).toEqual({ o_status: 'processing', o_last_job: true });
    const [row] = await db.sql.query<{ status: string; worker_id: string }>('select status, worker_id from jobs where id = $1', [jobId]);
    expect(row).toEqual({ status: 'completed', worker_id: 'old-worker' });
  });
});
