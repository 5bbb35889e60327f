/** The OpenAPI tags of the crosschain API (kernel adds its own `System`), in the order its docs show them. */
export const quotesTag = {
  name: "Quotes",
  description: "What a deposit costs and where it can go: suggested fees and limits, enabled routes, served chains.",
};
export const depositsTag = {
  name: "Deposits",
  description: "SpokePool deposits as the indexer stored them, with their fill status.",
};

export const openapiTags = [quotesTag, depositsTag];
