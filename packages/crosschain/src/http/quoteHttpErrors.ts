/**
 * How the quote endpoints (`/suggested-fees`, `/swap/approval`, `/swap/counterfactual`) answer the quote
 * errors of `domain/quoteErrors.ts`: a refusal is a 400 with its code and parameter; a chain that did not
 * answer, a 502; chain state not warm (or stale), a 503. Anything else stays an unexpected error (500).
 */
import { HttpError } from "@platform/kernel";
import { ChainNotAnsweringError, ChainStateUnavailableError, QuoteRefusedError } from "../domain/quoteErrors.ts";

export function throwQuoteErrorAsHttp(error: unknown): never {
  if (error instanceof QuoteRefusedError) throw new HttpError(400, error.message, error.code, error.param);
  if (error instanceof ChainNotAnsweringError) throw new HttpError(502, error.message, "UPSTREAM_RPC_ERROR");
  if (error instanceof ChainStateUnavailableError) throw new HttpError(503, error.message, "UPSTREAM_RPC_ERROR");
  throw error;
}
