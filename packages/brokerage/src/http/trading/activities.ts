/**
 * `GET /v2/account/activities` and `GET /v2/account/activities/{activity_type}` (live and paper hosts,
 * read-only): the account's fills and non-trade activities, a page at a time, as the anchor's objects. The
 * operation ids and parameters are the official client's (`AccountActivitiesApi`). A bad parameter is the
 * anchor's 422 (`42210000`) naming it, never a 500.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { type Static, Type } from "typebox";
import { InvalidActivityQueryError } from "../../domain/accountHistoryErrors.ts";
import { ACTIVITY_ID_PATTERN } from "../../domain/activityIds.ts";
import { ACTIVITY_TYPES, toActivityObject } from "../../domain/activityObject.ts";
import { QUERY_INSTANT_PATTERN } from "../../domain/queryInstants.ts";
import { type ActivitiesService, type ActivityQuery, MAX_PAGE_SIZE } from "../../services/activities.ts";
import { alpacaCode } from "./errorFormat.ts";
import { tradingErrorResponses } from "./schemas.ts";
import { principalOf } from "./tradingAuth.ts";

const Decimal = (description: string) => Type.String({ description, pattern: "^-?\\d+(\\.\\d+)?$" });
const QueryTime = (description: string) => Type.String({ pattern: QUERY_INSTANT_PATTERN, maxLength: 40, description });

/** The examples are the real shaping of example rows (one source for the fields and their formats). */
const FILL_EXAMPLE = toActivityObject({
  id: "20260105143406977::8efc7b9a-8b2b-4000-9955-d36e7db0df74",
  activity_type: "FILL",
  transaction_time: new Date("2026-01-05T14:34:06.977Z"),
  order_id: "61e69015-8549-4bfd-b9c3-01e75843f47d",
  symbol: "AAPL",
  side: "buy",
  type: "partial_fill",
  qty: "10.000000000",
  price: "187.250000000",
  cum_qty: "10.000000000",
  leaves_qty: "5.000000000",
  order_status: "partially_filled",
  net_amount: null,
  per_share_amount: null,
  description: null,
});
const DEPOSIT_EXAMPLE = toActivityObject({
  id: "20260105140311421::c3b4a0e6-5b9c-4bd9-9a51-0f3b06d3c1a2",
  activity_type: "CSD",
  transaction_time: new Date("2026-01-05T14:03:11.421Z"),
  order_id: null,
  symbol: null,
  side: null,
  type: null,
  qty: null,
  price: null,
  cum_qty: null,
  leaves_qty: null,
  order_status: null,
  net_amount: "100000.000000000",
  per_share_amount: null,
  description: "Initial deposit",
});

/** The anchor's FILL activity (the client's `TradingActivities`): one execution of an order. */
export const FillActivity = Type.Object(
  {
    activity_type: Type.Literal("FILL"),
    id: Type.String({ description: "`<yyyymmddHHMMSSmmm>::<uuid>` (UTC); sorts by time; a `page_token`." }),
    transaction_time: Type.String({ format: "date-time", description: "When the execution happened." }),
    type: Type.String({ description: "`fill` (the order is filled) or `partial_fill`." }),
    price: Decimal("Price per share or coin of this execution."),
    qty: Decimal("Quantity of this execution."),
    side: Type.String({ description: "buy or sell" }),
    symbol: Type.String(),
    leaves_qty: Decimal("Quantity of the order still to execute after this execution."),
    order_id: Type.String({ format: "uuid" }),
    cum_qty: Decimal("Quantity of the order executed so far, this execution included."),
    order_status: Type.String({ description: "The order's status after this execution." }),
  },
  { examples: [FILL_EXAMPLE] },
);

/** The anchor's non-trade activity (the client's `NonTradeActivities`): a cash deposit, a dividend, a fee, …. */
export const NonTradeActivity = Type.Object(
  {
    activity_type: Type.String({ description: "CSD (cash deposit), DIV, FEE, … (not FILL)." }),
    id: Type.String({ description: "`<yyyymmddHHMMSSmmm>::<uuid>` (UTC); sorts by time; a `page_token`." }),
    date: Type.String({ format: "date", description: "The New York date of the activity." }),
    net_amount: Decimal("Cash it moved: positive into the account, negative out of it."),
    description: Type.String(),
    status: Type.Literal("executed"),
    symbol: Type.Optional(Type.String({ description: "The security it concerns, if any." })),
    qty: Type.Optional(Decimal("For dividends: the shares that earned it.")),
    per_share_amount: Type.Optional(Decimal("For dividends: the amount per share.")),
  },
  { examples: [DEPOSIT_EXAMPLE] },
);

