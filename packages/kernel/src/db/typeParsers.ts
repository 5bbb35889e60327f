/**
 * The same value types from both drivers. Defaults differ: PGlite returns int8 as number and bytea as
 * Uint8Array where `pg` returns strings and Buffers, and `pg` turns `date` into a local-time Date.
 * We pick: int8 and numeric as decimal strings (exact), date as "YYYY-MM-DD", timestamps as Date,
 * bytea as Buffer, json/jsonb parsed.
 */
const OID = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  json: 114,
  float4: 700,
  float8: 701,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
  jsonb: 3802,
} as const;

const asString = (v: string) => v;

/** Parsers keyed by type oid, from the text form of a value. */
export const typeParsers: Record<number, (value: string) => unknown> = {
  [OID.int8]: asString,
  [OID.numeric]: asString,
  [OID.date]: asString,
  [OID.timestamp]: (v) => new Date(`${v.replace(" ", "T")}Z`),
  [OID.timestamptz]: (v) => new Date(v.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")),
  [OID.bytea]: (v) => Buffer.from(v.slice(2), "hex"),
  [OID.json]: (v) => JSON.parse(v),
  [OID.jsonb]: (v) => JSON.parse(v),
};
