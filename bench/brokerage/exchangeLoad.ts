/**
 * Load of the token endpoint: autocannon POSTs one token request per code read from the file
 * `BENCH_CODES_FILE` (each code is exchanged exactly once), `BENCH_CONNECTIONS` at a time, until every code
 * is used. Prints the LoadResult as JSON on its last line.
 */
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { printLoadResult } from "../lib/processes.ts";

const url = process.argv[2] as string;
const { codes, clientId, clientSecret, redirectUri } = JSON.parse(
  readFileSync(process.env.BENCH_CODES_FILE as string, "utf8"),
) as { codes: string[]; clientId: string; clientSecret: string; redirectUri: string };
let next = 0;
const result = await autocannon({
  url,
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  amount: codes.length,
  requests: [
    {
      method: "POST",
      path: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      setupRequest: (request) => ({
        ...request,
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: codes[next++ % codes.length] as string,
          redirect_uri: redirectUri,
          client_id: clientId,
          client_secret: clientSecret,
        }).toString(),
      }),
    },
  ],
});
printLoadResult(result);
