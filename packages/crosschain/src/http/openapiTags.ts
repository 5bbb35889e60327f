/** The OpenAPI tags of the crosschain API (kernel adds its own `System`), in the order its docs show them. */
export const quotesTag = {
  name: "Quotes",
  description: "What a deposit costs and where it can go: suggested fees and limits, enabled routes, served chains.",
};
export const depositsTag = {
  name: "Deposits",
  description: "SpokePool deposits as the indexer stored them, with their fill status.",
};

export const swapsTag = {
  name: "Swaps",
  description:
    "Crosschain swaps: quotes with origin and destination swaps routed over the chains' pools, embedded actions on the destination, and the swap sources.",
};

export const settlementTag = {
  name: "Settlement",
  description:
    "Root bundles: what the dataworker proposed on the HubPool and executed (relayer repayments, refunds of expired deposits, slow fills).",
};

export const openapiTags = [quotesTag, swapsTag, depositsTag, settlementTag];
