import { afterAll, beforeAll, expect, it } from "vitest";
import { constraintViolation } from "./constraintViolation.ts";
import { createTestDatabase, type TestDatabase } from "./testDatabase.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await t.db.exec(`
    CREATE TABLE parents (id int PRIMARY KEY, email text);
    CREATE UNIQUE INDEX parents_email_key ON parents (lower(email));
    CREATE TABLE children (id int PRIMARY KEY, parent_id int REFERENCES parents (id), age int CHECK (age >= 0));
    INSERT INTO parents VALUES (1, 'a@example.com');`);
});
afterAll(() => t?.drop());

const failure = (sql: string) =>
  t.db.query(sql).then(
    () => expect.unreachable("the statement succeeded"),
    (e) => e,
  );

it("names the unique index, the foreign key and the check a statement broke (same on both drivers)", async () => {
  expect(constraintViolation(await failure("INSERT INTO parents VALUES (2, 'A@example.com')"))).toEqual({
    kind: "unique",
    constraint: "parents_email_key",
  });
  expect(constraintViolation(await failure("INSERT INTO children VALUES (1, 9, 1)"))).toEqual({
    kind: "foreignKey",
    constraint: "children_parent_id_fkey",
  });
  expect(constraintViolation(await failure("INSERT INTO children VALUES (1, 1, -1)"))).toEqual({
    kind: "check",
    constraint: "children_age_check",
  });
});

it("is undefined for any other error", async () => {
  expect(constraintViolation(await failure("SELECT * FROM missing_table"))).toBeUndefined();
  expect(constraintViolation(new Error("boom"))).toBeUndefined();
  expect(constraintViolation(undefined)).toBeUndefined();
});
