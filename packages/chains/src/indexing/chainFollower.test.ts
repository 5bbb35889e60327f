/**
 * The chain follower driven over a chain scripted in memory (forks, resets, a node behind its head) into
 * an in-memory store that writes each range atomically, as the services' stores do: resume, read-ahead,
 * reorg rollback, deep reorg and new genesis → start over, a kill at any append resumes without loss or
 * duplication, a second writer. Then over a real anvil chain: a reorg made with evm_revert, and a restart.
 */
import { createLogger } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "../anvil.ts";
import { httpRpc } from "../deploy.ts";
import { type BlockHeader, createBlockFetcher } from "./blockFetcher.ts";
import {
  type ChainBlock,
  type CreateChainFollowerParameters,
  createChainFollower,
  type FollowerCheckpoint,
  type FollowerStore,
  type ReadRange,
} from "./chainFollower.ts";

const logger = createLogger({ level: "silent" });

/** A chain in memory: block n of branch `b` has hash `b-n`; its parent is whatever block n-1 is now. */
function scriptedChain(length: number) {
  let genesis = "g0";
  const blocks: ChainBlock[] = [];
  const extend = (branch: string, until: number) => {
    for (let n = blocks.length; n < until; n++)
      blocks.push({ number: BigInt(n), hash: n === 0 ? genesis : `${branch}-${n}` });
  };
  extend("a", length);
  /** What the node says its head is, when it is ahead of the blocks it serves. */
  let reportedHead: bigint | undefined;
  const events: string[] = [];
  return {
    blocks,
    events,
    /** Adds `count` blocks on the current branch. */
    mine(count: number, branch = "a") {
      extend(branch, blocks.length + count);
    },
    /** Replaces every block above `ancestor` with a branch of its own, `length` blocks in all. */
    fork(ancestor: number, length: number, branch: string) {
      blocks.length = ancestor + 1;
      extend(branch, length);
    },
    /** A new chain: another genesis. */
    reset(length: number) {
      genesis = `g${Number(genesis.slice(1)) + 1}`;
      blocks.length = 0;
      extend(genesis, length);
    },
    reportHead(head: bigint | undefined) {
      reportedHead = head;
    },
    fetcher: {
      blockNumber: async () => reportedHead ?? BigInt(blocks.length - 1),
      block: async (n: bigint) => blocks[Number(n)],
    },
    /** The range as a service's reader reads it: the parent's hash, then the blocks the chain has. */
    async readRange(from: bigint, to: bigint): Promise<ReadRange<ChainBlock[]>> {
      events.push(`read ${from}-${to}`);
      await new Promise((r) => setTimeout(r, 1));
      const parentHash = from > 0n ? blocks[Number(from) - 1]?.hash : undefined;
      const data = blocks.slice(Number(from), Number(to) + 1);
      return { parentHash, last: data.at(-1), data };
    },
  };
}
type ScriptedChain = ReturnType<typeof scriptedChain>;

/** A store in memory whose append applies a whole range or nothing, like the services' transactions. */
function memoryStore(events: string[] = []) {
  let cp: FollowerCheckpoint | undefined;
  const blocks = new Map<bigint, ChainBlock>();
  /** How often each block was written (a duplicate write shows as 2). */
  const writes = new Map<bigint, number>();
  let startOvers = 0;
  /** Throws inside the next append, before anything is applied: a process killed mid-transaction. */
  let killAt: number | undefined;
  let appends = 0;
  const store: FollowerStore<ChainBlock[]> & { stale?: string } = {
    checkpoint: async () => cp && { ...cp, stale: store.stale },
    async startOver(genesisHash, startBlock) {
      startOvers++;
      blocks.clear();
      writes.clear();
      cp = { nextBlock: startBlock, startBlock, genesisHash };
      store.stale = undefined;
    },
    storedBlock: async (n) => blocks.get(n),
    async append(from, range) {
      await new Promise((r) => setTimeout(r, 2));
      if (++appends === killAt) throw new Error("killed mid-append");
      if (!cp || cp.nextBlock !== from) return false;
      events.push(`append ${from}`);
      for (const b of range.data) {
        blocks.set(b.number, b);
        writes.set(b.number, (writes.get(b.number) ?? 0) + 1);
      }
      cp.nextBlock = range.last.number + 1n;
      return true;
    },
    async rollbackTo(ancestor) {
      let removed = 0;
      for (const n of [...blocks.keys()]) {
        if (n > ancestor) {
          blocks.delete(n);
          writes.delete(n);
          removed++;
        }
      }
      if (cp) cp.nextBlock = ancestor + 1n;
      return removed;
    },
  };
  return {
    store,
    blocks,
    writes,
    checkpoint: () => cp,
    startOvers: () => startOvers,
    killAppend(n: number) {
      killAt = appends + n;
    },
  };
}
type MemoryStore = ReturnType<typeof memoryStore>;

