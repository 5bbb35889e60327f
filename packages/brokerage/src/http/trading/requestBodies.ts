/**
 * How the trading and market data hosts read request bodies: as Alpaca's API does (a Go service; Go's
 * encoding/json ignores unknown fields and leaves a field absent for `null`), measured through the clients that
 * rely on it. `@master-chief/alpaca` 6.3 sends every JSON body without a Content-Type (fetch labels it
 * `text/plain;charset=UTF-8`), `order_id` inside `PATCH /v2/orders/{id}`, `uuid` inside watchlist bodies and
 * `null` for unused fields, and works against Alpaca; so does `curl -d '{…}'` without `-H`, which labels the
 * JSON `application/x-www-form-urlencoded`.
 * The OAuth endpoints (form bodies only, RFC 6749) and the authorization pages keep their own parsers.
 */
import type { BodyLeniency } from "@platform/kernel";

export const alpacaRequestBodies: BodyLeniency = {
  jsonWithoutContentType: true,
  jsonFromTextPlain: true,
  jsonFromFormUrlencoded: true,
  ignoreUnknownFields: true,
  nullAsAbsent: true,
};
