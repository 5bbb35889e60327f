import { PGlite, types } from "@electric-sql/pglite";
import type { Database, Queryable } from "./database.ts";
import { typeParsers } from "./typeParsers.ts";

const parsers = Object.fromEntries(
  Object.entries(typeParsers).map(([oid, parse]) => [Number(oid), (value: string) => parse(value)]),
);

function wrap(target: Pick<PGlite, "query" | "exec">): Queryable {
  return {
    async query<R>(text: string, params: readonly unknown[] = []) {
      const result = await target.query<R>(text, params as unknown[]);
      return result.rows;
    },
    async exec(script: string) {
      await target.exec(script);
    },
    async copyFrom(statement: string, data: string | Uint8Array) {
      // PGlite reads COPY input from the virtual file /dev/blob, filled from the query's blob option.
      const fromBlob = statement.replace(/\bFROM\s+STDIN\b/i, "FROM '/dev/blob'");
      await target.query(fromBlob, [], { blob: new Blob([data as string | Uint8Array<ArrayBuffer>]) });
    },
  };
}

/** Embedded PostgreSQL (PGlite): one process owns `dir`; `undefined` = in memory. */
export async function createPgliteDatabase(dir: string | undefined): Promise<Database> {
  const pg = await PGlite.create(dir ?? "memory://", {
    parsers,
    serializers: {
      // PGlite's default writes Buffers as text; send bytea as the \x hex form PostgreSQL reads.
      [types.BYTEA]: (v: unknown) => (v instanceof Uint8Array ? `\\x${Buffer.from(v).toString("hex")}` : String(v)),
    },
  });
  return {
    driver: "pglite",
    ...wrap(pg),
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    // A callback of its own per call, so two listeners of one channel stop independently.
    listen: async (channel, onNotification) => {
      const unlisten = await pg.listen(channel, (payload) => onNotification(payload));
      return () => unlisten();
    },
    close: () => pg.close(),
  };
}
