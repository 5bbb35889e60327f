/** Our signatures, verified by the receivers' own libraries, unchanged: `standardwebhooks` and `svix`. */
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, webhookHeaders, webhookSecretBytes } from "./webhookSignature.ts";

describe("webhook signatures", () => {
  const body = JSON.stringify({ type: "workout.created", data: { id: "w1" } });
  const now = Math.floor(Date.now() / 1000);

  it("generates whsec_ secrets of 24 random bytes", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(webhookSecretBytes(secret)).toHaveLength(24);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it("verifies with standardwebhooks (webhook-* headers) and svix (svix-* headers)", () => {
    const secret = generateWebhookSecret();
    const headers = webhookHeaders({ id: "msg_1", timestampSec: now, body, secrets: [secret] });
    expect(new StandardWebhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    const svixHeaders = {
      "svix-id": headers["svix-id"],
      "svix-timestamp": headers["svix-timestamp"],
      "svix-signature": headers["svix-signature"],
    } as Record<string, string>;
    expect(new SvixWebhook(secret).verify(body, svixHeaders)).toEqual(JSON.parse(body));
  });

  it("during a rotation, both the new and the old secret verify", () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = webhookHeaders({ id: "msg_2", timestampSec: now, body, secrets: [current, previous] });
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(() => new StandardWebhook(current).verify(body, headers)).not.toThrow();
    expect(() => new StandardWebhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new StandardWebhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new StandardWebhook(current).verify(`${body} `, headers)).toThrow();
  });
});
