import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createSecretBox,
  SealedSecretError,
  type SecretBox,
  SecretKeyError,
  UnknownSecretKeyError,
} from "./secretBox.ts";

const k0 = randomBytes(32);
const k1 = randomBytes(32);
const AD = "wearables.connection:42:access_token";

/** `sealed` with one byte of part `index` (2 = IV, 3 = ciphertext, 4 = tag) flipped, still well-formed. */
function flipByte(sealed: string, index: number, at = 0): string {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[index] as string, "base64url");
  bytes[at % bytes.length] = (bytes[at % bytes.length] as number) ^ 0x01;
  parts[index] = bytes.toString("base64url");
  return parts.join(".");
}

describe("createSecretBox", () => {
  it("seals into v1.<keyId>.<iv>.<ciphertext>.<tag> and opens it back", () => {
    const box = createSecretBox({ keys: [{ id: "k0", key: k0 }] });
    const sealed = box.seal("ya29.a0AfH6SMB-token", AD);
    expect(sealed).toMatch(/^v1\.k0\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain("ya29");
    expect(box.open(sealed, AD)).toBe("ya29.a0AfH6SMB-token");
    // A fresh IV each time: the same plaintext never seals to the same value.
    expect(box.seal("ya29.a0AfH6SMB-token", AD)).not.toBe(sealed);
  });

  it("round-trips any text and associated data (property; seed printed)", () => {
    const box = createSecretBox({ keys: [{ id: "k0", key: k0.toString("base64") }] });
    const seed = Number(process.env.SECRETS_SEED ?? Date.now() % 2 ** 31);
    console.log(`secretBox round trip: seed ${seed} (replay with SECRETS_SEED=${seed})`);
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.option(fc.string()), (text, ad) => {
        const associatedData = ad ?? undefined;
        expect(box.open(box.seal(text, associatedData), associatedData)).toBe(text);
      }),
      { seed, numRuns: 300 },
    );
  });

  it("round-trips the empty string and no associated data", () => {
    const box = createSecretBox({ keys: [{ id: "k0", key: k0 }] });
    expect(box.open(box.seal(""))).toBe("");
    expect(box.open(box.seal("x"), "")).toBe("x");
  });

  it("rotates: seals with the current key, opens values of every key in the ring, flags the old ones", () => {
    const before = createSecretBox({ keys: [{ id: "k0", key: k0 }] });
    const old = before.seal("old token", AD);
    expect(before.needsRotation(old)).toBe(false);

    const after = createSecretBox({
      keys: [
        { id: "k1", key: k1 },
        { id: "k0", key: k0 },
      ],
    });
    expect(after.currentKeyId).toBe("k1");
    const fresh = after.seal("new token", AD);
    expect(fresh.startsWith("v1.k1.")).toBe(true);
    expect(after.open(old, AD)).toBe("old token");
    expect(after.open(fresh, AD)).toBe("new token");
    expect(after.needsRotation(old)).toBe(true);
    expect(after.needsRotation(fresh)).toBe(false);
    const resealed = after.seal(after.open(old, AD), AD);
    expect(after.needsRotation(resealed)).toBe(false);

    // currentKeyId picks another key than the first.
    const explicit = createSecretBox({
      keys: [
        { id: "k0", key: k0 },
        { id: "k1", key: k1 },
      ],
      currentKeyId: "k1",
    });
    expect(explicit.seal("x").startsWith("v1.k1.")).toBe(true);
  });

  it("refuses a value whose key left the ring, naming the key id", () => {
    const sealed = createSecretBox({ keys: [{ id: "k0", key: k0 }] }).seal("t", AD);
    const box = createSecretBox({ keys: [{ id: "k1", key: k1 }] });
    expect(() => box.open(sealed, AD)).toThrow(UnknownSecretKeyError);
    try {
      box.open(sealed, AD);
    } catch (error) {
      expect((error as UnknownSecretKeyError).keyId).toBe("k0");
      expect((error as Error).message).toContain('"k0"');
    }
  });

  describe("a value that does not open", () => {
    const box: SecretBox = createSecretBox({ keys: [{ id: "k0", key: k0 }] });
    const sealed = box.seal("a refresh token long enough to flip anywhere", AD);

    it.each([
      ["IV", 2],
      ["ciphertext", 3],
      ["tag", 4],
    ])("a flipped byte in the %s", (_, index) => {
      for (const at of [0, 5, 11]) {
        const tampered = flipByte(sealed, index, at);
        expect(tampered).not.toBe(sealed);
        expect(() => box.open(tampered, AD)).toThrow(SealedSecretError);
      }
    });

    it("other associated data (a value copied to another row), or none", () => {
      expect(() => box.open(sealed, "wearables.connection:43:access_token")).toThrow(SealedSecretError);
      expect(() => box.open(sealed, "wearables.connection:42:refresh_token")).toThrow(SealedSecretError);
      expect(() => box.open(sealed)).toThrow(SealedSecretError);
    });

    it("a relabelled key id (another key of the ring)", () => {
      const ring = createSecretBox({
        keys: [
          { id: "k0", key: k0 },
          { id: "k9", key: k0 },
        ],
      });
      expect(() => ring.open(sealed.replace("v1.k0.", "v1.k9."), AD)).toThrow(SealedSecretError);
    });

    it.each([
      "",
      "plain text token",
      "v2.k0.AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA",
      "v1.k0.AAAA.AA.AAAAAAAAAAAAAAAAAAAAAA",
      "v1.k0.AAAAAAAAAAAAAAAA.AA.AAAA",
      "v1.k0.AAAAAAAAAAAAAAAA.A+A.AAAAAAAAAAAAAAAAAAAAAA",
      "v1.k 0.AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA",
      `${sealed}.extra`,
      sealed.slice(0, -1),
    ])("a corrupt value %j", (corrupt) => {
      expect(() => box.open(corrupt, AD)).toThrow(SealedSecretError);
    });

    it("needsRotation refuses what is not a sealed value", () => {
      expect(() => box.needsRotation("plain")).toThrow(SealedSecretError);
    });
  });

  describe("bad key material", () => {
    it.each([
      ["no key", { keys: [] }, "at least one key"],
      ["a short key", { keys: [{ id: "k0", key: randomBytes(16) }] }, "must be 32 bytes"],
      ["a short base64 key", { keys: [{ id: "k0", key: randomBytes(31).toString("base64") }] }, "got 31 bytes"],
      ["a key that is not base64", { keys: [{ id: "k0", key: "not base64!" }] }, "must be base64"],
      ["a bad id", { keys: [{ id: "k.0", key: k0 }] }, "must match"],
      [
        "a repeated id",
        {
          keys: [
            { id: "k0", key: k0 },
            { id: "k0", key: k1 },
          ],
        },
        "given twice",
      ],
      ["an unknown current id", { keys: [{ id: "k0", key: k0 }], currentKeyId: "k1" }, "not among the keys"],
    ])("%s", (_, parameters, message) => {
      expect(() => createSecretBox(parameters)).toThrow(SecretKeyError);
      expect(() => createSecretBox(parameters)).toThrow(message);
    });

    it("never quotes the key in its message", () => {
      const bad = randomBytes(20).toString("base64");
      expect(() => createSecretBox({ keys: [{ id: "k0", key: bad }] })).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining(bad) }),
      );
    });

    it("accepts base64url and unpadded keys", () => {
      const url = k0.toString("base64url");
      const sealed = createSecretBox({ keys: [{ id: "k0", key: url }] }).seal("x");
      expect(createSecretBox({ keys: [{ id: "k0", key: k0 }] }).open(sealed)).toBe("x");
    });
  });
});
