import type { Database, Queryable, QueryOptions } from "../db/database.ts";

/**
 * The statements a database ran, in order, for tests that count round trips: "BEGIN" and "COMMIT" mark each
 * transaction (each is a round trip too).
 */
export interface StatementLog {
  statements: string[];
  /** Statements run inside a transaction (its BEGIN and COMMIT left out). */
  inTransactions: number;
  transactions: number;
}

/**
 * `target` with every statement recorded in `log`; `target` itself is left as it is (its methods are taken
 * now, so the recording ones may be assigned to it when a service already holds that very object).
 * @example
 * const { db, log } = recordStatements(database.db);
 * await createOrdersService({ db, … }).place(accountId, body);
 * expect(log.statements).toHaveLength(2);
 */
export function recordStatements(target: Database): { db: Database; log: StatementLog } {
  const log: StatementLog = { statements: [], inTransactions: 0, transactions: 0 };
  const recorded = (q: Queryable, inTransaction: boolean): Queryable => {
    const [query, exec, copyFrom] = [q.query.bind(q), q.exec.bind(q), q.copyFrom.bind(q)];
    const note = (text: string) => {
      log.statements.push(text);
      if (inTransaction) log.inTransactions += 1;
    };
    return {
      query: <R>(text: string, params?: readonly unknown[], options?: QueryOptions) => {
        note(text);
        return query<R>(text, params, options);
      },
      exec: (script) => {
        note(script);
        return exec(script);
      },
      copyFrom: (statement, data) => {
        note(statement);
        return copyFrom(statement, data);
      },
    };
  };
  const transaction = target.transaction.bind(target);
  const db: Database = {
    ...recorded(target, false),
    driver: target.driver,
    transaction: async (fn) => {
      log.transactions += 1;
      log.statements.push("BEGIN");
      try {
        return await transaction((tx) => fn(recorded(tx, true)));
      } finally {
        log.statements.push("COMMIT");
      }
    },
    listen: (channel, onNotification) => target.listen(channel, onNotification),
    close: () => target.close(),
  };
  return { db, log };
}
