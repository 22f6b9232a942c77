import { messages, Mutex, PGlite, protocol, type Results, type Transaction } from '@electric-sql/pglite';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startSourceThread } from '@lib/threads';
import type { HostError, HostReply, HostRequest, HostSettings, TextResults } from './embedded-database-host';

type ExecProtocolResult = Awaited<ReturnType<PGlite['execProtocol']>>;
type ExecProtocolOptions = NonNullable<Parameters<PGlite['execProtocol']>[1]>;
type QueryOptions = NonNullable<Parameters<PGlite['query']>[2]>;
type BackendMessage = ExecProtocolResult['messages'][number];
type ParserMap = PGlite['parsers'];
type Op = HostRequest['op'];
type ArgsOf<O extends Op> = Extract<HostRequest, { op: O }>['args'];
type Sender = <O extends Op>(op: O, args: ArgsOf<O>) => Promise<unknown>;

/** Statements in one transaction on the thread (what SqlExecutor's transactions run on). */
export interface ThreadTransaction {
  /** A statement of the project's own: prepared once on the thread. */
  statement<T>(text: string, params: unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
  readonly closed: boolean;
}

// PGlite's own base class (query, exec and transaction over abstract primitives), as PGlite's
// worker client extends it; it is not exported by name.
const BasePGlite = Object.getPrototypeOf(PGlite) as abstract new () => PGlite;

/**
 * The embedded database (PGlite, a WebAssembly Postgres) on a thread of its own, so that its work
 * uses the machine's second core instead of the event loop that serves requests (decision 0030).
 * To Prisma's adapter it is a PGlite: the same transaction rules, the same DatabaseError (rebuilt
 * from its fields), rows through the caller's parsers. Every statement is one crossing.
 *
 * The thread does requests in the order they were sent, so the locks here order sending, not
 * answering: a statement outside a transaction waits for an open transaction to send its COMMIT,
 * is sent, and lets the next request be sent before its answer is back; a transaction holds the
 * order from its BEGIN (sent with its first statement, not answered first) until its COMMIT is
 * sent. The thread never waits for the event loop between two requests that are ready.
 * Not supported: blobs (COPY from and to files), LISTEN/NOTIFY, custom serializers; none is used.
 */
export class EmbeddedDatabaseThread extends BasePGlite {
  override debug = 0 as const;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  private nextId = 1;
  /** Who may send next: held by a transaction from BEGIN to COMMIT, by anyone else while sending. */
  private readonly order = new Mutex();
  private readonly rawProtocol = new Mutex();
  private isClosed = false;
  private failure: Error | null = null;

