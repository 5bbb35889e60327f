/**
 * `GET /v2/stocks/meta/exchanges` and `GET /v2/stocks/meta/conditions/{ticktype}?tape=` (the client's
 * `stockMetaExchanges`, `stockMetaConditions`): what the codes in trades and quotes mean. The exchange list is
 * the anchor's (our market prints on `V`, the IEX code); the condition lists hold the codes our market uses.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { dataErrorResponses } from "./schemas.ts";

export const EXCHANGE_NAMES: Record<string, string> = {
  A: "NYSE American (AMEX)",
  B: "NASDAQ OMX BX",
  C: "National Stock Exchange",
  D: "FINRA ADF",
  E: "Market Independent",
  H: "MIAX",
  I: "International Securities Exchange",
  J: "Cboe EDGA",
  K: "Cboe EDGX",
  L: "Long Term Stock Exchange",
  M: "Chicago Stock Exchange",
  N: "New York Stock Exchange",
  P: "NYSE Arca",
  Q: "NASDAQ OMX",
  S: "NASDAQ Small Cap",
  T: "NASDAQ Int",
  U: "Members Exchange",
  V: "IEX",
  W: "CBOE",
  X: "NASDAQ OMX PSX",
  Y: "Cboe BYX",
  Z: "Cboe BZX",
};

const TRADE_CONDITIONS: Record<string, string> = {
  "@": "Regular Sale",
  I: "Odd Lot Trade",
};
const QUOTE_CONDITIONS: Record<string, string> = {
  R: "Regular Two-Sided Open",
};

const CodeNames = (example: Record<string, string>) =>
  Type.Record(Type.String(), Type.String(), { examples: [example] });

export function registerMetaRoutes(api: HttpServer): void {
  api.get(
    "/v2/stocks/meta/exchanges",
    {
      schema: {
        operationId: "stockMetaExchanges",
        tags: ["Stock"],
        summary: "Exchange codes",
        description: "The exchange codes of trades (`x`) and quotes (`ax`, `bx`) with their names.",
        response: { 200: CodeNames({ V: "IEX" }), 401: dataErrorResponses[401], 429: dataErrorResponses[429] },
      },
    },
    async () => EXCHANGE_NAMES,
  );

  api.get(
    "/v2/stocks/meta/conditions/:ticktype",
    {
      schema: {
        operationId: "stockMetaConditions",
        tags: ["Stock"],
        summary: "Condition codes",
        description: "The condition codes of trades or quotes (`c`) with their meaning, for a tape.",
        params: Type.Object({
          ticktype: Type.Union([Type.Literal("trade"), Type.Literal("quote")], { description: "trade or quote." }),
        }),
        querystring: Type.Object({
          tape: Type.Union([Type.Literal("A"), Type.Literal("B"), Type.Literal("C")], {
            description: "The tape: A, B or C.",
          }),
        }),
        response: {
          200: CodeNames({ "@": "Regular Sale" }),
          401: dataErrorResponses[401],
          422: dataErrorResponses[422],
          429: dataErrorResponses[429],
        },
      },
    },
    async (request) =>
      (request.params as { ticktype: string }).ticktype === "trade" ? TRADE_CONDITIONS : QUOTE_CONDITIONS,
  );
}
