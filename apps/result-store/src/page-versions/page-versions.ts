import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants as zlib } from 'node:zlib';
import { MONITOR_LIMITS, MonitorChangesQuery, type PageChange, type PageChangeView, RecordPageVersionCommand } from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import { createTwoFilesPatch } from 'diff';
import microdiff from 'microdiff';
import { configure } from 'safe-stable-stringify';
import { GONE_HASH, PageVersionStore } from '../persistence/page-versions.store';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);
const canonicalJson = configure({ deterministic: true, bigint: false });

/** Versions kept per monitored page: the newest, and enough before it to read a page's recent history. */
export const PAGE_VERSIONS_KEPT = 50;

interface StoredContent {
  content: string;
  extracted: Record<string, unknown> | null;
}

/**
 * A monitored page's versions (decision 0038): each tick's page is compared with the version before
 * it by content hash (the markdown as compared, ignore rules applied, and the extraction); a page
 * seen again unchanged stores nothing but the time it was seen; a change stores the new version
 * once, with its unified diff and, with an extraction, its field-level diff. Keyed by job, so a
 * worker that asks again (after a lost reply or a retried attempt) gets the first answer.
 */
@Injectable()
export class PageVersions {
  constructor(private readonly store: PageVersionStore) {}

  async record(command: RecordPageVersionCommand): Promise<PageChange | null> {
    const seenAt = new Date(command.fetched_at);
    if (command.content !== null) {
      const hash = contentHash({ content: command.content, extracted: command.extracted ?? null });
      const firstSeen = await this.store.seenUnchanged(command.monitor_id, command.url, hash, command.job_id, seenAt);
      if (firstSeen) return same(firstSeen);
    }
    // Anything else is decided under the page's lock, after a repeat of the job is ruled out.
    return this.store.transaction(async (tx) => {
      const recorded = await this.store.changeOfJob(tx, command.job_id);
      if (recorded) return recorded;
      const latest = await this.store.latestLocked(tx, command.monitor_id, command.url);
      const gone = command.content === null;
      // A page that answered 404 and was never seen has no version to compare: nothing to say.
      if (gone && (latest === null || latest.contentHash === GONE_HASH)) {
        if (latest) await this.store.seenAgain(tx, latest.id, seenAt);
        return latest ? same(latest.firstSeenAt) : null;
      }
      const current: StoredContent = { content: command.content ?? '', extracted: command.extracted ?? null };
      const hash = gone ? GONE_HASH : contentHash(current);
      if (latest?.contentHash === hash) {
        await this.store.seenAgain(tx, latest.id, seenAt);
        return same(latest.firstSeenAt);
      }
      const previous = latest && latest.contentHash !== GONE_HASH ? await contentOf(latest.content) : null;
      const change: PageChange = gone
        ? { change_status: 'removed', previous_at: latest!.firstSeenAt.toISOString(), diff: null, json_diff: null }
        : previous === null
          ? { change_status: 'new', previous_at: latest?.firstSeenAt.toISOString() ?? null, diff: null, json_diff: null }
          : {
              change_status: 'changed',
              previous_at: latest!.firstSeenAt.toISOString(),
              diff: unifiedDiff(command.url, previous.content, current.content),
              json_diff: previous.extracted || current.extracted ? fieldDiff(previous.extracted, current.extracted) : null,
            };
      await this.store.insertChange(
        tx,
        {
          clientId: command.client_id,
          monitorId: command.monitor_id,
          url: command.url,
          hash,
          content: gone ? Buffer.alloc(0) : await packed(current),
          seenAt,
          jobId: command.job_id,
          runId: command.run_id,
        },
        change,
        PAGE_VERSIONS_KEPT,
      );
      return change;
    });
  }

  changes(query: MonitorChangesQuery): Promise<PageChangeView[]> {
    return this.store.changesOfMonitor(query.client_id, query.monitor_id, query.limit);
  }

  changesOfTick(runId: string): Promise<PageChangeView[]> {
    return this.store.changesOfRun(runId);
  }
}

function same(previousAt: Date): PageChange {
  return { change_status: 'same', previous_at: previousAt.toISOString(), diff: null, json_diff: null };
}

function contentHash(content: StoredContent): string {
  return createHash('sha256')
    .update(content.content)
    .update('\u0000')
    .update(canonicalJson(content.extracted) ?? 'null')
    .digest('hex');
}

/** The markdown's unified diff (3 lines of context), cut at MONITOR_LIMITS.diffChars. */
export function unifiedDiff(url: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(url, url, withNewline(before), withNewline(after), 'previous', 'current', { context: 3 });
  return patch.length > MONITOR_LIMITS.diffChars
    ? `${patch.slice(0, MONITOR_LIMITS.diffChars)}\n… (diff cut at ${MONITOR_LIMITS.diffChars} characters)\n`
    : patch;
}

/** Field by field: what was added, removed or changed in the extraction. */
export function fieldDiff(before: Record<string, unknown> | null, after: Record<string, unknown> | null): Array<Record<string, unknown>> {
  return microdiff(before ?? {}, after ?? {}).map((d) => ({ ...d }));
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

async function packed(content: StoredContent): Promise<Buffer> {
  const json = Buffer.from(JSON.stringify(content));
  return compress(json, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT } });
}

async function contentOf(stored: Buffer): Promise<StoredContent> {
  return JSON.parse((await decompress(stored)).toString('utf8')) as StoredContent;
}
