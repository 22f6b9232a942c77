import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants as zlib } from 'node:zlib';
import {
  MONITOR_LIMITS,
  MonitorChangesQuery,
  type PageChange,
  type PageChangeView,
  RecordPageVersionCommand,
  RecordUnseenPagesCommand,
} from '@lib/contracts';
import { GroupedCalls } from '@lib/runtime';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { createTwoFilesPatch } from 'diff';
import microdiff from 'microdiff';
import { configure } from 'safe-stable-stringify';
import { TickHeads } from './tick-heads';
import {
  GONE_HASH,
  type LatestVersion,
  PageVersionStore,
  type Sighting,
  type UnchangedCandidate,
} from '../persistence/page-versions.store';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);
const canonicalJson = configure({ deterministic: true, bigint: false });

/** Sightings of unchanged pages wait this long for company before they are written together. */
const SIGHTINGS_LINGER_MS = 500;

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
export class PageVersions implements BeforeApplicationShutdown {
  private readonly logger = new Logger('PageVersions');
  private readonly heads: TickHeads;
  /** Pages told "same" from the tick's heads: their versions' last_seen_at, written many to a statement after the answer. */
  private readonly sightings: GroupedCalls<Sighting, null>;
  /** A tick's pages arrive together: those seen again unchanged are confirmed many to a statement. */
  private readonly unchanged: GroupedCalls<UnchangedCandidate, Date | null>;

  constructor(private readonly store: PageVersionStore) {
    this.heads = new TickHeads((monitorId) => this.store.headsOf(monitorId));
    this.sightings = new GroupedCalls(
      async (seen) => (await this.store.seenAgainAll(seen), seen.map(() => null)),
      1000,
      SIGHTINGS_LINGER_MS,
    );
    this.unchanged = new GroupedCalls((pages) => this.store.seenUnchanged(pages));
  }

  /** The sightings still waiting are written before the database is released. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.sightings.idle();
  }

  async record(command: RecordPageVersionCommand): Promise<PageChange | null> {
    const seenAt = new Date(command.fetched_at);
    const hash = command.content === null ? GONE_HASH : contentHash({ content: command.content, extracted: command.extracted ?? null });
    const known = await this.heads.headOf({
      runId: command.run_id,
      monitorId: command.monitor_id,
      url: command.url,
      jobId: command.job_id,
      attempt: command.attempt,
    });
    const head = known?.head;
    if (head?.hash === hash) {
      const sighting = { versionId: head.id, at: seenAt, runId: command.run_id };
      // A crawl-scope tick's report decides which pages it did not see: the sighting is written first.
      if (command.crawl_scope === true) {
        await this.store.seenAgain(sighting);
        return same(head.firstSeenAt);
      }
      // Otherwise the sighting is kept for reading a page's history, never for a decision: it is
      // written with the tick's other sightings, after this answer.
      void this.sightings.call(sighting).catch((error: unknown) => this.logger.warn(`sightings: ${String(error)}`));
      return same(head.firstSeenAt);
    }
    // Without the tick's word on the page (a later attempt, a page this job wrote), a page is first
    // asked as most are: is it its newest version again?
    if (known === undefined && command.content !== null) {
      const firstSeen = await this.unchanged.call({
        monitorId: command.monitor_id,
        url: command.url,
        hash,
        jobId: command.job_id,
        runId: command.run_id,
        at: seenAt,
      });
      if (firstSeen) return same(firstSeen);
    }
    // Anything else is compared with the page's newest version, then written in one statement that
    // succeeds that version only if nobody did first (PageVersionStore.insertSuccessor).
    for (let attempt = 1; ; attempt += 1) {
      const { recorded, latest } = await this.store.latestOf(command.job_id, command.monitor_id, command.url);
      if (recorded) return recorded;
      const comparison = await compared(command, hash, latest);
      if (comparison.kind === 'nothing') return null;
      if (comparison.kind === 'same') {
        await this.store.seenAgain({ versionId: comparison.versionId, at: seenAt, runId: command.run_id });
        return same(comparison.firstSeenAt);
      }
      const written = await this.store.insertSuccessor(
        {
          ...comparison.version,
          clientId: command.client_id,
          monitorId: command.monitor_id,
          url: command.url,
          seenAt,
          jobId: command.job_id,
          runId: command.run_id,
          previousId: latest?.id ?? null,
        },
        comparison.change,
        PAGE_VERSIONS_KEPT,
      );
      if (written) return comparison.change;
      // Another writer succeeded the version this page was compared with: compare with the new one.
      if (attempt >= 5)
        throw new Error(`page ${command.url} of monitor ${command.monitor_id}: its newest version kept moving while it was compared`);
    }
  }

  changes(query: MonitorChangesQuery): Promise<PageChangeView[]> {
    return this.store.changesOfMonitor(query.client_id, query.monitor_id, query.limit);
  }

  /** A complete crawl-scope tick: the monitor's pages it did not see are removed (once: asked again, none more). */
  async recordUnseen(command: RecordUnseenPagesCommand): Promise<{ removed: number }> {
    // Every page of the tick was recorded before its run completed, its sighting written (crawl_scope).
    const removed = await this.store.removeUnseen({
      clientId: command.client_id,
      monitorId: command.monitor_id,
      runId: command.run_id,
      at: new Date(),
    });
    return { removed };
  }

  changesOfTick(runId: string): Promise<PageChangeView[]> {
    // Asked by the tick's report, once its run completed: its pages are all recorded.
    this.heads.forget(runId);
    return this.store.changesOfRun(runId);
  }
}

type Comparison =
  | { kind: 'nothing' }
  | { kind: 'same'; versionId: string; firstSeenAt: Date }
  | { kind: 'insert'; change: PageChange; version: { hash: string; content: Buffer } };

/** What a page's record (its content hashed as `hash`) is, against its newest version: nothing to say, the same again, or a new version. */
async function compared(command: RecordPageVersionCommand, hash: string, latest: LatestVersion | null): Promise<Comparison> {
  const gone = command.content === null;
  // A page that answered 404 and was never seen has no version to compare: nothing to say.
  if (gone && latest === null) return { kind: 'nothing' };
  const current: StoredContent = { content: command.content ?? '', extracted: command.extracted ?? null };
  if (latest?.contentHash === hash) return { kind: 'same', versionId: latest.id, firstSeenAt: latest.firstSeenAt };
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
  return { kind: 'insert', change, version: { hash, content: gone ? Buffer.alloc(0) : await packed(current) } };
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
