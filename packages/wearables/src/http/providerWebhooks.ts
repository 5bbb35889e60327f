/**
 * Vendors' push notifications: `POST /providers/{provider}/webhooks` (and `GET` for subscription checks such as
 * Strava's `hub.challenge`), as the anchor's unified webhook routes. No API key (a vendor cannot send one): the
 * adapter verifies each notification with the vendor's own scheme (signature over the raw bytes, timestamp,
 * shared token). Unknown provider → 404; a vendor that does not push here (no push support, or no client configured) → 404 too (the anchor: 501); unverified → 401.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { VendorDirectory } from "../providers/registry.ts";
import type { PushRequest } from "../providers/types.ts";
import type { ProviderPush } from "../services/providerPush.ts";
import { providersTag } from "./oauth.ts";
import { ErrorBody } from "./schemas.ts";

const ProviderPath = Type.Object({ provider: Type.String({ maxLength: 64 }) });

export async function registerProviderWebhookRoutes(
  app: HttpServer,
  p: { directory: VendorDirectory; push: ProviderPush },
) {
  // Signatures are over the exact bytes: this scope reads every body as a Buffer, whatever its type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  const vendorOf = (provider: string) => {
    const adapter = p.directory.adapter(provider);
    if (!adapter) throw new HttpError(404, `Provider '${provider}' not found`);
    const secrets = p.directory.pushSecrets(provider);
    if (!adapter.push || !secrets) throw new HttpError(404, `Provider '${provider}' does not push notifications here`);
    return { push: adapter.push, secrets };
  };
  const headersOf = (raw: Record<string, string | string[] | undefined>) =>
    Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : v]));

  app.post(
    "/providers/:provider/webhooks",
    {
      schema: {
        operationId: "receiveProviderWebhook",
        tags: [providersTag.name],
        summary: "Receive a vendor notification",
        description:
          "A vendor's push (its own body format, verified by its own scheme). Answers at once; the data is written " +
          "or pulled by a sync run.",
        security: [],
        params: ProviderPath,
        response: {
          200: Type.Object(
            { status: Type.String(), notices: Type.Integer(), runs_queued: Type.Integer(), written: Type.Integer() },
            { examples: [{ status: "accepted", notices: 1, runs_queued: 1, written: 0 }] },
          ),
          400: ErrorBody("Malformed notification"),
          401: ErrorBody("Notification not verified"),
          404: ErrorBody("Provider 'ultrahuman' does not push notifications here"),
        },
      },
    },
    async (request) => {
      const { push, secrets } = vendorOf(request.params.provider);
      const req: PushRequest = {
        headers: headersOf(request.headers),
        query: request.query as Record<string, string | undefined>,
        rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        contentType: request.headers["content-type"],
      };
      if (!push.verify(req, secrets, Date.now())) throw new HttpError(401, "Notification not verified");
      let notices: ReturnType<typeof push.parse>;
      try {
        notices = push.parse(req, Date.now());
      } catch (error) {
        throw new HttpError(
          400,
          `Malformed notification: ${error instanceof Error ? error.message.slice(0, 200) : ""}`,
        );
      }
      const outcome = await p.push.handle(request.params.provider, notices);
      return {
        status: "accepted",
        notices: outcome.notices,
        runs_queued: outcome.runsQueued,
        written: outcome.written,
      };
    },
  );

  app.get(
    "/providers/:provider/webhooks",
    {
      schema: {
        operationId: "verifyProviderWebhook",
        tags: [providersTag.name],
        summary: "Answer a vendor's subscription check",
        description:
          "Strava's `hub.challenge`, Oura's and Fitbit's verification: the vendor checks the callback is ours.",
        security: [],
        params: ProviderPath,
        response: {
          200: Type.Unknown({ examples: [{ "hub.challenge": "15f7d1a91c1f40f8a748fd134752feb3" }] }),
          204: Type.Null({ description: "Verified (Fitbit)." }),
          400: ErrorBody("Not a subscription check"),
          403: Type.Unknown({ description: "The verify token does not match (the vendor's own body)." }),
          404: ErrorBody("Provider 'ultrahuman' does not push notifications here"),
        },
      },
    },
    async (request, reply) => {
      const { push, secrets } = vendorOf(request.params.provider);
      const answer = push.challenge?.(request.query as Record<string, string | undefined>, secrets);
      if (!answer) throw new HttpError(400, "Not a subscription check");
      // The vendor's own answer (Fitbit wants 204 or 404, Strava 200 or 403).
      return reply.code(answer.status as 200).send(answer.body);
    },
  );
}
