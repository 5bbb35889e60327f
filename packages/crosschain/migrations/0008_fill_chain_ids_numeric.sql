-- FilledRelay's originChainId and repaymentChainId are uint256 that the filler chooses: anyone may fill
-- any relay data, and a relayer may ask for repayment on any chain id. As bigint, one fill naming a chain
-- id past 2^63 failed its whole range, and the destination chain's indexer stopped there for good.
ALTER TABLE crosschain.fills
  ALTER COLUMN origin_chain_id TYPE numeric(78),
  ALTER COLUMN repayment_chain_id TYPE numeric(78);
