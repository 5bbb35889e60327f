/** Request and response schemas of the swap endpoints (the anchor's names, reference §1.5). */
import { Type } from "typebox";
import { MAX_ACTION_ARGS, MAX_EMBEDDED_ACTIONS } from "../domain/swap/embeddedActions.ts";
import { AddressParam, ChainIdParam, EXAMPLE_REQUEST_ID, TokenSchema } from "./schemas.ts";

const SourceList = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 32, description });

export const SwapApprovalQuery = Type.Object({
  tradeType: Type.Optional(
    Type.Union([Type.Literal("exactInput"), Type.Literal("minOutput"), Type.Literal("exactOutput")], {
      description:
        "exactInput (default): `amount` is the input. minOutput: `amount` is the least output; the input is computed " +
        "with fees and slippage. exactOutput: exactly `amount` is delivered, or the destination swap refunds.",
    }),
  ),
  amount: Type.String({
    pattern: "^[0-9]{1,78}$",
    description: "In inputToken units for exactInput, otherwise in outputToken units (decimal integer ≥ 1).",
  }),
  inputToken: AddressParam("Token on the origin chain; the zero address is the native coin."),
  outputToken: AddressParam("Token on the destination chain; the zero address is the native coin."),
  originChainId: ChainIdParam("Origin chain."),
  destinationChainId: ChainIdParam("Destination chain."),
  depositor: AddressParam("The account sending the transaction."),
  recipient: Type.Optional(AddressParam("Receives the output token; default the depositor.")),
  refundAddress: Type.Optional(AddressParam("Receives refunds; default the recipient, else the depositor.")),
  refundOnOrigin: Type.Optional(
    Type.Boolean({
      description: "Refund on the origin chain; default true without a destination swap, false with one.",
    }),
  ),
  slippage: Type.Optional(
    Type.String({
      maxLength: 24,
      description:
        "`auto` (default: per leg from the trade's share of the pools' depth, 0.5 %–5 %) or a fraction 0..0.5 " +
        "(0.005 = 0.5 %), split equally between an origin and a destination swap.",
    }),
  ),
  slippageTolerance: Type.Optional(Type.Number({ description: "Deprecated: slippage in percent (0..50)." })),
  appFee: Type.Optional(
    Type.Number({ description: "Integrator fee, a fraction of the output (0 ≤ appFee < 1); needs appFeeRecipient." }),
  ),
  appFeeRecipient: Type.Optional(AddressParam("Receives the app fee on the destination chain.")),
  integratorId: Type.Optional(Type.String({ maxLength: 16, description: "2-byte hex id, e.g. 0xdead." })),
  strictTradeType: Type.Optional(
    Type.Boolean({
      description: "Follow tradeType strictly (default true; every trade type is always honoured here).",
    }),
  ),
  skipOriginTxEstimation: Type.Optional(
    Type.Boolean({ description: "Do not simulate the origin transaction (gas is then an assumption)." }),
  ),
  skipChecks: Type.Optional(Type.Boolean({ description: "Do not read the allowance and balance from the chain." })),
  includeSources: Type.Optional(SourceList("Only these swap sources (see /swap/sources); not with excludeSources.")),
  excludeSources: Type.Optional(SourceList("Never these swap sources; not with includeSources.")),
  routingPreference: Type.Optional(
    Type.Union(
      [Type.Literal("default"), Type.Literal("across"), Type.Literal("native"), Type.Literal("sponsored-cctp")],
      {
        description: "Accepted for compatibility; every route here is an Across route.",
      },
    ),
  ),
});

const ActionArgSchema = Type.Object({
  value: Type.Unknown({ description: "A static value, or nested arrays for array and tuple parameters." }),
  populateDynamically: Type.Optional(Type.Boolean()),
  // Nullable as in the anchor's ActionArg schema (across-openapi.yaml): null is the same as absent.
  balanceSourceToken: Type.Optional(
    Type.Union([AddressParam("The token whose balance fills this uint256 argument."), Type.Null()]),
  ),
});

