/**
 * The module thread of a threaded Apple Health reader (appleThreadedReader.ts): reads and maps the export of
 * one import run, a chunk ahead of what it was asked, so that the next chunk is ready when the importing
 * thread has committed the last one.
 */
import { serveRequests } from "@platform/kernel";
import { type AppleRead, type AppleReadParameters, readAppleChunks } from "./appleExportReader.ts";
import { encodeRead, type ReaderRequest } from "./appleThreadedReader.ts";

let reads: AsyncGenerator<AppleRead> | undefined;
let ahead: Promise<IteratorResult<AppleRead>> | undefined;

const readAhead = (from: AsyncGenerator<AppleRead>) => {
  const next = from.next();
  next.catch(() => undefined); // answered (and thrown) with the next request
  return next;
};

serveRequests(async (request: ReaderRequest) => {
  if (request.op === "open") {
    await reads?.return(undefined);
    reads = readAppleChunks(request.parameters as AppleReadParameters);
    ahead = readAhead(reads);
    return { value: null };
  }
  if (!reads || !ahead) throw new Error("no export is open on this reader thread");
  const current = await ahead;
  if (current.done) return { value: null };
  ahead = readAhead(reads);
  return encodeRead(current.value);
});
