/**
 * Secrets encrypted at rest (vendor OAuth tokens, webhook signing secrets…): AES-256-GCM under a key of a
 * key ring, in one compact, self-describing text value that fits any `text` column:
 *
 *     v1.<keyId>.<iv>.<ciphertext>.<tag>        (iv, ciphertext and tag in base64url, no padding)
 *
 * The value names the key it was sealed with, so keys rotate without a flag day: new values are sealed with
 * the current key, old ones still open with theirs as long as it stays in the ring, and `needsRotation`
 * tells a job which ones to re-seal before the old key is dropped.
 *
 * Associated data binds a value to where it belongs (`wearables.connection:<id>:access_token`): it is
 * authenticated, not stored, so a value copied into another row or column fails to open there. The
 * version and key id are authenticated as well, so no part of the value can be swapped.
 *
 * The IV is 96 random bits per seal: with random IVs one key should seal fewer than 2^32 values (NIST
 * SP 800-38D), far above what a platform's tokens reach between rotations.
 *
 * @example
 * const box = createSecretBox({ keys: [{ id: "k1", key: randomBytes(32) }] });
 * const sealed = box.seal("ya29.token", "wearables.connection:42:access_token"); // "v1.k1.…"
 * box.open(sealed, "wearables.connection:42:access_token"); // "ya29.token"
 * box.open(sealed, "wearables.connection:43:access_token"); // throws SealedSecretError
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** A key of the ring: its id (named in every value it seals) and its 32 bytes, raw or in base64/base64url. */
export interface SecretKey {
  id: string;
  key: Uint8Array | string;
}

export interface CreateSecretBoxParameters {
  /** Every key a value may name; at least one. Ids are unique, `[A-Za-z0-9_-]{1,32}`. */
  keys: readonly SecretKey[];
  /** The key new values are sealed with; default the first of `keys`. */
  currentKeyId?: string;
}

export interface SecretBox {
  /** The id of the key `seal` uses. */
  readonly currentKeyId: string;
  /** `plaintext` encrypted with the current key, bound to `associatedData` (default none). */
  seal(plaintext: string, associatedData?: string): string;
  /**
   * The plaintext of `sealed`, with the key it names. Throws {@link UnknownSecretKeyError} when that key is not
   * in the ring, {@link SealedSecretError} when the value is malformed, altered, or bound to other associated data.
   */
  open(sealed: string, associatedData?: string): string;
  /** True when `sealed` names a key other than the current one: re-seal it (open, then seal) before that key goes. */
  needsRotation(sealed: string): boolean;
}

/** Key material that cannot be used: a key not of 32 bytes, a malformed or repeated id, an unknown current id. */
export class SecretKeyError extends Error {
  override name = "SecretKeyError" as const;
}
export type SecretKeyErrorType = SecretKeyError;

/** A sealed value names a key the ring does not hold (dropped too early, or sealed by another deployment). */
export class UnknownSecretKeyError extends Error {
  override name = "UnknownSecretKeyError" as const;
  constructor(readonly keyId: string) {
    super(`the sealed secret names key "${keyId}", which is not among the configured keys (SECRETS_KEYS)`);
  }
}
export type UnknownSecretKeyErrorType = UnknownSecretKeyError;

/**
 * A sealed value that does not open: not of the sealed form, altered (any byte of its IV, ciphertext or tag),
 * or opened with other associated data than it was sealed with. GCM cannot tell these apart, nor should we.
 */
export class SealedSecretError extends Error {
  override name = "SealedSecretError" as const;
}
export type SealedSecretErrorType = SealedSecretError;

export const SEALED_SECRET_VERSION = "v1";
export const SECRET_KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The 32 bytes of a key given in base64 or base64url (padding optional). Strict: Node's decoder skips
 * characters it does not know, so a truncated or mistyped key would otherwise decode to other bytes.
 * The message never quotes the key.
 */
export function decodeSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new SecretKeyError("must be base64 of 32 random bytes (e.g. from `platform secrets generate-key`)");
  }
  const bytes = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (bytes.length !== KEY_BYTES) {
    throw new SecretKeyError(`must be ${KEY_BYTES} bytes in base64 (got ${bytes.length} bytes)`);
  }
  return bytes;
}