const ActionSchema = Type.Object({
  target: AddressParam("Contract called on the destination chain."),
  functionSignature: Type.Optional(
    Type.String({ maxLength: 1000, description: "e.g. `function deposit(address,uint256)`." }),
  ),
  isNativeTransfer: Type.Optional(Type.Boolean()),
  args: Type.Optional(Type.Array(ActionArgSchema, { maxItems: MAX_ACTION_ARGS })),
  value: Type.Optional(Type.String({ pattern: "^[0-9]{1,78}$", description: "Native value (wei)." })),
  populateCallValueDynamically: Type.Optional(Type.Boolean()),
});

export const SwapActionsBody = Type.Object(
  { actions: Type.Array(ActionSchema, { maxItems: MAX_EMBEDDED_ACTIONS }) },
  {
    examples: [
      {
        actions: [
          {
            target: "0x9A676e781A523b5d0C0e43731313A708CB607508",
            functionSignature: "function deposit(address token, uint256 amount)",
            args: [
              { value: "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb" },
              {
                value: "0",
                populateDynamically: true,
                balanceSourceToken: "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb",
              },
            ],
            value: "0",
          },
        ],
      },
    ],
  },
);

const Token = TokenSchema;
const Amount = Type.String({ pattern: "^-?[0-9]+$" });
const Fee = Type.Object({ amount: Amount, amountUsd: Type.String(), pct: Amount, token: Token });
const BridgeDetails = Type.Object({ type: Type.Literal("across"), lp: Fee, relayerCapital: Fee, destinationGas: Fee });
const SwapStep = Type.Object({
  tokenIn: Token,
  tokenOut: Token,
  inputAmount: Amount,
  outputAmount: Amount,
  minOutputAmount: Amount,
  maxInputAmount: Amount,
  swapProvider: Type.Object({ name: Type.String(), sources: Type.Array(Type.String()) }),
  slippage: Type.Number(),
});
const Tx = Type.Object({ chainId: Type.Integer(), to: Type.String(), data: Type.String() });

const usdcBase = { address: "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb", symbol: "USDC", decimals: 6, chainId: 8453 };
const usdcOp = { ...usdcBase, chainId: 10 };
const daiOp = { address: "0xE3011A37A904aB90C8881a99BD1F6E21401f1522", symbol: "DAI", decimals: 18, chainId: 10 };
const ethBase = { address: "0x0000000000000000000000000000000000000000", symbol: "ETH", decimals: 18, chainId: 8453 };
const fee = (amount: string, amountUsd: string, pct: string, token: typeof usdcBase) => ({
  amount,
  amountUsd,
  pct,
  token,
});
const bridgeDetails = {
  type: "across",
  lp: fee("0", "0", "0", usdcBase),
  relayerCapital: fee("100000", "0.1", "1000000000000000", usdcBase),
  destinationGas: fee("8342", "0.008342", "83420000000000", usdcBase),
};

/** A bridgeable→any quote on the devnet: 100 USDC from Base to DAI on Optimism. */
const SWAP_EXAMPLE = {
  crossSwapType: "bridgeableToAny",
  amountType: "exactInput",
  checks: {
    allowance: {
      token: usdcBase.address,
      spender: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
      actual: "0",
      expected: "100000000",
    },
    balance: { token: usdcBase.address, actual: "100000000000", expected: "100000000" },
  },
  approvalTxns: [{ chainId: 8453, to: usdcBase.address, data: "0x095ea7b3" }],
  steps: {
    bridge: {
      inputAmount: "100000000",
      outputAmount: "99891658",
      tokenIn: usdcBase,
      tokenOut: usdcOp,
      fees: { amount: "108342", pct: "1083420000000000", token: usdcBase, details: bridgeDetails },
      provider: "across",
    },
    destinationSwap: {
      tokenIn: usdcOp,
      tokenOut: daiOp,
      inputAmount: "99891658",
      outputAmount: "99582047963522781052",
      minOutputAmount: "99084137723705167146",
      maxInputAmount: "99891658",
      swapProvider: { name: "uniswap", sources: ["uniswap_v2"] },
      slippage: 0.005,
    },
  },
  inputToken: usdcBase,
  outputToken: daiOp,
  refundToken: usdcOp,
  fees: {
    total: {
      ...fee("417952", "0.417952", "4179520000000000", usdcBase),
      details: {
        type: "total-breakdown",
        swapImpact: fee("309610", "0.30961", "3096100000000000", usdcBase),
        app: fee("0", "0", "0", daiOp),
        bridge: { ...fee("108342", "0.108342", "1083420000000000", usdcBase), details: bridgeDetails },
      },
    },
    totalMax: {
      ...fee("915862", "0.915862", "9158620000000000", usdcBase),
      details: {
        type: "max-total-breakdown",
        maxSwapImpact: fee("807520", "0.80752", "8075200000000000", usdcBase),
        app: fee("0", "0", "0", daiOp),
        bridge: { ...fee("108342", "0.108342", "1083420000000000", usdcBase), details: bridgeDetails },
      },
    },
    originGas: { amount: "240000000000000", amountUsd: "0.72", token: ethBase },
  },
  inputAmount: "100000000",
  maxInputAmount: "100000000",
  expectedOutputAmount: "99582047963522781052",
  minOutputAmount: "99084137723705167146",
  expectedFillTime: 2,
  swapTx: {
    simulationSuccess: false,
    chainId: 8453,
    to: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
    data: "0xad5425c61dc0dedead73c0de",
    value: "0",
    gas: "120000",
    maxFeePerGas: "2000000000",
    maxPriorityFeePerGas: "1000000000",
  },
  quoteExpiryTimestamp: 1764213630,
  id: EXAMPLE_REQUEST_ID,
};

