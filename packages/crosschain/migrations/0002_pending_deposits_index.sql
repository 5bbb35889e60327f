-- The relayer reads pending deposits per destination chain on every poll, newest deadlines first.
CREATE INDEX deposits_destination_deadline_idx ON crosschain.deposits (destination_chain_id, fill_deadline);
