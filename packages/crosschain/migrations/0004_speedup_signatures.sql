-- RequestedSpeedUpDeposit carries the depositor's signature of the new terms; a relayer needs it to fill
-- with fillRelayWithUpdatedDeposit. NULL on rows indexed before this migration (those speed-ups are ignored).
ALTER TABLE crosschain.speedups ADD COLUMN depositor_signature bytea;
CREATE INDEX speedups_deposit_idx ON crosschain.speedups (origin_chain_id, deposit_id);
