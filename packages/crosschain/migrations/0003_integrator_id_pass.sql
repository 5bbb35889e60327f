-- The integrator id (the app-sdk's `1dc0de` marker at the end of a deposit's calldata) is read by a
-- second pass with its own checkpoint, so that reading calldata never slows down event ingestion.
-- `integrator_next_block`: first block whose deposits the pass has not read (NULL = start_block).
-- `rollbacks`: bumped by every rollback, so the pass never saves what it read before one.
ALTER TABLE crosschain.chains ADD COLUMN integrator_next_block bigint;
ALTER TABLE crosschain.chains ADD COLUMN rollbacks integer NOT NULL DEFAULT 0;