const BridgeFee = Type.Object({
  amount: Amount,
  amountUsd: Type.String(),
  pct: Amount,
  token: Token,
  details: BridgeDetails,
});
const TotalFee = Type.Object({
  amount: Amount,
  amountUsd: Type.String(),
  pct: Amount,
  token: Token,
  details: Type.Object({ type: Type.Literal("total-breakdown"), swapImpact: Fee, app: Fee, bridge: BridgeFee }),
});
const TotalMaxFee = Type.Object({
  amount: Amount,
  amountUsd: Type.String(),
  pct: Amount,
  token: Token,
  details: Type.Object({ type: Type.Literal("max-total-breakdown"), maxSwapImpact: Fee, app: Fee, bridge: BridgeFee }),
});

export const SwapApprovalResponseSchema = Type.Object(
  {
    crossSwapType: Type.Union([
      Type.Literal("bridgeableToBridgeable"),
      Type.Literal("anyToBridgeable"),
      Type.Literal("bridgeableToAny"),
      Type.Literal("anyToAny"),
    ]),
    amountType: Type.String(),
    checks: Type.Object({
      allowance: Type.Object({ token: Type.String(), spender: Type.String(), actual: Amount, expected: Amount }),
      balance: Type.Object({ token: Type.String(), actual: Amount, expected: Amount }),
    }),
    approvalTxns: Type.Optional(Type.Array(Tx, { description: "Present when the allowance is short." })),
    steps: Type.Object({
      originSwap: Type.Optional(SwapStep),
      bridge: Type.Object({
        inputAmount: Amount,
        outputAmount: Amount,
        tokenIn: Token,
        tokenOut: Token,
        fees: Type.Object({ amount: Amount, pct: Amount, token: Token, details: BridgeDetails }),
        provider: Type.String(),
      }),
      destinationSwap: Type.Optional(SwapStep),
    }),
    inputToken: Token,
    outputToken: Token,
    refundToken: Token,
    fees: Type.Object({
      total: TotalFee,
      totalMax: TotalMaxFee,
      originGas: Type.Object({ amount: Amount, amountUsd: Type.String(), token: Token }),
    }),
    inputAmount: Amount,
    maxInputAmount: Amount,
    expectedOutputAmount: Amount,
    minOutputAmount: Amount,
    expectedFillTime: Type.Integer({ minimum: 0, description: "Seconds." }),
    swapTx: Type.Object({
      simulationSuccess: Type.Boolean(),
      chainId: Type.Integer(),
      to: Type.String(),
      data: Type.String(),
      value: Amount,
      gas: Type.Optional({ ...Amount, description: "Present when the transaction was simulated." }),
      maxFeePerGas: Amount,
      maxPriorityFeePerGas: Amount,
    }),
    quoteExpiryTimestamp: Type.Integer(),
    id: Type.String(),
  },
  { examples: [SWAP_EXAMPLE] },
);
