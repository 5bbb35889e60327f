import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyHexField, createCopyLines } from "./copyText.ts";
import { loadMigrations, migrate } from "./migrate.ts";
import { createTestDatabase, type TestDatabase } from "./testDatabase.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

describe(`database (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  it("returns the same value types from either driver", async () => {
    const [row] = await t.db.query<Record<string, unknown>>(
      `SELECT 9007199254740993::int8 AS big, 1.50::numeric AS num, 42::int4 AS i, 1.5::float8 AS f,
              '2026-03-01'::date AS d, '2026-03-01T10:00:00.123Z'::timestamptz AS ts,
              '2026-03-01 10:00:00'::timestamp AS t, '\\xdeadbeef'::bytea AS b, '{"a":[1]}'::jsonb AS j, true AS ok`,
    );
    expect(row).toEqual({
      big: "9007199254740993",
      num: "1.50",
      i: 42,
      f: 1.5,
      d: "2026-03-01",
      ts: new Date("2026-03-01T10:00:00.123Z"),
      t: new Date("2026-03-01T10:00:00Z"),
      b: Buffer.from("deadbeef", "hex"),
      j: { a: [1] },
      ok: true,
    });
  });

  it("runs a named (prepared) statement again and again, with the same value types, in and out of a transaction", async () => {
    const named = { name: "kernel-test.named" };
    const sql = "SELECT $1::int8 AS big, $2::timestamptz AS ts, $3::numeric AS num";
    const at = new Date("2026-01-02T03:04:05.678Z");
    for (const n of ["1", "9007199254740993"]) {
      expect(await t.db.query(sql, [n, at, "1.50"], named)).toEqual([{ big: n, ts: at, num: "1.50" }]);
    }
    const inTransaction = await t.db.transaction((tx) => tx.query(sql, ["2", at, "3"], named));
    expect(inTransaction).toEqual([{ big: "2", ts: at, num: "3" }]);
  });

  it("round-trips bytea and timestamp parameters", async () => {
    const [row] = await t.db.query<{ b: Buffer; ts: Date }>("SELECT $1::bytea AS b, $2::timestamptz AS ts", [
      Buffer.from([1, 2, 255]),
      new Date("2026-01-02T03:04:05.678Z"),
    ]);
    expect(row?.b.equals(Buffer.from([1, 2, 255]))).toBe(true);
    expect(row?.ts.toISOString()).toBe("2026-01-02T03:04:05.678Z");
  });

  it("bulk-loads COPY text in and out of a transaction, escapes included", async () => {
    await t.db.exec("CREATE TABLE copy_probe (n numeric(78), b bytea, s text, f boolean, x bigint)");
    // A line with COPY's text escapes (tab, newline, backslash) and a null, outside a transaction.
    const escaped = `${2n ** 255n}\t${copyHexField("00ff")}\ttab\\there\\nnew \\\\ back\tt\t\\N\n`;
    await t.db.copyFrom("COPY copy_probe (n, b, s, f, x) FROM STDIN", escaped);
    const handBuilt = `0\t${copyHexField("0xdead")}\t\tf\t9007199254740993\n`;
    await t.db.transaction((tx) => tx.copyFrom("COPY copy_probe (n, b, s, f, x) FROM STDIN", handBuilt));
    expect(await t.db.query("SELECT * FROM copy_probe ORDER BY n DESC")).toEqual([
      { n: (2n ** 255n).toString(), b: Buffer.from("00ff", "hex"), s: "tab\there\nnew \\ back", f: true, x: null },
      { n: "0", b: Buffer.from("dead", "hex"), s: "", f: false, x: "9007199254740993" },
    ]);
    await expect(
      t.db.transaction((tx) => tx.copyFrom("COPY copy_probe (n) FROM STDIN", "not a number\n")),
    ).rejects.toThrow(/numeric/);
  });

  it("bulk-loads COPY lines given as bytes", async () => {
    await t.db.exec("CREATE TABLE copy_bytes_probe (n bigint, b bytea)");
    const lines = createCopyLines(16);
    for (let i = 1; i <= 2000; i++) lines.push(`${i}\t${copyHexField(`0x${i.toString(16).padStart(8, "0")}`)}\n`);
    await t.db.transaction((tx) => tx.copyFrom("COPY copy_bytes_probe (n, b) FROM STDIN", lines.bytes()));
    expect(
      await t.db.query(
        "SELECT count(*) AS rows, sum(n) AS total, (SELECT b FROM copy_bytes_probe ORDER BY n DESC LIMIT 1) AS last FROM copy_bytes_probe",
      ),
    ).toEqual([{ rows: "2000", total: "2001000", last: Buffer.from("000007d0", "hex") }]);
  });

  it("rolls back a failed transaction", async () => {
    await t.db.exec("CREATE TABLE tx_probe (n int)");
    await expect(
      t.db.transaction(async (tx) => {
        await tx.query("INSERT INTO tx_probe VALUES (1)");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await t.db.query("SELECT * FROM tx_probe")).toEqual([]);
  });

  it("applies migrations once and refuses an edited one", async () => {
    const migrations = loadMigrations("platform", new URL("../../migrations", import.meta.url).pathname);
    expect((await migrate(t.db, migrations)).applied).toEqual([
      "platform/0001_api_keys",
      "platform/0002_jobs_and_leases",
      "platform/0003_instances",
    ]);
    expect((await migrate(t.db, migrations)).applied).toEqual([]);
    const edited = migrations.map((m) => ({ ...m, sql: `${m.sql}\n-- edited` }));
    await expect(migrate(t.db, edited)).rejects.toThrow(/was changed after it was applied/);
  });
});
