import type { SqlExecutor } from '@lib/persistence';
import { getDMMF } from '@prisma/internals';
import fs from 'node:fs';
import path from 'node:path';

/** The parts of a relational schema that Prisma's schema decides; compared in both directions. */
export interface TableShape {
  columns: Record<string, { type: string; nullable: boolean; hasDefault: boolean }>;
  primaryKey: string[];
  uniques: string[][];
  indexes: string[][];
  foreignKeys: Array<{ columns: string[]; references: string; referencedColumns: string[]; onDelete: string }>;
  /** Partial indexes, as "columns where predicate" (Postgres's own rendering of the predicate). */
  partialIndexes: string[];
}
export type SchemaShape = Record<string, TableShape>;

/**
 * Partial indexes, which Prisma's schema cannot state, so they are listed here and nowhere else
 * but their migration: the jobs in flight, counted by every dispatch pass
 * (migration 20261129100000_in_flight_job_indexes).
 */
const IN_FLIGHT = "((status = 'processing'::text) AND (dispatched_at IS NOT NULL))";
const PARTIAL_INDEXES: Record<string, string[]> = {
  jobs: [`dispatched_at where ${IN_FLIGHT}`, `client_id where ${IN_FLIGHT}`, `project_id where ${IN_FLIGHT}`],
};

const SCALAR_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'int4',
  BigInt: 'int8',
  Boolean: 'bool',
  DateTime: 'timestamp(3)',
  Json: 'jsonb',
  Float: 'float8',
  Decimal: 'numeric(65,30)',
  Bytes: 'bytea',
};
const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Uuid: () => 'uuid',
  Text: () => 'text',
  VarChar: ([n]) => `varchar(${n})`,
  Char: ([n]) => `bpchar(${n})`,
  Timestamptz: ([p]) => `timestamptz(${p ?? 6})`,
  Timestamp: ([p]) => `timestamp(${p ?? 6})`,
  Integer: () => 'int4',
  BigInt: () => 'int8',
  JsonB: () => 'jsonb',
};
const ON_DELETE: Record<string, string> = {
  Cascade: 'cascade',
  Restrict: 'restrict',
  NoAction: 'no action',
  SetNull: 'set null',
  SetDefault: 'set default',
};
// Defaults that Prisma's client fills in, which therefore never reach the database.
const CLIENT_SIDE_DEFAULTS = new Set(['uuid', 'cuid', 'nanoid', 'ulid']);

