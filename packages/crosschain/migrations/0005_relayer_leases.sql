-- One relayer process per (key, destination chain) at a time: several platform instances on one database
-- each start a relayer; the one holding the lease fills, the others stand by and take over when it
-- expires (its holder stopped renewing it).
CREATE TABLE crosschain.relayer_leases (
  relayer bytea NOT NULL,
  destination_chain_id bigint NOT NULL,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (relayer, destination_chain_id)
);
