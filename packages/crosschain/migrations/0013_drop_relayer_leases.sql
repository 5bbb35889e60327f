-- The relayer and the deposit-address watcher now coordinate through the kernel's leases (`platform.leases`:
-- `crosschain.relayer:<destinationChainId>:<relayer>`, `crosschain.deposit-addresses:<chainId>`), whose
-- fencing token their intent and execution writes assert. This table of 0005 is no longer read or written.
DROP TABLE IF EXISTS crosschain.relayer_leases;
