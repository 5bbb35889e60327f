/**
 * Identifiers shown to users and applications, shaped as the anchor's: account numbers (`PA…` for paper
 * accounts, as Alpaca's paper accounts are numbered; ten characters for live ones, as its example
 * `010203ABCD`) and key-pair ids (`PK…` for paper keys, `AK…` for live keys, 20 characters).
 */
import { randomUpperAlphanumeric } from "./secrets.ts";

export type AccountEnv = "live" | "paper";

/** A new random account number of the given environment (36^10 possibilities: collisions are retried). */
export const newAccountNumber = (env: AccountEnv): string =>
  env === "paper" ? `PA${randomUpperAlphanumeric(10)}` : randomUpperAlphanumeric(10);

/** A new key-pair id: `PK` (paper) or `AK` (live) and 18 random characters of [A-Z0-9]. */
export const newKeyId = (env: AccountEnv): string => `${env === "paper" ? "PK" : "AK"}${randomUpperAlphanumeric(18)}`;

/** What a key id presented in `APCA-API-KEY-ID` can look like; anything else is refused without a lookup. */
export const KEY_ID = /^(PK|AK)[A-Z0-9]{18}$/;
