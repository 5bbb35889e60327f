/**
 * The frames of one hub read: which receivers get which messages, each message encoded once per format, and one
 * frame per distinct (encoding, message list), shared by the receivers that want the same. Pure, no I/O.
 */
import { TEST_FEED_SYMBOL } from "../market/testFeed.ts";
import type { MarketFeedRow } from "../store/marketFeedRepository.ts";
import { encodeItem, type FrameEncoding, frameOfItems } from "./dataStreamMessages.ts";

/**
 * Which tape a message belongs to, from its symbol: crypto pairs (`BTC/USD`), the test feed's `FAKEPACA`, or
 * the equities (the `iex` and `sip` feeds carry the same tape: our market is one venue). A `*` subscription
 * covers its own tape only.
 */
export type FeedTape = "stocks" | "crypto" | "test";
export const tapeOf = (symbol: string): FeedTape =>
  symbol.includes("/") ? "crypto" : symbol === TEST_FEED_SYMBOL ? "test" : "stocks";

/** A receiver of feed frames (one data stream connection). */
export interface FeedReceiver {
  readonly encoding: FrameEncoding;
  /** The tape of the receiver's feed: only its messages reach it. */
  readonly tape: FeedTape;
  /** Takes one frame (an array of the messages it is subscribed to, from one read); must not throw. */
  deliver(frame: Buffer): void;
}

/**
 * Each receiver's frame for `rows` (in row order), given the receivers of each row (each at most once per
 * row). Receivers with no message get none.
 */
export function feedFrames(
  rows: readonly MarketFeedRow[],
  receiversOf: (row: MarketFeedRow) => Iterable<FeedReceiver>,
): Map<FeedReceiver, Buffer> {
  const chosen = new Map<FeedReceiver, number[]>();
  rows.forEach((row, i) => {
    for (const receiver of receiversOf(row)) {
      const list = chosen.get(receiver);
      if (list) list.push(i);
      else chosen.set(receiver, [i]);
    }
  });
  const items = new Map<string, Buffer>();
  const item = (i: number, encoding: FrameEncoding) => {
    const key = `${encoding}:${i}`;
    let bytes = items.get(key);
    if (!bytes) {
      bytes = encodeItem((rows[i] as MarketFeedRow).message, encoding);
      items.set(key, bytes);
    }
    return bytes;
  };
  const frames = new Map<string, Buffer>();
  const result = new Map<FeedReceiver, Buffer>();
  for (const [receiver, list] of chosen) {
    const key = `${receiver.encoding}:${list.join(",")}`;
    let frame = frames.get(key);
    if (!frame) {
      frame = frameOfItems(
        list.map((i) => item(i, receiver.encoding)),
        receiver.encoding,
      );
      frames.set(key, frame);
    }
    result.set(receiver, frame);
  }
  return result;
}
