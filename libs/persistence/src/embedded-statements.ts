import { type messages, parse, type PGlite, protocol, type Results } from '@electric-sql/pglite';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];
type CommandComplete = messages.CommandCompleteMessage;

/** A statement the embedded database has parsed and planned once, by name. */
interface PreparedStatement {
  name: string;
  /** The parameters' types as Postgres inferred them (they choose each value's serializer). */
  parameterTypes: number[];
  /** The row description (`rowDescription`), or none for a statement that returns no rows. */
  rowDescription: BackendMessage | null;
}

/**
 * Named prepared statements on the embedded database (PGlite). `PGlite.query` parses, plans and
 * describes every statement anew, in six round trips into the WebAssembly module; planning alone
 * asks the file system for the size of every table and index the statement touches (an `lseek`
 * that Emscripten turns into an `fstat`). A job's path runs the same dozen statements thousands of
 * times, so each is parsed once, described once, and then only bound and executed, in one round
 * trip (the cost of each way: docs/decisions/0027).
 *
 * Same semantics as `PGlite.query`: the same serializers by inferred type, the same parsers, the
 * same errors (DatabaseError with the query and parameters attached), and the same locks — a
 * statement outside a transaction waits for any transaction to end, one inside runs in it.
 * Postgres keeps a prepared statement's plan valid across schema changes (it replans); one whose
 * result columns changed is prepared again — and run again when it ran alone (in a transaction,
 * the failure has aborted the transaction, so it is the caller's, as any statement's failure).
 * The cache is bounded: the least recently used statement is closed when it is full (statement
 * texts are the code's, so few, but some embed a number).
 */
export class EmbeddedStatements {
  private readonly prepared = new Map<string, PreparedStatement>();
  private nextName = 0;

  constructor(
    private readonly db: PGlite,
    private readonly capacity = 256,
    /** How values are parsed: the database's own parsers unless told otherwise (the thread's host keeps them as text). */
    private readonly parsers: PGlite['parsers'] = db.parsers,
  ) {}

  /**
   * A statement, with the result's fields beside its rows (parsed with the constructor's `parsers`).
   * Outside a transaction (`inTransaction` false) it waits for the one in progress, like
   * `PGlite.query`; inside, the caller holds PGlite's transaction lock and it runs in that transaction.
   */
  results<T>(text: string, params: unknown[], inTransaction: boolean): Promise<Results<T>> {
    if (inTransaction) return this.db.runExclusive(() => this.run<T>(text, params, false));
    return this.aloneOnceMoreIfStale(() => this.run<T>(text, params, true));
  }

  /**
   * A transaction that `text` usually completes on its own (SqlExecutor.transactionOpenedBy):
   * BEGIN, the statement, then COMMIT, unless its first row's `goesOnWhen` column is true: then
   * ROLLBACK, and null, for the caller to run the whole transaction again with what follows the
   * statement. Done here in one request, so no other request comes between and nobody waits on
   * the caller's event loop while the transaction is open. A statement whose prepared form went
   * stale is prepared and run again in a new transaction (the failure aborted the first).
   */
  async inOwnTransaction<T>(text: string, params: unknown[], goesOnWhen: string): Promise<Results<T> | null> {
    return this.aloneOnceMoreIfStale(() => this.once<T>(text, params, goesOnWhen));
  }

  /**
   * `work` after any transaction in progress, under PGlite's locks; run again once if its statement's
   * prepared form went stale (alone, it can simply be prepared and run again: nothing of the failed
   * attempt is left, its transaction if any rolled back).
   */
  private aloneOnceMoreIfStale<R>(work: () => Promise<R>): Promise<R> {
    return this.db._runExclusiveTransaction(() =>
      this.db.runExclusive(async () => {
        try {
          return await work();
        } catch (error) {
          if (!isStalePlan(error)) throw error;
          return work();
        }
      }),
    );
  }

