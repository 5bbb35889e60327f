/**
 * Runs on a module thread for the backfill benchmark's baseline: `eth_getLogs` through the indexer's
 * own read path (BlockFetcher.getLogs: the same HTTP transport and in-place scan of the reply), on a
 * thread as the indexer's reads run (indexer/rangeReaderThread.ts), answering the count of logs.
 */
import { createBlockFetcher, type LogFilter } from "@platform/chains";
import { serveRequests } from "@platform/kernel";

const fetchers = new Map<string, ReturnType<typeof createBlockFetcher>>();

serveRequests(async ({ rpcUrl, filter }: { rpcUrl: string; filter: LogFilter }) => {
  let fetcher = fetchers.get(rpcUrl);
  if (!fetcher) {
    fetcher = createBlockFetcher({ rpcUrl, batchSize: 100, concurrency: 1 });
    fetchers.set(rpcUrl, fetcher);
  }
  return { value: (await fetcher.getLogs(filter)).count };
});
