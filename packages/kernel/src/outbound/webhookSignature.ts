/**
 * Standard Webhooks signing (standard-webhooks `spec/standard-webhooks.md`, as Svix signs): the signed content
 * is `${id}.${timestamp}.${body}`, HMAC-SHA256 under the secret's bytes (the base64 after `whsec_`), sent as
 * `v1,<base64>`; several signatures (a rotation's old and new secrets) are separated by spaces. The same
 * values go out under both header families: `webhook-*` (the standard) and `svix-*` (what Svix sends and what
 * the anchor's receivers read).
 *
 * @example
 * const secret = generateWebhookSecret(); // "whsec_…"
 * const headers = webhookHeaders({ id: "msg_2a…", timestampSec: 1767225600, body, secrets: [secret] });
 */
import { createHmac, randomBytes } from "node:crypto";

/** Svix's generated key size (24 random bytes); the standard asks for at least that. */
const SECRET_BYTES = 24;
const PREFIX = "whsec_";

/** A new signing secret: `whsec_` and the base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The key bytes of a `whsec_…` secret. */
export function webhookSecretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under one secret. */
export function signWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const mac = createHmac("sha256", webhookSecretBytes(secret)).update(`${id}.${timestampSec}.${body}`).digest("base64");
  return `v1,${mac}`;
}

export interface WebhookHeadersParameters {
  id: string;
  timestampSec: number;
  body: string;
  /** Every secret in effect (the current one first, then one being rotated out). */
  secrets: readonly string[];
}

/** The signature headers of one delivery, under both the `webhook-*` and `svix-*` names. */
export function webhookHeaders(p: WebhookHeadersParameters): Record<string, string> {
  const signature = p.secrets.map((s) => signWebhook(s, p.id, p.timestampSec, p.body)).join(" ");
  const timestamp = String(p.timestampSec);
  return {
    "webhook-id": p.id,
    "webhook-timestamp": timestamp,
    "webhook-signature": signature,
    "svix-id": p.id,
    "svix-timestamp": timestamp,
    "svix-signature": signature,
  };
}
