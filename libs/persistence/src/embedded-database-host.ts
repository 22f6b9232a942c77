import { messages, PGlite } from '@electric-sql/pglite';
import { parentPort, workerData } from 'node:worker_threads';
import { IdleMemoryReclaimer, nodeMemoryProbe } from '@lib/threads';
import { EmbeddedStatements } from './embedded-statements';

/**
 * The embedded database's thread (see EmbeddedDatabaseThread, its main-thread side). It owns the
 * PGlite instance and its prepared statements, and does the requests one at a time in the order
 * they were sent: the main thread decides that order (its locks), so a transaction's statements
 * arrive here contiguous, and a statement sent while none is open runs alone.
 */
export type HostRequest =
  /** A statement of the project's own (SqlExecutor): prepared once; rows as text, parsed by the caller. */
  | { id: number; op: 'statement'; args: { text: string; params: unknown[]; inTransaction: boolean } }
  /** A statement through PGlite's query (Prisma's): rows as text, for the caller's parsers. */
  | { id: number; op: 'query'; args: { sql: string; params: unknown[]; rowMode?: 'array' | 'object' } }
  | { id: number; op: 'exec'; args: { sql: string } }
  /** A transaction that the statement completes unless its first row's `goesOnWhen` is true (then rolled back: null). */
  | { id: number; op: 'ownTransaction'; args: { text: string; params: unknown[]; goesOnWhen: string } }
  /** BEGIN, COMMIT or ROLLBACK: answered with its command tag (a failed transaction's COMMIT says ROLLBACK). */
  | { id: number; op: 'control'; args: { sql: 'BEGIN' | 'COMMIT' | 'ROLLBACK' } }
  | { id: number; op: 'protocol'; args: { bytes: Uint8Array; syncToFs: boolean } }
  | { id: number; op: 'close'; args: Record<string, never> };

export interface HostReply {
  id: number;
  result?: unknown;
  error?: HostError;
}

/** An error as its fields: a DatabaseError is rebuilt as one on the main thread. */
export interface HostError {
  database: boolean;
  message: string;
  length?: number;
  fields: Record<string, unknown>;
}

/** Rows as Postgres sent them (text), with their fields' types. */
export interface TextResults {
  rows: unknown[];
  fields: Array<{ name: string; dataTypeID: number }>;
  affectedRows?: number;
  command?: string;
  rowCount?: number;
}

export interface HostSettings {
  role: 'embedded-database-host';
  dataDir: string;
  startParams: string[];
  /** The main thread's idle interval (MEMORY_RECLAIM_IDLE_SECONDS; 0: never): this thread checks every third of it, see below. */
  memoryReclaimIdleMs: number;
}

function describe(error: unknown): HostError {
  const fields: Record<string, unknown> = {};
  // queryOptions holds the caller's parsers: functions, which cannot cross a thread.
  for (const [key, value] of Object.entries(error ?? {})) if (key !== 'queryOptions') fields[key] = value;
  const { message, length } = (error ?? {}) as { message?: string; length?: number };
  return { database: error instanceof messages.DatabaseError, message: message ?? String(error), length, fields };
}

const asText = ({ rows, fields, affectedRows, command, rowCount }: TextResults): TextResults => ({
  rows,
  fields: fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })),
  affectedRows,
  command,
  rowCount,
});

async function host(settings: HostSettings): Promise<void> {
  const port = parentPort!;
  const db = await PGlite.create(settings.dataDir, { startParams: settings.startParams });
  // This thread's heap is its own: the main thread's idle collection never reaches it. Opening the
  // database and applying the migrations leave ~550 MB of dead objects and ArrayBuffers here
  // (PGlite's file-system image among them); V8 frees them on its own but keeps the memory, and a
  // platform idled at 695–760 MB PSS instead of 305–354. Checked every third of the main thread's
  // interval (the first holds the start-up work, so a collection comes at the second, before the
  // 45 s the idle figure is read at), and idle below 10 % busy: an idle platform's pollers (webhook
  // outbox, lease sweepers, viability and crawl workers) keep this thread 3 % busy.
  new IdleMemoryReclaimer(Math.ceil(settings.memoryReclaimIdleMs / 3), nodeMemoryProbe(), 0.1).start();
  // Rows cross as text and are parsed on the main thread, in its realm: a Date made here would not
  // be a Date there under a test runner's sandbox (and the caller may bring parsers of its own).
  const identity = (text: string) => text;
  const textParsers = Object.fromEntries(Object.keys(db.parsers).map((oid) => [oid, identity]));
  const statements = new EmbeddedStatements(db, undefined, textParsers);
  const handle = async (request: HostRequest): Promise<[unknown, ArrayBuffer[]?]> => {
    switch (request.op) {
      case 'statement': {
        const { text, params, inTransaction } = request.args;
        return [asText((await statements.results(text, params, inTransaction)) as TextResults)];
      }
      case 'query': {
        const { sql, params, rowMode } = request.args;
        return [asText(await db.query(sql, params, { rowMode, parsers: textParsers }))];
      }
      case 'exec':
        return [(await db.exec(request.args.sql, { parsers: textParsers })).map((r) => asText(r as TextResults))];
      case 'ownTransaction': {
        const { text, params, goesOnWhen } = request.args;
        const results = await statements.inOwnTransaction(text, params, goesOnWhen);
        return [results ? asText(results as TextResults) : null];
      }
      case 'control':
        // Not PGlite's exec, which parses the answer with the text parsers and flushes to the file
        // system after it: on a run's job path that was most of the database's time (docs/benchmarks.md).
        return [await statements.control(request.args.sql)];
      case 'protocol': {
        const data = (await db.execProtocolRaw(request.args.bytes, { syncToFs: request.args.syncToFs })).slice();
        return [data, [data.buffer]];
      }
      case 'close':
        await db.close();
        return [null];
    }
  };
  let queue = Promise.resolve();
  port.on('message', (request: HostRequest) => {
    queue = queue.then(async () => {
      try {
        const [result, transfer] = await handle(request);
        port.postMessage({ id: request.id, result } satisfies HostReply, transfer ?? []);
      } catch (error) {
        port.postMessage({ id: request.id, error: describe(error) } satisfies HostReply);
      }
    });
  });
  port.postMessage({ id: 0, result: 'ready' } satisfies HostReply);
}

if (parentPort && (workerData as HostSettings | undefined)?.role === 'embedded-database-host') {
  host(workerData as HostSettings).catch((error: unknown) =>
    parentPort!.postMessage({ id: 0, error: describe(error) } satisfies HostReply),
  );
}
