-- The observed fill-time table (quotes/observedFillTimes.ts) reads the fills of the last days.
CREATE INDEX fills_time_idx ON crosschain.fills (block_timestamp);
