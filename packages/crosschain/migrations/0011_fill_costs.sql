-- What a fill cost and what its transfer was worth, recorded once per fill by the fill-cost pass
-- (src/indexer/fillCosts.ts) so that a /deposits record is stable: gas_fee (already a column, never
-- written before) = the fill transaction's gasUsed × effectiveGasPrice, and USD prices (1e18-scaled) from
-- the chain-state cache's prices, the ones the fee quote's USD amounts use, at the time the pass read the
-- fill. gas_fee IS NULL marks a fill the pass has not read yet.
ALTER TABLE crosschain.fills
  ADD COLUMN gas_token_price_usd numeric(78),
  ADD COLUMN input_price_usd numeric(78),
  ADD COLUMN output_price_usd numeric(78),
  ADD COLUMN bridge_fee_usd numeric(78);
CREATE INDEX fills_unpriced_idx ON crosschain.fills (destination_chain_id, block_number) WHERE gas_fee IS NULL;