/**
 * A box that seals and opens secrets with `keys`.
 *
 * @example
 * const box = createSecretBox({ keys: [{ id: "k1", key: newKey }, { id: "k0", key: oldKey }] });
 * box.needsRotation(sealedWithK0); // true: box.seal(box.open(sealedWithK0, ad), ad) re-seals it with k1
 */
export function createSecretBox(parameters: CreateSecretBoxParameters): SecretBox {
  if (parameters.keys.length === 0) throw new SecretKeyError("at least one key is needed");
  const ring = new Map<string, Buffer>();
  for (const { id, key } of parameters.keys) {
    if (!SECRET_KEY_ID.test(id)) throw new SecretKeyError(`key id "${id}" must match [A-Za-z0-9_-]{1,32}`);
    if (ring.has(id)) throw new SecretKeyError(`key id "${id}" is given twice`);
    let bytes: Buffer;
    if (typeof key === "string") {
      try {
        bytes = decodeSecretKey(key);
      } catch (error) {
        throw new SecretKeyError(`key "${id}" ${(error as Error).message}`);
      }
    } else {
      if (key.length !== KEY_BYTES) {
        throw new SecretKeyError(`key "${id}" must be ${KEY_BYTES} bytes (got ${key.length})`);
      }
      // A copy: the caller may reuse or zero its buffer.
      bytes = Buffer.from(key);
    }
    ring.set(id, bytes);
  }
  const currentKeyId = parameters.currentKeyId ?? (parameters.keys[0] as SecretKey).id;
  const currentKey = ring.get(currentKeyId);
  if (!currentKey) throw new SecretKeyError(`the current key id "${currentKeyId}" is not among the keys`);

  // The header is authenticated with the caller's associated data: a value cannot be relabelled with another
  // version or key id. The NUL keeps header and associated data apart (key ids cannot contain it).
  const aad = (keyId: string, associatedData: string | undefined) =>
    Buffer.from(`${SEALED_SECRET_VERSION}.${keyId}\0${associatedData ?? ""}`, "utf8");

  return {
    currentKeyId,
    seal(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", currentKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(currentKeyId, associatedData));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [
        SEALED_SECRET_VERSION,
        currentKeyId,
        iv.toString("base64url"),
        ciphertext.toString("base64url"),
        tag.toString("base64url"),
      ].join(".");
    },
    open(sealed, associatedData) {
      const { keyId, iv, ciphertext, tag } = parseSealed(sealed);
      const key = ring.get(keyId);
      if (!key) throw new UnknownSecretKeyError(keyId);
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(keyId, associatedData));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
      } catch {
        throw new SealedSecretError(
          "the sealed secret does not open: altered, corrupt, or sealed for other associated data",
        );
      }
    },
    needsRotation(sealed) {
      return parseSealed(sealed).keyId !== currentKeyId;
    },
  };
}

/** The parts of a sealed value; throws {@link SealedSecretError} when it is not of the v1 form. */
function parseSealed(sealed: string): { keyId: string; iv: Buffer; ciphertext: Buffer; tag: Buffer } {
  const parts = typeof sealed === "string" ? sealed.split(".") : [];
  const [version, keyId, iv, ciphertext, tag] = parts;
  if (parts.length !== 5 || version !== SEALED_SECRET_VERSION) {
    throw new SealedSecretError(
      `not a sealed secret (expected ${SEALED_SECRET_VERSION}.<keyId>.<iv>.<ciphertext>.<tag>)`,
    );
  }
  if (!SECRET_KEY_ID.test(keyId as string) || ![iv, ciphertext, tag].every((p) => BASE64URL.test(p as string))) {
    throw new SealedSecretError("not a sealed secret: malformed key id or base64url part");
  }
  const ivBytes = Buffer.from(iv as string, "base64url");
  const tagBytes = Buffer.from(tag as string, "base64url");
  // Lengths checked here: Node would accept a shorter IV, and a shorter tag only with an explicit length.
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
    throw new SealedSecretError("not a sealed secret: IV or tag of the wrong length");
  }
  return {
    keyId: keyId as string,
    iv: ivBytes,
    ciphertext: Buffer.from(ciphertext as string, "base64url"),
    tag: tagBytes,
  };
}
