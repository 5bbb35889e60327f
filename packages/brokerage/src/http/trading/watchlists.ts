/**
 * Watchlists (live and paper hosts), the anchor's routes and its official client's method names
 * (`WatchlistsApi`): `GET`/`POST /v2/watchlists`; `GET`/`PUT`/`POST`/`DELETE /v2/watchlists/{watchlist_id}`
 * and the same four on `/v2/watchlists:by_name?name=…`; `DELETE /v2/watchlists/{watchlist_id}/{symbol}`.
 * Reads need no scope, writes need `account:write` (`domain/scopes.ts`). A watchlist of another account, or of
 * this account on the other host, is not found (404), as is an id that is not a UUID: ids are only ever
 * matched, never validated, so every id that names no watchlist of the account gets the same answer.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import {
  WatchlistLimitError,
  WatchlistNameTakenError,
  WatchlistNotFoundError,
  WatchlistSymbolNotFoundError,
} from "../../domain/watchlistErrors.ts";
import type { WatchlistRef } from "../../domain/watchlists.ts";
import { AssetNotFoundError } from "../../market/assets.ts";
import type { WatchlistsService } from "../../services/watchlists.ts";
import { alpacaCode } from "./errorFormat.ts";
import { tradingErrorResponses } from "./schemas.ts";
import { principalOf } from "./tradingAuth.ts";
import {
  AddAssetToWatchlistRequest,
  assetOrWatchlistNotFound,
  CreateWatchlistRequest,
  symbolOrWatchlistNotFound,
  UpdateWatchlistRequest,
  Watchlist,
  WatchlistIdParams,
  WatchlistList,
  WatchlistNameQuery,
  WatchlistSymbolParams,
  watchlistNotFound,
  watchlistNotValid,
} from "./watchlistSchemas.ts";

/** The anchor's message for a taken name (its one 422 of watchlists). */
export const NAME_NOT_UNIQUE = "watchlist name is not unique, or some parameters are not valid";

/** The service's answer, with its domain errors as the anchor's bodies. */
async function answer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const notFound =
      error instanceof WatchlistNotFoundError ||
      error instanceof AssetNotFoundError ||
      error instanceof WatchlistSymbolNotFoundError;
    if (notFound) throw new HttpError(404, error.message, String(alpacaCode(404)));
    if (error instanceof WatchlistNameTakenError) throw new HttpError(422, NAME_NOT_UNIQUE, String(alpacaCode(422)));
    if (error instanceof WatchlistLimitError) throw new HttpError(422, error.message, String(alpacaCode(422)));
    throw error;
  }
}

const withoutNulls = (symbols: (string | null)[] | undefined): string[] | undefined =>
  symbols?.filter((s): s is string => s !== null);

const accountOf = (request: FastifyRequest): string => principalOf(request).account.id;

/** The two ways of naming one watchlist, with the client's method names for each. */
const ADDRESSINGS = [
  {
    path: "/v2/watchlists/:watchlist_id",
    input: { params: WatchlistIdParams },
    refOf: (request: FastifyRequest): WatchlistRef => ({
      id: (request.params as { watchlist_id: string }).watchlist_id,
    }),
    by: "its id",
    ids: {
      get: "getWatchlistById",
      update: "updateWatchlistById",
      add: "addAssetToWatchlist",
      delete: "deleteWatchlistById",
    },
    summary: "",
  },
  {
    // `::` is a literal colon in a Fastify path.
    path: "/v2/watchlists::by_name",
    input: { querystring: WatchlistNameQuery },
    refOf: (request: FastifyRequest): WatchlistRef => ({ name: (request.query as { name: string }).name }),
    by: "its name (`name`, exact)",
    ids: {
      get: "getWatchlistByName",
      update: "updateWatchlistByName",
      add: "addAssetToWatchlistByName",
      delete: "deleteWatchlistByName",
    },
    summary: " by name",
  },
] as const;