  private constructor(settings: Omit<HostSettings, 'role'>) {
    super();
    const host = path.join(__dirname, `embedded-database-host${path.extname(__filename)}`);
    this.worker = startSourceThread(host, { role: 'embedded-database-host', ...settings } satisfies HostSettings);
    this.worker.on('message', (reply: HostReply) => this.settle(reply));
    // A thread that dies takes its requests with it: every caller hears so, none waits forever.
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the embedded database thread exited (code ${code})`)));
  }

  /** Opens the data directory on a new thread; resolves once the database answers. */
  static async open(settings: Omit<HostSettings, 'role'>): Promise<EmbeddedDatabaseThread> {
    const db = new EmbeddedDatabaseThread(settings);
    try {
      await new Promise((resolve, reject) => db.pending.set(0, { resolve, reject }));
      await db._initArrayTypes();
    } catch (error) {
      await db.worker.terminate();
      throw error;
    }
    db.worker.unref();
    return db;
  }

  override get ready(): boolean {
    return !this.isClosed && this.failure === null;
  }

  override get closed(): boolean {
    return this.isClosed;
  }

  override async close(): Promise<void> {
    if (this.isClosed) return;
    await this.alone('close', {});
    this.isClosed = true;
    await this.worker.terminate();
  }

  /** A statement of the project's own, alone (it commits by itself). */
  statement<T>(text: string, params: unknown[]): Promise<T[]> {
    return this.statementVia<T>(this.alone, text, params, false);
  }

  /**
   * A transaction that this statement completes unless its first row's `goesOnWhen` column is true
   * (SqlExecutor.transactionOpenedBy): its rows once committed, or null once rolled back. One
   * request, sent alone: the order is held only while it is sent, never while the event loop gets
   * round to its answer (at 16 jobs in flight that wait was most of a transaction's hold).
   */
  async inOwnTransaction<T>(text: string, params: unknown[], goesOnWhen: string): Promise<T[] | null> {
    const raw = (await this.alone('ownTransaction', { text, params, goesOnWhen })) as TextResults | null;
    return raw ? parsed<T>(raw, this.parsers).rows : null;
  }

  override query<T>(sql: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this.queryVia<T>(this.alone, sql, params, options);
  }

  override exec(sql: string, options?: QueryOptions): Promise<Array<Results>> {
    return this.execVia(this.alone, sql, options);
  }

  /** As PGlite's transaction (Prisma's interactive transactions). */
  override transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.inTransaction((tx, send) =>
      callback({
        query: <R>(sql: string, params: unknown[] = [], options?: QueryOptions) => this.queryVia<R>(send, sql, params, options),
        sql: () => Promise.reject(new Error('tagged sql is not supported on the embedded database thread')),
        exec: (sql: string, options?: QueryOptions) => this.execVia(send, sql, options),
        rollback: () => tx.rollback(),
        listen: () => Promise.reject(new Error('LISTEN is not supported on the embedded database thread')),
        get closed() {
          return tx.closed;
        },
      } as Transaction),
    );
  }

  /** SqlExecutor's transactions: BEGIN, the callback's statements, COMMIT (or ROLLBACK if it throws). */
  statementTransaction<T>(callback: (tx: ThreadTransaction) => Promise<T>): Promise<T> {
    return this.inTransaction((tx, send) =>
      callback({
        statement: <R>(text: string, params: unknown[]) => this.statementVia<R>(send, text, params, true),
        exec: async (sql: string) => void (await send('exec', { sql })),
        get closed() {
          return tx.closed;
        },
      }),
    );
  }

  override async execProtocolRaw(message: Uint8Array, { syncToFs = true }: ExecProtocolOptions = {}): Promise<Uint8Array> {
    await this._checkReady();
    return (await this.send('protocol', { bytes: message, syncToFs })) as Uint8Array;
  }

  /** As PGlite's: the messages parsed; the first error thrown (and what followed it dropped) unless told not to. */
  override async execProtocol(
    message: Uint8Array,
    { syncToFs = true, throwOnError = true, onNotice }: ExecProtocolOptions = {},
  ): Promise<ExecProtocolResult> {
    const data = await this.execProtocolRaw(message, { syncToFs });
    const results: BackendMessage[] = [];
    let databaseError: messages.DatabaseError | null = null;
    new protocol.Parser().parse(data, (msg: BackendMessage) => {
      if (databaseError) return;
      if (msg instanceof messages.DatabaseError) {
        if (throwOnError) databaseError = msg;
      } else if (msg instanceof messages.NoticeMessage) onNotice?.(msg);
      results.push(msg);
    });
    if (databaseError) throw databaseError;
    return { messages: results, data };
  }

  override async execProtocolStream(message: Uint8Array, options: ExecProtocolOptions = {}): Promise<BackendMessage[]> {
    return (await this.execProtocol(message, options)).messages;
  }

  override async execProtocolRawStream(
    message: Uint8Array,
    options: ExecProtocolOptions & { onRawData: (data: Uint8Array) => void },
  ): Promise<void> {
    options.onRawData(await this.execProtocolRaw(message, options));
  }

  /** The thread's PGlite writes through to its directory; there is nothing to flush from here. */
  override async syncToFs(): Promise<void> {}

  override async _handleBlob(blob?: Blob): Promise<void> {
    if (blob) throw new Error('blobs are not supported on the embedded database thread');
  }

  override async _getWrittenBlob(): Promise<undefined> {
    return undefined;
  }

  override async _cleanupBlob(): Promise<void> {}

  override async _checkReady(): Promise<void> {
    if (this.isClosed) throw new Error('PGlite is closed');
    if (this.failure) throw this.failure;
  }

  override _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    return this.rawProtocol.runExclusive(fn);
  }

  override _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.order.runExclusive(fn);
  }

  override async listen(): Promise<never> {
    throw new Error('LISTEN is not supported on the embedded database thread');
  }

  override async unlisten(): Promise<void> {}

  override onNotification(): () => void {
    return () => undefined;
  }

  override offNotification(): void {}

  override async dumpDataDir(): Promise<never> {
    throw new Error('dumpDataDir is not supported on the embedded database thread');
  }

  /** A request sent alone: after any open transaction has sent its COMMIT; the next may be sent before it is answered. */
  private readonly alone: Sender = async (op, args) => {
    await this._checkReady();
    const release = await this.order.acquire();
    let answer: Promise<unknown>;
    try {
      answer = this.send(op, args);
    } finally {
      release();
    }
    return answer;
  };

  /**
   * Holds the order for one transaction. BEGIN goes out with the first statement (its answer is
   * checked at the end: the statements after a failed BEGIN fail on their own); the order is let go
   * as soon as COMMIT or ROLLBACK is sent.
   */
  private async inTransaction<T>(
    body: (tx: { readonly closed: boolean; rollback(): Promise<void> }, send: Sender) => Promise<T>,
  ): Promise<T> {
    await this._checkReady();
    const release = await this.order.acquire();
    let closed = false;
    let holding = true;
    const letGo = () => {
      if (holding) [holding] = [false, release()];
    };
    // Sends the transaction's closing statement and lets the next request be sent behind it.
    const end = (sql: 'COMMIT' | 'ROLLBACK') => {
      closed = true;
      const answer = this.send('control', { sql }) as Promise<string | null>;
      letGo();
      return answer;
    };
    try {
      const begun = this.send('control', { sql: 'BEGIN' });
      begun.catch(() => undefined);
      const tx = {
        get closed() {
          return closed;
        },
        rollback: async () => {
          if (closed) throw new Error('Transaction is closed');
          await end('ROLLBACK');
        },
      };
      const send: Sender = (op, args) => (closed ? Promise.reject(new Error('Transaction is closed')) : this.send(op, args));
      try {
        const result = await body(tx, send);
        if (!closed) {
          const committed = end('COMMIT');
          await begun;
          // A transaction that failed inside answers COMMIT with ROLLBACK: it did not commit.
          if ((await committed) === 'ROLLBACK') throw rolledBackInsteadOfCommitted();
        }
        return result;
      } catch (error) {
        if (!closed) await end('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      letGo();
    }
  }

  // Each request is the same on its own and inside a transaction; only how it is sent differs
  // (alone: ordered behind any open transaction; `send`: inside the one holding the order).
  private async statementVia<T>(send: Sender, text: string, params: unknown[], inTransaction: boolean): Promise<T[]> {
    return parsed<T>((await send('statement', { text, params, inTransaction })) as TextResults, this.parsers).rows;
  }

  private async queryVia<T>(send: Sender, sql: string, params: unknown[], options?: QueryOptions): Promise<Results<T>> {
    supported(options);
    return parsed<T>((await send('query', { sql, params, rowMode: options?.rowMode })) as TextResults, this.parsers, options);
  }

  private async execVia(send: Sender, sql: string, options?: QueryOptions): Promise<Array<Results>> {
    supported(options);
    return ((await send('exec', { sql })) as TextResults[]).map((results) => parsed(results, this.parsers, options));
  }

  private send<O extends Op>(op: O, args: ArgsOf<O>): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.isClosed) return Promise.reject(new Error('PGlite is closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // The thread keeps the process alive only while it owes an answer.
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args });
    });
  }

  private settle(reply: HostReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error) waiting.reject(rebuilt(reply.error));
    else waiting.resolve(reply.result);
  }

  private fail(error: Error): void {
    if (this.isClosed) return;
    this.failure ??= error;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(this.failure);
    }
  }
}

function supported(options?: QueryOptions): void {
  if (options?.blob) throw new Error('blobs are not supported on the embedded database thread');
  if (options?.serializers || options?.paramTypes) throw new Error('custom serializers are not supported on the embedded database thread');
}

/**
 * Rows as PGlite's parseResults makes them: each text value through its type's parser, the
 * caller's own (`options.parsers`) before the database's, as PGlite merges them — looked up per
 * column rather than merged per query (~400 parsers). Built with this module's Array and object
 * literals, so that rows are of the caller's realm, as PGlite's are.
 */
function parsed<T>(raw: TextResults, parsers: ParserMap, options?: QueryOptions): Results<T> {
  const fields = Array.from(raw.fields, ({ name, dataTypeID }) => ({ name, dataTypeID }));
  const own = options?.parsers;
  const columnParsers = fields.map(({ dataTypeID }) => own?.[dataTypeID] ?? parsers[dataTypeID]);
  const parse = (value: unknown, i: number) => {
    if (value === null) return null;
    const parser = columnParsers[i];
    return parser ? parser(value as string, fields[i].dataTypeID) : value;
  };
  const rows =
    options?.rowMode === 'array'
      ? Array.from(raw.rows as unknown[][], (row) => Array.from(row, (value, i) => parse(value, i)))
      : Array.from(raw.rows as Array<Record<string, unknown>>, (row) => {
          const out: Record<string, unknown> = {};
          for (const [i, field] of fields.entries()) out[field.name] = parse(row[field.name], i);
          return out;
        });
  const { command, rowCount } = raw;
  return {
    rows: rows as T[],
    fields,
    affectedRows: raw.affectedRows ?? 0,
    ...(command ? { command } : {}),
    ...(rowCount === undefined ? {} : { rowCount }),
  } as Results<T>;
}

/** The error as the thread saw it: a DatabaseError again (Prisma's adapter maps those), with every field it had. */
function rebuilt(described: HostError): Error {
  const error = described.database
    ? new messages.DatabaseError(described.message, described.length ?? 0, 'error')
    : new Error(described.message);
  return Object.assign(error, described.fields);
}

function rolledBackInsteadOfCommitted(): Error {
  return Object.assign(new messages.DatabaseError('Transaction was rolled back instead of committed', 0, 'error'), {
    severity: 'ERROR',
    code: '25P02',
    query: 'COMMIT',
  });
}
