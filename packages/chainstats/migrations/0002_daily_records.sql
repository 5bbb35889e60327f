-- Each daily row also carries its finished Etherscan record for every action, as stored generated
-- columns: PostgreSQL recomputes them whenever the rollup sums change (indexing or a reorg), and a
-- statistics query only concatenates them (≤ 1 row per day, no per-row work in the API process).
-- Averages round half away from zero (PostgreSQL's round(numeric)); NULL = no record that day.
ALTER TABLE chainstats.daily ADD COLUMN utc_date text;
ALTER TABLE chainstats.daily ADD COLUMN unix_ts bigint;
UPDATE chainstats.daily SET utc_date = to_char(day, 'YYYY-MM-DD'), unix_ts = (day - DATE '1970-01-01') * 86400;
ALTER TABLE chainstats.daily ALTER COLUMN utc_date SET NOT NULL;
ALTER TABLE chainstats.daily ALTER COLUMN unix_ts SET NOT NULL;

ALTER TABLE chainstats.daily ADD COLUMN rec_dailyavggaslimit text GENERATED ALWAYS AS (
  CASE WHEN block_count > 0 THEN
    '{"UTCDate":"' || utc_date || '","unixTimeStamp":"' || unix_ts || '","gasLimit":"' || round(gas_limit_sum / block_count)::text || '"}'
  END) STORED;
ALTER TABLE chainstats.daily ADD COLUMN rec_dailygasused text GENERATED ALWAYS AS (
  CASE WHEN block_count > 0 THEN
    '{"UTCDate":"' || utc_date || '","unixTimeStamp":"' || unix_ts || '","gasUsed":"' || gas_used_sum::text || '"}'
  END) STORED;
ALTER TABLE chainstats.daily ADD COLUMN rec_dailyblkcount text GENERATED ALWAYS AS (
  CASE WHEN block_count > 0 THEN
    '{"UTCDate":"' || utc_date || '","unixTimeStamp":"' || unix_ts || '","blockCount":' || block_count::text || '}'
  END) STORED;
ALTER TABLE chainstats.daily ADD COLUMN rec_dailyavgblocksize text GENERATED ALWAYS AS (
  CASE WHEN block_count > 0 THEN
    '{"UTCDate":"' || utc_date || '","unixTimeStamp":"' || unix_ts || '","blockSize_bytes":' || round(size_sum / block_count)::text || '}'
  END) STORED;
ALTER TABLE chainstats.daily ADD COLUMN rec_dailyavgblocktime text GENERATED ALWAYS AS (
  CASE WHEN block_count > 0 AND block_time_count > 0 THEN
    '{"UTCDate":"' || utc_date || '","unixTimeStamp":"' || unix_ts || '","blockTime_sec":"' || round(block_time_sum / block_time_count, 2)::text || '"}'
  END) STORED;
ALTER TABLE chainstats.daily ADD COLUMN rec_dailytx text GENERATED ALWAYS AS (
  CASE WHEN block_count > 0 THEN
    '{"UTCDate":"' || utc_date || '","unixTimeStamp":"' || unix_ts || '","transactionCount":' || tx_count::text || '}'
  END) STORED;
ALTER TABLE chainstats.daily ADD COLUMN rec_dailynetutilization text GENERATED ALWAYS AS (
  CASE WHEN block_count > 0 AND gas_limit_sum > 0 THEN
    '{"UTCDate":"' || utc_date || '","unixTimeStamp":"' || unix_ts || '","networkUtilization":"' || round(gas_used_sum / gas_limit_sum, 4)::text || '"}'
  END) STORED;