function follower(chain: ScriptedChain, m: MemoryStore, o: Partial<CreateChainFollowerParameters<ChainBlock[]>> = {}) {
  return createChainFollower<ChainBlock[]>({
    chainId: 1,
    fetcher: chain.fetcher,
    store: m.store,
    readRange: chain.readRange,
    rangeSize: () => 3n,
    readAhead: 2,
    startBlock: 0n,
    finalityDepth: 8,
    pollMs: 10,
    logger,
    ...o,
  });
}

async function untilCaughtUp(f: { step(): Promise<boolean> }) {
  for (let n = 0; n < 200; n++) if (await f.step()) return;
  throw new Error("never caught up");
}

/** The store holds exactly the chain's blocks from `start`, each written once, and its checkpoint is past the head. */
function expectSameChain(chain: ScriptedChain, m: MemoryStore, start = 0) {
  const expected = chain.blocks.slice(start).map((b) => b.hash);
  expect([...m.blocks.values()].sort((x, y) => Number(x.number - y.number)).map((b) => b.hash)).toEqual(expected);
  expect([...m.writes.values()].every((w) => w === 1)).toBe(true);
  expect(m.checkpoint()?.nextBlock).toBe(BigInt(chain.blocks.length));
}

describe("over a scripted chain", () => {
  it("follows a new chain from its start block, reading ranges ahead while it stores", async () => {
    const chain = scriptedChain(12);
    const m = memoryStore(chain.events);
    const f = follower(chain, m, { startBlock: 2n });
    await untilCaughtUp(f);
    expectSameChain(chain, m, 2);
    expect(chain.events.filter((e) => e.startsWith("read"))).toEqual([
      "read 2-4",
      "read 5-7",
      "read 8-10",
      "read 11-11",
    ]);
    // Two ranges were asked for before the first was stored.
    expect(chain.events.indexOf("read 8-10")).toBeLessThan(chain.events.indexOf("append 2"));
    expect(f.status).toMatchObject({
      state: "following",
      head: 11n,
      next: 12n,
      startBlock: 2n,
      indexed: 10,
      reorgs: 0,
    });
  });

  it("resumes from the checkpoint: reads on from it, starts nothing over", async () => {
    const chain = scriptedChain(8);
    const m = memoryStore(chain.events);
    await untilCaughtUp(follower(chain, m));
    chain.mine(5);
    chain.events.length = 0;
    const restarted = follower(chain, m);
    await untilCaughtUp(restarted);
    expect(chain.events.find((e) => e.startsWith("read"))).toBe("read 8-10");
    expect(m.startOvers()).toBe(1);
    expect(restarted.status.indexed).toBe(5);
    expectSameChain(chain, m);
  });

  it("a reorg that keeps the height is seen at the tip once caught up, and rolled back to the common ancestor", async () => {
    const chain = scriptedChain(10);
    const m = memoryStore();
    const f = follower(chain, m);
    await untilCaughtUp(f);
    chain.fork(6, 10, "b");
    await untilCaughtUp(f);
    expectSameChain(chain, m);
    expect(f.status.reorgs).toBe(1);
    expect(f.status.indexed).toBe(10 + 3);
    expect(m.startOvers()).toBe(1);
  });

  it("a longer branch is seen by the next range's parent, and rolled back to the common ancestor", async () => {
    const chain = scriptedChain(10);
    const m = memoryStore();
    const f = follower(chain, m);
    await untilCaughtUp(f);
    chain.fork(7, 16, "c");
    await untilCaughtUp(f);
    expectSameChain(chain, m);
    expect(f.status.reorgs).toBe(1);
    expect(m.startOvers()).toBe(1);
  });

  it("a reorg deeper than the finality depth starts over from the start block", async () => {
    const chain = scriptedChain(20);
    const m = memoryStore();
    const f = follower(chain, m, { startBlock: 1n, finalityDepth: 4 });
    await untilCaughtUp(f);
    chain.fork(10, 20, "d"); // 9 blocks replaced; the follower looks 4 deep
    await untilCaughtUp(f);
    expectSameChain(chain, m, 1);
    expect(m.startOvers()).toBe(2);
    expect(f.status.startBlock).toBe(1n);
  });

  it("a new genesis (a reset chain) starts over, as does a checkpoint the store calls stale", async () => {
    const chain = scriptedChain(10);
    const m = memoryStore();
    await untilCaughtUp(follower(chain, m));
    chain.reset(6);
    await untilCaughtUp(follower(chain, m)); // a restart meets the new genesis
    expectSameChain(chain, m);
    expect(m.startOvers()).toBe(2);

    const running = follower(chain, m);
    await untilCaughtUp(running);
    chain.reset(12); // while it runs: the tip left the chain, and no stored block is on the new one
    await untilCaughtUp(running);
    expectSameChain(chain, m);
    expect(m.startOvers()).toBe(3);

    m.store.stale = "another contract";
    await untilCaughtUp(follower(chain, m));
    expectSameChain(chain, m);
    expect(m.startOvers()).toBe(4);
  });

  it("a kill at any append, then a restart: every block stored once, none lost", async () => {
    for (let kill = 1; kill <= 6; kill++) {
      const chain = scriptedChain(18);
      const m = memoryStore();
      m.killAppend(kill);
      await expect(untilCaughtUp(follower(chain, m))).rejects.toThrow("killed mid-append");
      expect(m.checkpoint()?.nextBlock).toBe(BigInt((kill - 1) * 3));
      await untilCaughtUp(follower(chain, m)); // the restarted process
      expectSameChain(chain, m);
    }
  });

  it("a failed read or append is retried by the next step, the reads behind it read again", async () => {
    const chain = scriptedChain(15);
    const m = memoryStore(chain.events);
    let failures = 0;
    const flaky = async (from: bigint, to: bigint) => {
      if (from === 6n && failures++ === 0) throw new Error("node hiccup");
      return chain.readRange(from, to);
    };
    const f = follower(chain, m, { readRange: flaky });
    await expect(f.step()).resolves.toBe(false);
    await expect(f.step()).resolves.toBe(false);
    await expect(f.step()).rejects.toThrow("node hiccup");
    m.killAppend(1);
    await expect(f.step()).rejects.toThrow("killed mid-append");
    await untilCaughtUp(f);
    expectSameChain(chain, m);
    expect(chain.events.filter((e) => e === "read 9-11").length).toBeGreaterThan(1);
  });

  it("another writer moved the checkpoint: the follower reloads it and goes on from there", async () => {
    const chain = scriptedChain(12);
    const m = memoryStore();
    const a = follower(chain, m);
    await expect(a.step()).resolves.toBe(false); // a stored 0-2
    await untilCaughtUp(follower(chain, m)); // b stored the rest
    chain.mine(2);
    await untilCaughtUp(a); // a's next append (at 3) is refused; it resumes at 12
    expectSameChain(chain, m);
  });

  it("a range cut short is stored as far as it goes; a range the node does not have yet waits for the next poll", async () => {
    const chain = scriptedChain(10);
    const m = memoryStore(chain.events);
    const short = async (from: bigint, to: bigint) => {
      const range = await chain.readRange(from, to);
      if (from !== 3n) return range;
      const data = range.data.slice(0, 1); // as if the chain moved after block 3 while the range was read
      return { ...range, last: data.at(-1), data };
    };
    const f = follower(chain, m, { readRange: short });
    await untilCaughtUp(f);
    expectSameChain(chain, m);
    expect(chain.events).toContain("read 4-6");

    chain.reportHead(12n); // the node says 12 but serves up to 9
    await expect(f.step()).resolves.toBe(true);
    expect(m.checkpoint()?.nextBlock).toBe(10n);
    chain.reportHead(undefined);
    chain.mine(3);
    await untilCaughtUp(f);
    expectSameChain(chain, m);
  });

  it("restartFrom forgets what is stored and indexes again from the block given", async () => {
    const chain = scriptedChain(9);
    const m = memoryStore();
    const f = follower(chain, m);
    await untilCaughtUp(f);
    await f.restartFrom(5n);
    await untilCaughtUp(f);
    expectSameChain(chain, m, 5);
    expect(f.status.startBlock).toBe(5n);
  });

  it("run() follows new blocks until aborted, calls onStored per range, then reports stopped", async () => {
    const chain = scriptedChain(7);
    const m = memoryStore();
    const stored: bigint[] = [];
    const f = follower(chain, m, { onStored: (range) => stored.push(range.last.number) });
    const controller = new AbortController();
    const loop = f.run(controller.signal);
    await expect.poll(() => f.status.state).toBe("following");
    chain.mine(2);
    await expect.poll(() => m.checkpoint()?.nextBlock).toBe(9n);
    controller.abort();
    await loop.done;
    expect(f.status.state).toBe("stopped");
    expect(stored).toEqual([2n, 5n, 6n, 8n]);
    expectSameChain(chain, m);
  });
});

