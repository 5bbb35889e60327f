/**
 * Keccak-256 in WebAssembly (hash-wasm). Indexers hash every event they store (relay hashes); the
 * pure-JS Keccak that viem uses costs ~50 µs for a 544-byte input on our 2-core CI machines, the
 * WebAssembly one ~3 µs, which moved the crosschain backfill from hash-bound to I/O-bound.
 * Synchronous once this module has loaded (top-level await).
 *
 * @example
 * keccak256Hex("0x") // "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
 */
import { createKeccak } from "hash-wasm";
import type { Hex } from "viem";

const hasher = await createKeccak(256);
/** Reused input buffer for hex inputs, grown when needed (hashing is synchronous, so never shared). */
let scratch = Buffer.alloc(1024);

/** keccak256 of bytes given as 0x-hex or a byte array; lower-case 0x-hex out. */
export function keccak256Hex(data: Hex | Uint8Array): Hex {
  let bytes = data as Uint8Array;
  if (typeof data === "string") {
    const length = (data.length - 2) >>> 1;
    if (length > scratch.length) scratch = Buffer.alloc(length * 2);
    const written = scratch.write(data.slice(2), "hex");
    if (written * 2 !== data.length - 2) throw new TypeError("keccak256Hex: input is not 0x-prefixed hex");
    bytes = scratch.subarray(0, written);
  }
  // The binary digest and Buffer's hex encoder beat hash-wasm's own hex digest.
  const digest = keccak256Bytes(bytes);
  return `0x${Buffer.from(digest.buffer, digest.byteOffset, digest.length).toString("hex")}`;
}

/** keccak256 of `data` as 32 bytes: for callers that write the digest on themselves (e.g. as COPY hex). */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  hasher.init();
  hasher.update(data);
  return hasher.digest("binary");
}
