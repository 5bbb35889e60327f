/**
 * The crosschain API over a database holding BENCH_DEPOSITS generated deposits (half of them filled),
 * in its own process, without chains (the read path only). Prints READY {url, key}.
 */
import { crosschainService } from "@platform/crosschain";
import { createDatabase, kernelMigrations, migrate } from "@platform/kernel";
import { benchDatabaseUrl } from "../chainstats/database.ts";
import { serveServiceForBench } from "../lib/serveService.ts";

const COUNT = Number(process.env.BENCH_DEPOSITS ?? 1_000_000);
const db = await createDatabase({ url: benchDatabaseUrl("bench_crosschain"), dataDir: "memory" });
await migrate(db, [...kernelMigrations(), ...crosschainService.migrations]);
const [{ n } = { n: "0" }] = await db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
if (Number(n) < COUNT) {
  await db.exec("TRUNCATE crosschain.deposits, crosschain.fills");
  await db.query(
    `INSERT INTO crosschain.deposits (origin_chain_id, deposit_id, destination_chain_id, relay_hash, depositor, recipient,
       exclusive_relayer, input_token, output_token, input_amount, output_amount, quote_timestamp, fill_deadline,
       exclusivity_deadline, message, message_hash, integrator_id, tx_hash, tx_index, log_index, block_number, block_timestamp)
     SELECT 8453, i, 10, sha256(int8send(i)), decode(lpad(to_hex(i % 5000), 64, '0'), 'hex'), decode(lpad(to_hex(i % 7000), 64, '0'), 'hex'),
       decode(repeat('00', 32), 'hex'), decode(repeat('11', 32), 'hex'), decode(repeat('22', 32), 'hex'), 1000000, 999000,
       1700000000 + i, 1700003600 + i, 0, ''::bytea, decode(repeat('00', 32), 'hex'), NULL, sha256(int8send(i + 1)), 0, 0, i, 1700000000 + i
     FROM generate_series(0, $1::bigint - 1) AS i`,
    [COUNT],
  );
  await db.query(
    `INSERT INTO crosschain.fills (relay_hash, destination_chain_id, origin_chain_id, deposit_id, relayer, repayment_chain_id,
       fill_type, updated_recipient, updated_output_amount, calls_failed, tx_hash, log_index, block_number, block_timestamp)
     SELECT sha256(int8send(i)), 10, 8453, i, decode(repeat('33', 32), 'hex'), 10, 0, decode(repeat('00', 32), 'hex'), 999000,
       false, sha256(int8send(i + 2)), 0, i, 1700000010 + i
     FROM generate_series(0, $1::bigint - 1, 2) AS i`,
    [COUNT],
  );
  await db.exec("ANALYZE crosschain.deposits; ANALYZE crosschain.fills");
}
await serveServiceForBench(crosschainService, db);
