/**
 * The `/swap/approval` request as the service reads it: its parameters' rules (the anchor's checks and
 * messages), its slippage, and its tokens as quote tokens (the zero address is the native coin, moved as the
 * chain's wrapped token).
 */
import { getAddress, zeroAddress } from "viem";
import type { SpokeChain } from "../../deployments.ts";
import { invalidParam } from "../../domain/quoteErrors.ts";
import type { EmbeddedAction } from "../../domain/swap/embeddedActions.ts";
import { MAX_SLIPPAGE, type SlippageRequest } from "../../domain/swap/slippage.ts";
import { wrappedNativeOf } from "../../quotes/enabledRoutes.ts";
import type { QuoteToken, TradeType } from "./swapPlan.ts";

const lower = (a: string) => a.toLowerCase();

/** The `/swap/approval` request, parsed (amounts and addresses still as text). */
export interface SwapApprovalRequest {
  tradeType?: TradeType;
  amount: string;
  inputToken: string;
  outputToken: string;
  originChainId: number;
  destinationChainId: number;
  depositor: string;
  recipient?: string;
  refundAddress?: string;
  refundOnOrigin?: boolean;
  /** "auto" or a fraction 0..0.5. */
  slippage?: string;
  /** Deprecated: percent 0..50. */
  slippageTolerance?: number;
  appFee?: number;
  appFeeRecipient?: string;
  integratorId?: string;
  strictTradeType?: boolean;
  skipOriginTxEstimation?: boolean;
  skipChecks?: boolean;
  includeSources?: string[];
  excludeSources?: string[];
  routingPreference?: string;
  /** POST only: the embedded actions. */
  actions?: EmbeddedAction[];
}

export function parseSlippage(r: SwapApprovalRequest): SlippageRequest {
  if (r.slippage === undefined && r.slippageTolerance !== undefined) {
    if (!(r.slippageTolerance >= 0 && r.slippageTolerance <= MAX_SLIPPAGE * 100)) {
      throw invalidParam("slippageTolerance must be between 0 and 50 (percent)", "slippageTolerance");
    }
    return r.slippageTolerance / 100;
  }
  const text = (r.slippage ?? "auto").trim();
  if (text === "auto") return "auto";
  const value = /^(0|[1-9]\d*)?(\.\d+)?(e-?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value < 0 || value > MAX_SLIPPAGE) {
    throw invalidParam(`slippage must be 'auto' or a number between 0 and ${MAX_SLIPPAGE}`, "slippage");
  }
  return value;
}

/** The caller's token on a chain: one of its ERC-20s, or the native coin (the zero address). */
export function quoteToken(chain: SpokeChain, address: string, param: string): QuoteToken {
  if (lower(address) === zeroAddress) {
    const native = wrappedNativeOf(chain);
    if (!native)
      throw invalidParam(`Chain ${chain.chainId} has no wrapped native token: the native coin cannot be used`, param);
    return {
      chainId: chain.chainId,
      address: zeroAddress,
      symbol: native.nativeSymbol,
      decimals: native.token.decimals,
      erc20: native.token.address,
      native: true,
    };
  }
  const token = chain.tokens.find((t) => lower(t.address) === lower(address));
  if (!token) throw invalidParam(`Unsupported token ${address} on chain ${chain.chainId}`, param);
  return {
    chainId: chain.chainId,
    address: token.address,
    symbol: token.symbol,
    decimals: token.decimals,
    erc20: token.address,
    native: false,
  };
}

/** The chain's native coin, for the origin gas (ETH, 18 decimals, priced as its wrapped token when it has one). */
export function nativeTokenOf(chain: SpokeChain): QuoteToken {
  const native = wrappedNativeOf(chain);
  return native
    ? quoteToken(chain, zeroAddress, "inputToken")
    : { chainId: chain.chainId, address: zeroAddress, symbol: "ETH", decimals: 18, erc20: zeroAddress, native: true };
}

/** The request's own rules, before any chain is looked at. */
export function checkSwapParameters(r: SwapApprovalRequest) {
  const tradeType = r.tradeType ?? "exactInput";
  const amount = BigInt(r.amount);
  if (amount < 1n || amount >= 2n ** 256n)
    throw invalidParam("amount must be a positive integer below 2^256", "amount");
  if (r.originChainId === r.destinationChainId) {
    throw invalidParam("Origin and destination chains cannot be the same", "destinationChainId");
  }
  if ((r.appFee !== undefined) !== (r.appFeeRecipient !== undefined)) {
    throw invalidParam("appFee and appFeeRecipient must be given together", "appFee, appFeeRecipient");
  }
  const appFee = r.appFee ?? 0;
  if (!(appFee >= 0 && appFee < 1)) throw invalidParam("appFee must be a fraction between 0 and 1", "appFee");
  if (r.integratorId !== undefined && !/^0x[0-9a-fA-F]{4}$/.test(r.integratorId)) {
    throw invalidParam("Invalid integrator ID. Needs to be 2 bytes hex string.", "integratorId");
  }
  if (r.includeSources?.length && r.excludeSources?.length) {
    throw invalidParam("Cannot use both includeSources and excludeSources", "excludeSources, includeSources");
  }
  return {
    tradeType,
    amount,
    appFee,
    slippage: parseSlippage(r),
    depositor: getAddress(r.depositor),
    recipient: getAddress(r.recipient ?? r.depositor),
    // The spec's order: refundAddress, else recipient, else depositor.
    refundRecipient: getAddress(r.refundAddress ?? r.recipient ?? r.depositor),
  };
}
