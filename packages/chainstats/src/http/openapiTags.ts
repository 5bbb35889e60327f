/** The OpenAPI tags of the chain statistics API (kernel adds its own `System`). */
export const statsTag = {
  name: "Stats",
  description: "Daily statistics of the indexed chains and the list of those chains (Etherscan API V2 shapes).",
};

export const openapiTags = [statsTag];
