import type { ProjectStatus } from '@lib/contracts';
import { creditMonthOf, DATABASE, type DatabaseConnection, type Project, type SqlTransaction, storableJson } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

export type ProjectRow = Pick<
  Project,
  'id' | 'name' | 'callbackUrl' | 'monthlyCreditCap' | 'maxConcurrentJobs' | 'creditsMonth' | 'creditsUsed' | 'createdAt' | 'updatedAt'
> & { status: ProjectStatus; defaults: Record<string, unknown> };

/** A project with its jobs counted by the status /v1/jobs shows. */
export type ProjectSummaryRow = ProjectRow & {
  pending: number;
  running: number;
  completed: number;
  failed: number;
  timeout: number;
  cancelled: number;
  succeeded: number;
  unsuccessful: number;
};

const COLUMNS = [
  'p.id',
  'p.name',
  'p.status',
  'p.defaults',
  'p.callback_url "callbackUrl"',
  'p.monthly_credit_cap "monthlyCreditCap"',
  'p.max_concurrent_jobs "maxConcurrentJobs"',
  'p.credits_month "creditsMonth"',
  'p.credits_used "creditsUsed"',
  'p.created_at "createdAt"',
  'p.updated_at "updatedAt"',
].join(', ');

/**
 * The `projects` table, owned by batch-orchestrator (decision 0014). `credits_used` of
 * `credits_month` moves in the transaction that charges a project's job, so dispatch can weigh a
 * project's cap without summing the ledger on every pass.
 */
@Injectable()
export class ProjectStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async insert(project: Omit<ProjectRow, 'creditsMonth' | 'creditsUsed' | 'updatedAt'> & { clientId: string }): Promise<void> {
    await this.db.sql.query(
      `insert into projects (id, client_id, name, status, defaults, callback_url, monthly_credit_cap, max_concurrent_jobs, created_at, updated_at)
       values ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $9)`,
      [
        project.id,
        project.clientId,
        project.name,
        project.status,
        storableJson(project.defaults),
        project.callbackUrl,
        project.monthlyCreditCap,
        project.maxConcurrentJobs,
        project.createdAt,
      ],
    );
  }

  async find(clientId: string, projectId: string, within: Pick<SqlTransaction, 'query'> = this.db.sql): Promise<ProjectRow | null> {
    const [row] = await within.query<ProjectRow>(`select ${COLUMNS} from projects p where p.id = $1 and p.client_id = $2`, [
      projectId,
      clientId,
    ]);
    return row ?? null;
  }

  /** The project, locked until `tx` ends: its status cannot change under a batch write or transition. */
  async lock(tx: SqlTransaction, clientId: string, projectId: string): Promise<ProjectRow | null> {
    const [row] = await tx.query<ProjectRow>(`select ${COLUMNS} from projects p where p.id = $1 and p.client_id = $2 for update`, [
      projectId,
      clientId,
    ]);
    return row ?? null;
  }

  async setStatus(tx: SqlTransaction, projectId: string, status: ProjectStatus, now: Date): Promise<ProjectRow> {
    const [row] = await tx.query<ProjectRow>(`update projects p set status = $2, updated_at = $3 where p.id = $1 returning ${COLUMNS}`, [
      projectId,
      status,
      now,
    ]);
    return row;
  }

  /** Oldest first, keyset on (created_at, id), up to `limit + 1` rows. */
  async page(
    clientId: string,
    options: { status?: ProjectStatus; after: { createdAt: Date; id: string } | null; limit: number },
  ): Promise<ProjectRow[]> {
    const params: unknown[] = [clientId];
    const where = ['p.client_id = $1'];
    if (options.status) where.push(`p.status = $${params.push(options.status)}`);
    if (options.after)
      where.push(`(p.created_at, p.id) > ($${params.push(options.after.createdAt)}, $${params.push(options.after.id)}::uuid)`);
    return this.db.sql.query<ProjectRow>(
      `select ${COLUMNS} from projects p where ${where.join(' and ')} order by p.created_at, p.id limit ${options.limit + 1}`,
      params,
    );
  }

  /** Every project of the client with its jobs counted by status, oldest first. */
  async summaries(clientId: string): Promise<ProjectSummaryRow[]> {
    return this.db.sql.query<ProjectSummaryRow>(
      `select ${COLUMNS}, coalesce(c.pending, 0)::int as pending, coalesce(c.running, 0)::int as running, coalesce(c.completed, 0)::int as completed,
         coalesce(c.failed, 0)::int as failed, coalesce(c.timeout, 0)::int as timeout, coalesce(c.cancelled, 0)::int as cancelled,
         coalesce(c.succeeded, 0)::int as succeeded, coalesce(c.unsuccessful, 0)::int as unsuccessful
       from projects p left join lateral (
         select count(*) filter (where j.status = 'processing' and j.dispatched_at is null) as pending,
                count(*) filter (where j.status = 'processing' and j.dispatched_at is not null) as running,
                count(*) filter (where j.status = 'completed') as completed,
                count(*) filter (where j.status = 'failed') as failed,
                count(*) filter (where j.status = 'timeout') as timeout,
                count(*) filter (where j.status = 'cancelled') as cancelled,
                -- Outcomes (jobOutcomeOf): a completed job is a success only when is_success.
                count(*) filter (where j.status = 'completed' and j.is_success is true) as succeeded,
                count(*) filter (where j.status = 'failed' or (j.status = 'completed' and j.is_success is not true)) as unsuccessful
         from jobs j where j.project_id = p.id
       ) c on true
       where p.client_id = $1 order by p.created_at, p.id`,
      [clientId],
    );
  }
}

/** The project's credits charged in the month of `now` (zero once its stored month has passed). */
export function projectCreditsOf(project: Pick<ProjectRow, 'creditsMonth' | 'creditsUsed'>, now: Date): number {
  return project.creditsMonth === creditMonthOf(now) ? project.creditsUsed : 0;
}