export async function expectedShapeFromPrismaSchema(
  schemaPath = path.resolve(__dirname, '../../prisma/schema.prisma'),
): Promise<SchemaShape> {
  const dmmf = await getDMMF({ datamodel: fs.readFileSync(schemaPath, 'utf8') });
  const shape: SchemaShape = {};
  const columnOf = (modelName: string, fieldName: string): string => {
    const model = dmmf.datamodel.models.find((m) => m.name === modelName)!;
    const field = model.fields.find((f) => f.name === fieldName)!;
    return field.dbName ?? field.name;
  };
  const tableOf = (modelName: string): string => {
    const model = dmmf.datamodel.models.find((m) => m.name === modelName)!;
    return model.dbName ?? model.name;
  };
  for (const model of dmmf.datamodel.models) {
    const table: TableShape = {
      columns: {},
      primaryKey: [],
      uniques: [],
      indexes: [],
      foreignKeys: [],
      partialIndexes: PARTIAL_INDEXES[model.dbName ?? model.name] ?? [],
    };
    for (const field of model.fields) {
      if (field.kind === 'object') {
        if (field.relationFromFields && field.relationFromFields.length > 0) {
          table.foreignKeys.push({
            columns: field.relationFromFields.map((f) => columnOf(model.name, f)),
            references: tableOf(field.type),
            referencedColumns: (field.relationToFields ?? []).map((f) => columnOf(field.type, f)),
            onDelete: ON_DELETE[field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull')],
          });
        }
        continue;
      }
      const native = field.nativeType as [string, string[]] | null | undefined;
      const base = native ? NATIVE_TYPES[native[0]](native[1]) : SCALAR_TYPES[field.type];
      const def = field.default as { name?: string } | undefined;
      const hasDefault = field.hasDefaultValue && !(def && typeof def === 'object' && def.name && CLIENT_SIDE_DEFAULTS.has(def.name));
      table.columns[field.dbName ?? field.name] = {
        type: field.isList ? `${base}[]` : base,
        nullable: !field.isRequired || field.isList,
        hasDefault,
      };
    }
    for (const index of dmmf.datamodel.indexes.filter((i) => i.model === model.name)) {
      const cols = index.fields.map((f) => columnOf(model.name, f.name));
      if (index.type === 'id') table.primaryKey = cols;
      else if (index.type === 'unique') table.uniques.push(cols);
      else if (index.type === 'normal') table.indexes.push(cols);
    }
    shape[model.dbName ?? model.name] = normalize(table);
  }
  return shape;
}

export async function actualShapeOfDatabase(sql: Pick<SqlExecutor, 'query'>): Promise<SchemaShape> {
  const columns = await sql.query<{
    table_name: string;
    column_name: string;
    udt_name: string;
    is_nullable: string;
    column_default: string | null;
    character_maximum_length: number | null;
    datetime_precision: number | null;
  }>(
    `select table_name, column_name, udt_name, is_nullable, column_default, character_maximum_length, datetime_precision
       from information_schema.columns where table_schema = current_schema() and table_name <> '_prisma_migrations'`,
  );
  const indexes = await sql.query<{
    table_name: string;
    columns: string[];
    is_unique: boolean;
    is_primary: boolean;
    predicate: string | null;
  }>(
    `select t.relname as table_name, i.indisunique as is_unique, i.indisprimary as is_primary, pg_get_expr(i.indpred, i.indrelid) as predicate,
            array(select a.attname::text from unnest(i.indkey) with ordinality k(attnum, n)
                  join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.n) as columns
       from pg_index i join pg_class t on t.oid = i.indrelid join pg_namespace ns on ns.oid = t.relnamespace
      where ns.nspname = current_schema() and t.relname <> '_prisma_migrations'`,
  );
  const foreignKeys = await sql.query<{
    table_name: string;
    columns: string[];
    references: string;
    referenced_columns: string[];
    on_delete: string;
  }>(
    `select t.relname as table_name, r.relname as references,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, n) join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.n) as columns,
            array(select a.attname::text from unnest(c.confkey) with ordinality k(attnum, n) join pg_attribute a on a.attrelid = r.oid and a.attnum = k.attnum order by k.n) as referenced_columns,
            case c.confdeltype when 'c' then 'cascade' when 'r' then 'restrict' when 'a' then 'no action' when 'n' then 'set null' when 'd' then 'set default' end as on_delete
       from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_class r on r.oid = c.confrelid join pg_namespace ns on ns.oid = t.relnamespace
      where c.contype = 'f' and ns.nspname = current_schema()`,
  );
  const shape: SchemaShape = {};
  const tableFor = (name: string) =>
    (shape[name] ??= { columns: {}, primaryKey: [], uniques: [], indexes: [], foreignKeys: [], partialIndexes: [] });
  for (const c of columns) {
    let type = c.udt_name.startsWith('_') ? `${c.udt_name.slice(1)}[]` : c.udt_name;
    if (c.udt_name === 'varchar' || c.udt_name === 'bpchar') type = `${c.udt_name}(${c.character_maximum_length})`;
    if (c.udt_name === 'timestamptz' || c.udt_name === 'timestamp') type = `${c.udt_name}(${c.datetime_precision})`;
    tableFor(c.table_name).columns[c.column_name] = { type, nullable: c.is_nullable === 'YES', hasDefault: c.column_default !== null };
  }
  for (const i of indexes) {
    const table = tableFor(i.table_name);
    if (i.predicate !== null) table.partialIndexes.push(`${i.columns.join(', ')} where ${i.predicate}`);
    else if (i.is_primary) table.primaryKey = i.columns;
    else if (i.is_unique) table.uniques.push(i.columns);
    else table.indexes.push(i.columns);
  }
  for (const fk of foreignKeys) {
    tableFor(fk.table_name).foreignKeys.push({
      columns: fk.columns,
      references: fk.references,
      referencedColumns: fk.referenced_columns,
      onDelete: fk.on_delete,
    });
  }
  return Object.fromEntries(Object.entries(shape).map(([name, table]) => [name, normalize(table)]));
}

function normalize(table: TableShape): TableShape {
  const byJson = <T>(a: T, b: T) => JSON.stringify(a).localeCompare(JSON.stringify(b));
  return {
    ...table,
    uniques: [...table.uniques].sort(byJson),
    indexes: [...table.indexes].sort(byJson),
    partialIndexes: [...table.partialIndexes].sort(),
    foreignKeys: [...table.foreignKeys].sort(byJson),
  };
}