  private async once<T>(text: string, params: unknown[], goesOnWhen: string): Promise<Results<T> | null> {
    let results: Results<T>;
    try {
      results = await this.run<T>(text, params, false, true);
    } catch (error) {
      // BEGIN went first in the same message; ROLLBACK after a failed BEGIN would only warn.
      await this.control('ROLLBACK');
      throw error;
    }
    const first = results.rows[0] as Record<string, unknown> | undefined;
    // Text rows (the thread's host parses nothing) say 't'; parsed rows say true.
    const goesOn = first !== undefined && (first[goesOnWhen] === true || first[goesOnWhen] === 't');
    if (goesOn) {
      await this.control('ROLLBACK');
      return null;
    }
    // A transaction that failed inside answers COMMIT with ROLLBACK: it did not commit.
    if ((await this.control('COMMIT')) !== 'COMMIT') throw new Error('the transaction was rolled back instead of committed');
    return results;
  }

  /**
   * BEGIN, COMMIT or ROLLBACK as one protocol message, nothing parsed or flushed but its tag
   * (PGlite's exec would parse the answer and flush to the file system after it).
   */
  async control(sql: 'BEGIN' | 'COMMIT' | 'ROLLBACK'): Promise<string | null> {
    const { messages } = await this.db.execProtocol(protocol.serialize.query(sql), { syncToFs: false });
    return messages.find((m): m is CommandComplete => m.name === 'commandComplete')?.text ?? null;
  }

  /** `begin`: BEGIN goes in the same message, before the statement (one call into the module fewer). */
  private async run<T>(text: string, params: unknown[], syncToFs: boolean, begin = false): Promise<Results<T>> {
    const statement = await this.statementFor(text, params);
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const serialize = this.db.serializers[statement.parameterTypes[i]];
      return serialize ? serialize(param) : String(param);
    });
    let messages: BackendMessage[];
    try {
      ({ messages } = await this.db.execProtocol(
        Buffer.concat([
          ...(begin ? [protocol.serialize.query('BEGIN')] : []),
          protocol.serialize.bind({ statement: statement.name, values: values as Array<string | null> }),
          protocol.serialize.execute({}),
          protocol.serialize.sync(),
        ]),
        { syncToFs },
      ));
    } catch (error) {
      if (isStalePlan(error)) await this.forget(text);
      throw withQuery(error, text, params);
    }
    // BEGIN's own answer ends at its ReadyForQuery; the statement's follows.
    if (begin) messages = messages.slice(messages.findIndex((m) => m.name === 'readyForQuery') + 1);
    const described = statement.rowDescription ? [statement.rowDescription, ...messages] : messages;
    return parse.parseResults(described, this.parsers)[0] as Results<T>;
  }

  private async statementFor(text: string, params: unknown[]): Promise<PreparedStatement> {
    const known = this.prepared.get(text);
    if (known) {
      // Most recently used last: a Map iterates in insertion order, so the first key is the eviction candidate.
      this.prepared.delete(text);
      this.prepared.set(text, known);
      return known;
    }
    if (this.prepared.size >= this.capacity) await this.forget(this.prepared.keys().next().value!);
    const name = `embedded_${(this.nextName += 1)}`;
    let messages: BackendMessage[];
    try {
      ({ messages } = await this.db.execProtocol(
        Buffer.concat([
          protocol.serialize.parse({ name, text, types: [] }),
          protocol.serialize.describe({ type: 'S', name }),
          protocol.serialize.sync(),
        ]),
        { syncToFs: false },
      ));
    } catch (error) {
      throw withQuery(error, text, params);
    }
    const statement: PreparedStatement = {
      name,
      parameterTypes: parse.parseDescribeStatementResults(messages),
      rowDescription: messages.find((m) => m.name === 'rowDescription') ?? null,
    };
    this.prepared.set(text, statement);
    return statement;
  }

  private async forget(text: string): Promise<void> {
    const statement = this.prepared.get(text);
    if (!statement) return;
    this.prepared.delete(text);
    await this.db.execProtocol(Buffer.concat([protocol.serialize.close({ type: 'S', name: statement.name }), protocol.serialize.sync()]), {
      syncToFs: false,
      throwOnError: false,
    });
  }
}

/** "cached plan must not change result type": the table's columns changed since it was prepared. */
function isStalePlan(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === '0A000' && /cached plan must not change result type/.test(message ?? '');
}

/** As PGlite's own query errors: the statement and its parameters ride along for the log. */
function withQuery(error: unknown, query: string, params: unknown[]): unknown {
  if (error && typeof error === 'object') Object.assign(error, { query, params });
  return error;
}
