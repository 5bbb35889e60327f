/** The OpenAPI tags of the wearables API (kernel adds its own `System`), in the order its docs show them. */
export const usersTag = { name: "Users", description: "The people whose wearables the service reads." };

import { dataReadTags } from "./dataRoutes.ts";
import { providersTag } from "./oauth.ts";
import { summariesTag } from "./summaries.ts";
import { webhooksTag } from "./webhooks.ts";

export const importsTag = {
  name: "Imports",
  description: "Apple Health exports and FIT, GPX and TCX workout files, imported in the background with progress.",
};

export const openapiTags = [usersTag, summariesTag, ...dataReadTags, providersTag, importsTag, webhooksTag];
