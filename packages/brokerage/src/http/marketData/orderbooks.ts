/**
 * `GET /v1beta3/crypto/{loc}/latest/orderbooks` (the client's `cryptoLatestOrderbooks`): the latest order book
 * of each pair. The market records the best bid and offer, not the depth behind it, so each book is its top
 * level: one bid (`b`) and one ask (`a`), from the latest recorded quote.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { MarketDataService } from "../../services/marketData.ts";
import { checkCommon } from "./historical.ts";
import { dataPrincipalOf } from "./marketDataAuth.ts";
import { answer, BySymbol, dataErrorResponses, LocParams, latestQuery } from "./schemas.ts";

const Level = Type.Object({ p: Type.Number({ description: "Price." }), s: Type.Number({ description: "Size." }) });
const ORDERBOOK_EXAMPLE = { t: "2026-11-25T15:04:00.000Z", b: [{ p: 67010, s: 0.5 }], a: [{ p: 67015, s: 0.4 }] };
const Orderbook = Type.Object(
  {
    t: Type.String({ format: "date-time", description: "RFC 3339, UTC." }),
    b: Type.Array(Level, { description: "Bids, best first." }),
    a: Type.Array(Level, { description: "Asks, best first." }),
  },
  { examples: [ORDERBOOK_EXAMPLE] },
);

export function registerOrderbookRoutes(api: HttpServer, { marketData }: { marketData: MarketDataService }): void {
  api.get(
    "/v1beta3/crypto/:loc/latest/orderbooks",
    {
      schema: {
        operationId: "cryptoLatestOrderbooks",
        tags: ["Crypto"],
        summary: "Latest crypto order books",
        description:
          "The latest order book of each pair: its top level (best bid and ask) from the latest recorded quote.",
        params: LocParams,
        querystring: latestQuery({ symbols: "BTC/USD,ETH/USD", stock: false }),
        response: {
          200: Type.Object({ orderbooks: BySymbol(Orderbook, "BTC/USD", ORDERBOOK_EXAMPLE) }),
          ...dataErrorResponses,
        },
      },
    },
    async (request) =>
      answer(async () => {
        const { symbols } = request.query as { symbols: string };
        checkCommon({}, (request.params as { loc: string }).loc);
        const requester = marketData.requester(dataPrincipalOf(request).userId);
        return { orderbooks: await marketData.latestOrderbooks({ market: "crypto", symbols, requester }) };
      }),
  );
}
