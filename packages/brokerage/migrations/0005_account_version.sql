-- A placement reads its account (balance, configuration, open orders' holds, positions) in one statement and
-- writes its order in a second one only if the account's version is still the one it read (compare-and-swap):
-- no lock is held between the two. So every change that can alter the placement checks must bump the version.
-- A row trigger does it for every UPDATE of an account, whoever writes it: the exchange writer's fills (which
-- change cash in the same transaction as positions and holds), configuration changes, and the trading API's
-- own writes (placements, and the cancels and replaces that lock the account with an UPDATE).
ALTER TABLE brokerage.accounts ADD COLUMN version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION brokerage.bump_account_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END
$$;

CREATE TRIGGER accounts_version BEFORE UPDATE ON brokerage.accounts
  FOR EACH ROW EXECUTE FUNCTION brokerage.bump_account_version();
