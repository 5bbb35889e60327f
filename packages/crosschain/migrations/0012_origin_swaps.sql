-- A deposit made through SpokePoolPeriphery.swapAndBridge swapped first on the origin: the swapped token and
-- amount, read from the deposit transaction's calldata by the calldata pass (src/indexer/integratorIds.ts,
-- with the integrator id), and, per fill, that token's USD price and the swap's cost in USD (the swapped
-- value − the deposited value), recorded by the fill-cost pass with the fill's other prices.
ALTER TABLE crosschain.deposits
  ADD COLUMN swap_token bytea,
  ADD COLUMN swap_token_amount numeric(78);
ALTER TABLE crosschain.fills
  ADD COLUMN swap_token_price_usd numeric(78),
  ADD COLUMN swap_fee_usd numeric(78);
