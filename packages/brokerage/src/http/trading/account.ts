/**
 * `GET /v2/account` (live and paper hosts): the account the credentials open on this host, as the anchor's
 * account object. The authentication hook has read the account row already; this route only shapes it.
 */
import type { HttpServer } from "@platform/kernel";
import { toAlpacaAccount } from "../../domain/accountObject.ts";
import type { PositionsService } from "../../services/positions.ts";
import { Account, tradingErrorResponses } from "./schemas.ts";
import { principalOf } from "./tradingAuth.ts";

export function registerAccountRoutes(app: HttpServer, { positions }: { positions: PositionsService }) {
  app.get(
    "/v2/account",
    {
      schema: {
        operationId: "getAccount",
        tags: ["Accounts"],
        summary: "Get the account",
        description:
          "The account the credentials open on this host: with an OAuth token, the live or paper account the user " +
          "authorized (this host's environment); with a key pair, its account. Amounts are decimal strings.",
        response: { 200: Account, 401: tradingErrorResponses[401] },
      },
    },
    async (request) => {
      const { account } = principalOf(request);
      return toAlpacaAccount(account, new Date(), await positions.valuationOf(account.id));
    },
  );
}
