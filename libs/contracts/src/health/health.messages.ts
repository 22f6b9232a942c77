import { IsOptional, IsString } from 'class-validator';

export class HealthQuery {
  /** Free text that comes back unchanged, so a caller can match replies in logs. */
  @IsOptional()
  @IsString()
  probe?: string;
}

export type DependencyStatus = 'ok' | 'down';

export interface DependencyCheck {
  status: DependencyStatus;
  latency_ms: number;
  error?: string;
}

export interface HealthReport {
  service: string;
  status: DependencyStatus;
  /** Process id and host let an operator tell replicas apart. */
  instance: { pid: number; hostname: string; started_at: string };
  checks: Record<string, DependencyCheck>;
}
