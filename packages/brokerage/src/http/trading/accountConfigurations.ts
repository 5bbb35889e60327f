/**
 * `GET` and `PATCH /v2/account/configurations` (live and paper hosts): the account's configurations, as the
 * anchor's object. A PATCH needs the `account:write` scope (`domain/scopes.ts`); any value the brokerage
 * does not accept or a body that is not an object is the anchor's 400
 * `{"code":40010000,"message":"One of the new values is unacceptable."}` and changes nothing. A field it does
 * not know is ignored and `null` leaves a field as it is, as the anchor (`requestBodies.ts`).
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { UnacceptableConfigurationError } from "../../domain/accountConfigurationErrors.ts";
import { DEFAULT_ACCOUNT_CONFIGURATIONS } from "../../domain/accountConfigurations.ts";
import { AccountNotFoundError } from "../../domain/brokerageErrors.ts";
import type { AccountConfigurationsService } from "../../services/accountConfigurations.ts";
import { alpacaCode } from "./errorFormat.ts";
import { errorResponse, tradingErrorResponses } from "./schemas.ts";
import { principalOf } from "./tradingAuth.ts";

/** The anchor's message for a PATCH it refuses. */
export const UNACCEPTABLE_VALUES = "One of the new values is unacceptable.";

const checkMoment = (description: string) =>
  Type.Union([Type.Literal("both"), Type.Literal("entry"), Type.Literal("exit")], { description });

/** Each field with its accepted values, for the answer and for the PATCH body. */
const FIELDS = {
  dtbp_check: checkMoment("When day-trading buying power is checked: on entering, exiting, or both."),
  trade_confirm_email: Type.Union([Type.Literal("all"), Type.Literal("none")], {
    description: "`none`: no email is sent for order fills.",
  }),
  suspend_trade: Type.Boolean({ description: "If true, new orders are blocked." }),
  no_shorting: Type.Boolean({ description: "If true, the account is long-only." }),
  fractional_trading: Type.Boolean({ description: "If true, fractional quantities and notional orders are accepted." }),
  max_margin_multiplier: Type.Union([Type.Literal("1"), Type.Literal("2"), Type.Literal("4")], {
    description: "Largest margin multiplier the account may use.",
  }),
  pdt_check: checkMoment("When the pattern-day-trader rule is checked: on entering, exiting, or both."),
  max_options_trading_level: Type.Literal(0, { description: "Options trading is not offered: always 0 (disabled)." }),
  ptp_no_exception_entry: Type.Literal(false, {
    description: "Orders for PTP symbols without exception: always false.",
  }),
  disable_overnight_trading: Type.Literal(false, { description: "Overnight trading is not offered: always false." }),
};

/** The anchor's configuration object (official client's `AccountConfigurations`). */
export const AccountConfigurations = Type.Object(FIELDS, {
  $id: "AccountConfigurations",
  examples: [{ ...DEFAULT_ACCOUNT_CONFIGURATIONS, suspend_trade: true }],
});

const AccountConfigurationsPatch = Type.Partial(Type.Object(FIELDS), {
  additionalProperties: false,
  description: "Any subset of the configuration fields; the others are kept.",
  examples: [{ no_shorting: true, max_margin_multiplier: "1" }],
});

const unacceptable = (cause?: unknown) => {
  const error = new HttpError(400, UNACCEPTABLE_VALUES, String(alpacaCode(400)));
  if (cause !== undefined) error.cause = cause;
  return error;
};

const accountNotFound = () => new HttpError(404, "account not found", String(alpacaCode(404)));

/** The service's answer, with its domain errors as the anchor's bodies. */
async function answer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UnacceptableConfigurationError) throw unacceptable(error);
    if (error instanceof AccountNotFoundError) throw accountNotFound();
    throw error;
  }
}

export function registerAccountConfigurationRoutes(
  app: HttpServer,
  { accountConfigurations }: { accountConfigurations: AccountConfigurationsService },
) {
  app.get(
    "/v2/account/configurations",
    {
      schema: {
        operationId: "getAccountConfig",
        tags: ["Accounts"],
        summary: "Get the account configurations",
        description: "The account's current configuration values (trading restrictions, margin, checks, emails).",
        response: { 200: AccountConfigurations, 401: tradingErrorResponses[401] },
      },
    },
    async (request) => answer(() => accountConfigurations.get(principalOf(request).account.id)),
  );

  app.patch(
    "/v2/account/configurations",
    {
      // A refused body is the anchor's 400 below, not the kernel's parameter 422.
      attachValidation: true,
      schema: {
        operationId: "patchAccountConfig",
        tags: ["Accounts"],
        summary: "Change the account configurations",
        description:
          "Sets the fields given and answers every configuration value. Needs the `account:write` scope. A value " +
          "that is not accepted changes nothing and is a 400; an unknown field is ignored, `null` keeps the value.",
        body: AccountConfigurationsPatch,
        response: {
          200: AccountConfigurations,
          400: errorResponse("A value is not accepted, or the body is not a JSON object.", {
            code: 40010000,
            message: UNACCEPTABLE_VALUES,
          }),
          401: tradingErrorResponses[401],
        },
      },
    },
    async (request) => {
      if (request.validationError) throw unacceptable(request.validationError);
      return answer(() => accountConfigurations.update(principalOf(request).account.id, request.body));
    },
  );
}