const ActivityList = Type.Array(Type.Union([FillActivity, NonTradeActivity]), {
  description: "A page of activities, newest first unless `direction=asc`.",
  examples: [[FILL_EXAMPLE, DEPOSIT_EXAMPLE]],
});

const PagingQuery = {
  date: Type.Optional(
    QueryTime(
      "Only activities of this New York day (`2026-01-05`, or a timestamp whose date is used). Not with `after`/`until`.",
    ),
  ),
  until: Type.Optional(QueryTime("Only activities before this time (exclusive); a date is its midnight in New York.")),
  after: Type.Optional(QueryTime("Only activities after this time (exclusive); a date is its midnight in New York.")),
  direction: Type.Union([Type.Literal("asc"), Type.Literal("desc")], {
    default: "desc",
    description: "Chronological order: `desc` (newest first, the default) or `asc`.",
  }),
  page_size: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: MAX_PAGE_SIZE,
    description: `Most activities answered (default and maximum ${MAX_PAGE_SIZE}).`,
  }),
  page_token: Type.Optional(
    Type.String({
      pattern: ACTIVITY_ID_PATTERN,
      description: "The `id` of the last activity of the previous page: this page continues after it.",
    }),
  ),
};

const ListActivitiesQuery = Type.Object({
  activity_types: Type.Optional(
    Type.String({
      pattern: "^ *[A-Za-z]{1,16} *(, *[A-Za-z]{1,16} *)*$",
      maxLength: 1_024,
      description: "Comma-separated activity types, e.g. `FILL,CSD`. Not with `category`.",
    }),
  ),
  category: Type.Optional(
    Type.Union([Type.Literal("trade_activity"), Type.Literal("non_trade_activity")], {
      description: "`trade_activity` (fills) or `non_trade_activity` (every other type). Not with `activity_types`.",
    }),
  ),
  ...PagingQuery,
});

const ActivityTypeParams = Type.Object({
  activity_type: Type.Enum([...ACTIVITY_TYPES], { description: "One of the anchor's activity types, e.g. `FILL`." }),
});

const TypeActivitiesQuery = Type.Object(PagingQuery);
type PagingValues = Static<typeof TypeActivitiesQuery>;

const paging = (q: PagingValues): Omit<ActivityQuery, "activityTypes" | "category"> => ({
  date: q.date,
  until: q.until,
  after: q.after,
  direction: q.direction,
  pageSize: q.page_size,
  pageToken: q.page_token,
});

/** The anchor's 422 for a refused query; any other error goes on (a 500). */
function answerError(error: unknown): never {
  if (error instanceof InvalidActivityQueryError) {
    throw new HttpError(422, `query.${error.parameter}: ${error.message}`, String(alpacaCode(422)), error.parameter);
  }
  throw error;
}

const DESCRIPTION =
  "Fills (`FILL`, one per execution of an order) and non-trade activities (`CSD`: the cash deposited when the " +
  "account opened, …) of the account, a page at a time: pass the `id` of the last activity of a page as " +
  "`page_token` for the next one. `date` selects a New York day; `after`/`until` bound the time (exclusive).";

export function registerActivityRoutes(app: HttpServer, { activities }: { activities: ActivitiesService }) {
  app.get(
    "/v2/account/activities",
    {
      schema: {
        operationId: "getAccountActivities",
        tags: ["Accounts"],
        summary: "Retrieve account activities",
        description: DESCRIPTION,
        querystring: ListActivitiesQuery,
        response: { 200: ActivityList, ...tradingErrorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      return activities
        .list(principalOf(request).account.id, {
          activityTypes: q.activity_types?.split(",").map((type) => type.trim()),
          category: q.category,
          ...paging(q),
        })
        .catch(answerError);
    },
  );

  app.get(
    "/v2/account/activities/:activity_type",
    {
      schema: {
        operationId: "getAccountActivitiesByActivityType",
        tags: ["Accounts"],
        summary: "Retrieve account activities of one type",
        description: `${DESCRIPTION} Only activities of the path's type.`,
        params: ActivityTypeParams,
        querystring: TypeActivitiesQuery,
        response: { 200: ActivityList, ...tradingErrorResponses },
      },
    },
    async (request) =>
      activities
        .list(principalOf(request).account.id, {
          activityTypes: [request.params.activity_type],
          ...paging(request.query),
        })
        .catch(answerError),
  );
}