export function registerWatchlistRoutes(app: HttpServer, { watchlists }: { watchlists: WatchlistsService }) {
  app.get(
    "/v2/watchlists",
    {
      schema: {
        operationId: "getWatchlists",
        tags: ["Watchlists"],
        summary: "List watchlists",
        description: "The account's watchlists, oldest first, without their assets.",
        response: {
          200: WatchlistList,
          401: tradingErrorResponses[401],
        },
      },
    },
    async (request) => watchlists.list(accountOf(request)),
  );

  app.post(
    "/v2/watchlists",
    {
      schema: {
        operationId: "postWatchlist",
        tags: ["Watchlists"],
        summary: "Create a watchlist",
        description:
          "A new watchlist with the symbols given, in their order (repeats ignored). Needs the `account:write` " +
          "scope. An account has at most 200 watchlists of at most 1,000 symbols.",
        body: CreateWatchlistRequest,
        response: {
          200: Watchlist,
          401: tradingErrorResponses[401],
          404: assetOrWatchlistNotFound,
          422: watchlistNotValid,
        },
      },
    },
    async (request) =>
      answer(() =>
        watchlists.create(accountOf(request), { name: request.body.name, symbols: withoutNulls(request.body.symbols) }),
      ),
  );

  for (const addressing of ADDRESSINGS) {
    const { path, input, refOf, by, ids, summary } = addressing;
    app.get(
      path,
      {
        schema: {
          operationId: ids.get,
          tags: ["Watchlists"],
          summary: `Get a watchlist${summary}`,
          description: `The account's watchlist named by ${by}, with its assets in order.`,
          ...input,
          response: {
            200: Watchlist,
            401: tradingErrorResponses[401],
            404: watchlistNotFound,
            422: tradingErrorResponses[422],
          },
        },
      },
      async (request) => answer(() => watchlists.get(accountOf(request), refOf(request))),
    );

    app.put(
      path,
      {
        schema: {
          operationId: ids.update,
          tags: ["Watchlists"],
          summary: `Update a watchlist${summary}`,
          description:
            `Renames the watchlist named by ${by} and/or replaces its assets by \`symbols\` (in their order). ` +
            "Needs the `account:write` scope.",
          ...input,
          body: UpdateWatchlistRequest,
          response: {
            200: Watchlist,
            401: tradingErrorResponses[401],
            404: assetOrWatchlistNotFound,
            422: watchlistNotValid,
          },
        },
      },
      async (request) => {
        const body = request.body as { name?: string; symbols?: (string | null)[] };
        return answer(() =>
          watchlists.update(accountOf(request), refOf(request), {
            name: body.name,
            symbols: withoutNulls(body.symbols),
          }),
        );
      },
    );

    app.post(
      path,
      {
        schema: {
          operationId: ids.add,
          tags: ["Watchlists"],
          summary: `Add an asset to a watchlist${summary}`,
          description:
            `Adds the asset at the end of the watchlist named by ${by}; one listed already keeps its place. Needs ` +
            "the `account:write` scope.",
          ...input,
          body: AddAssetToWatchlistRequest,
          response: {
            200: Watchlist,
            401: tradingErrorResponses[401],
            404: assetOrWatchlistNotFound,
            422: watchlistNotValid,
          },
        },
      },
      async (request) => {
        const { symbol } = request.body as { symbol: string };
        return answer(() => watchlists.addAsset(accountOf(request), refOf(request), symbol));
      },
    );

    app.delete(
      path,
      {
        schema: {
          operationId: ids.delete,
          tags: ["Watchlists"],
          summary: `Delete a watchlist${summary}`,
          description: `Deletes the watchlist named by ${by}, for good. Needs the \`account:write\` scope.`,
          ...input,
          response: {
            204: Type.Null({ description: "Deleted." }),
            401: tradingErrorResponses[401],
            404: watchlistNotFound,
            422: tradingErrorResponses[422],
          },
        },
      },
      async (request, reply) => {
        await answer(() => watchlists.delete(accountOf(request), refOf(request)));
        return reply.code(204).send(null);
      },
    );
  }

  app.delete(
    "/v2/watchlists/:watchlist_id/:symbol",
    {
      schema: {
        operationId: "removeAssetFromWatchlist",
        tags: ["Watchlists"],
        summary: "Remove an asset from a watchlist",
        description:
          "Removes the symbol from the watchlist and answers the watchlist. Needs the `account:write` scope.",
        params: WatchlistSymbolParams,
        response: {
          200: Watchlist,
          401: tradingErrorResponses[401],
          404: symbolOrWatchlistNotFound,
          422: tradingErrorResponses[422],
        },
      },
    },
    async (request) =>
      answer(() =>
        watchlists.removeAsset(accountOf(request), { id: request.params.watchlist_id }, request.params.symbol),
      ),
  );

  // `/v2/watchlists/{id}/BTC/USD` with the pair's slash unencoded: the same removal, kept out of the document.
  app.delete(
    "/v2/watchlists/:watchlist_id/:base/:quote",
    {
      schema: {
        hide: true,
        params: Type.Object({
          watchlist_id: Type.String({ minLength: 1 }),
          base: Type.String({ minLength: 1, maxLength: 32 }),
          quote: Type.String({ minLength: 1, maxLength: 32 }),
        }),
      },
    },
    async (request) =>
      answer(() =>
        watchlists.removeAsset(
          accountOf(request),
          { id: request.params.watchlist_id },
          `${request.params.base}/${request.params.quote}`,
        ),
      ),
  );
}
