import { ApiProperty } from '@nestjs/swagger';

/** What a monitor's page is, compared with the version before it (issue 63). */
export const CHANGE_STATUSES = ['new', 'same', 'changed', 'removed'] as const;
export type ChangeStatus = (typeof CHANGE_STATUSES)[number];

/** The comparison of a page with its version before (on the job's result as `change`). */
export class PageChange {
  @ApiProperty({ enum: CHANGE_STATUSES })
  change_status: ChangeStatus;
  @ApiProperty({ type: String, nullable: true, description: 'When the previous version was first seen (null for new).' })
  previous_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'changed: a unified diff of the markdown as compared (ignore rules applied).' })
  diff: string | null;
  @ApiProperty({
    nullable: true,
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'changed, with extract: [{type: CREATE|REMOVE|CHANGE, path, value, oldValue}] per field.',
  })
  json_diff: Array<Record<string, unknown>> | null;
}