describe("over a real anvil chain", () => {
  let anvil: AnvilNode;
  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_337, port: 0 });
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("follows blocks through a reorg made with evm_revert, and resumes after a restart", async () => {
    const rpc = httpRpc(anvil.rpcUrl);
    const fetcher = createBlockFetcher({ rpcUrl: anvil.rpcUrl, batchSize: 4, concurrency: 2 });
    const m = memoryStore();
    const headers = async (from: bigint, to: bigint): Promise<ReadRange<ChainBlock[]>> => {
      const blocks: BlockHeader[] = await fetcher.blocks(from, to);
      const last = blocks.at(-1);
      return {
        parentHash: blocks[0]?.parentHash,
        last: last && { number: last.number, hash: last.hash },
        data: blocks.map((b) => ({ number: b.number, hash: b.hash })),
      };
    };
    const start = () =>
      createChainFollower<ChainBlock[]>({
        chainId: 31_337,
        fetcher,
        store: m.store,
        readRange: headers,
        rangeSize: () => 5n,
        readAhead: 1,
        startBlock: 0n,
        finalityDepth: 16,
        pollMs: 10,
        logger,
      });
    const onChain = async () => (await fetcher.blocks(0n, await fetcher.blockNumber())).map((b) => b.hash);
    const stored = () => [...m.blocks.values()].sort((x, y) => Number(x.number - y.number)).map((b) => b.hash);

    await rpc("anvil_mine", ["0xc"]);
    const f = start();
    await untilCaughtUp(f);
    expect(stored()).toEqual(await onChain());

    const snapshot = await rpc<string>("evm_snapshot");
    await rpc("anvil_mine", ["0x3"]);
    await untilCaughtUp(f);
    await rpc("evm_revert", [snapshot]);
    const head = Number(await fetcher.blockNumber());
    // Another branch from the same parent: later timestamps make other hashes.
    await rpc("anvil_setNextBlockTimestamp", [`0x${(Math.floor(Date.now() / 1000) + 1_000).toString(16)}`]);
    await rpc("anvil_mine", ["0x5"]);
    await untilCaughtUp(f);
    expect(f.status.reorgs).toBe(1);
    expect(stored()).toEqual(await onChain());
    expect(m.checkpoint()?.nextBlock).toBe(BigInt(head + 6));

    await rpc("anvil_mine", ["0x4"]);
    await untilCaughtUp(start());
    expect(stored()).toEqual(await onChain());
    expect(m.startOvers()).toBe(1);
    expect([...m.writes.values()].every((w) => w === 1)).toBe(true);
  });
});
