--
-- gsst.max_dictionaries_per_role holds at every commit, whatever happened in
-- subtransactions: a dictionary stored by a subtransaction that rolls back
-- is stored again at commit (a value encoded with it may have survived), so
-- it counts from the moment it is stored.
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
SET gsst.learn_sample_bytes = 0;

CREATE ROLE quota_user;
GRANT CREATE ON SCHEMA public TO quota_user;
SET ROLE quota_user;
CREATE TABLE quota_t (c text COMPRESSION gsst);
INSERT INTO quota_t SELECT 'a value to train on, number ' || i FROM generate_series(1, 500) i;
RESET ROLE;

-- 1. gsst.train in subtransactions that roll back, through PL/pgSQL
SET gsst.max_dictionaries_per_role = 5;
SET ROLE quota_user;
DO $$
DECLARE
	trained int := 0;
	refused int := 0;
BEGIN
	FOR i IN 1..20 LOOP
		BEGIN
			PERFORM gsst.train('quota_t', 'c');
			RAISE EXCEPTION 'roll the subtransaction back';
		EXCEPTION
			WHEN raise_exception THEN trained := trained + 1;
			WHEN configuration_limit_exceeded THEN refused := refused + 1;
		END;
	END LOOP;
	RAISE NOTICE 'trained %, refused %', trained, refused;
END
$$;
RESET ROLE;
SELECT count(*) AS dictionaries FROM gsst.dictionaries WHERE owner = 'quota_user'::regrole;

-- they were stored again at commit: a new value encodes with one of them
SET ROLE quota_user;
INSERT INTO quota_t VALUES ('a value to train on, number 501');
RESET ROLE;
SELECT gsst.value_dictionary(c) IN (SELECT id FROM gsst.dictionaries WHERE owner = 'quota_user'::regrole) AS encoded
FROM quota_t WHERE c = 'a value to train on, number 501';

-- 2. SAVEPOINT / ROLLBACK TO: the room left is one dictionary
SET gsst.max_dictionaries_per_role = 6;
SET ROLE quota_user;
BEGIN;
SAVEPOINT s;
SELECT gsst.train('quota_t', 'c') > 0 AS trained;
ROLLBACK TO s;
SELECT gsst.train('quota_t', 'c') > 0 AS trained;
\echo :LAST_ERROR_SQLSTATE
ROLLBACK TO s;
SELECT gsst.train('quota_t', 'c') > 0 AS trained;
\echo :LAST_ERROR_SQLSTATE
ROLLBACK TO s;
COMMIT;
RESET ROLE;
SELECT count(*) AS dictionaries FROM gsst.dictionaries WHERE owner = 'quota_user'::regrole;

-- 3. the quota lowered before commit: the dictionaries of rolled-back
-- subtransactions are not stored past it, and the transaction fails
SET gsst.max_dictionaries_per_role = 9;
BEGIN;
SET LOCAL ROLE quota_user;
SAVEPOINT s;
SELECT gsst.train('quota_t', 'c') > 0 AS trained;
ROLLBACK TO s;
SAVEPOINT s;
SELECT gsst.train('quota_t', 'c') > 0 AS trained;
ROLLBACK TO s;
RESET ROLE;
SET LOCAL gsst.max_dictionaries_per_role = 6;
COMMIT;
SELECT count(*) AS dictionaries FROM gsst.dictionaries WHERE owner = 'quota_user'::regrole;

-- 4. a superuser's tables have no quota
SET gsst.max_dictionaries_per_role = 1;
CREATE TABLE quota_super (c text COMPRESSION gsst);
INSERT INTO quota_super SELECT 'a superuser value ' || i FROM generate_series(1, 200) i;
DO $$
BEGIN
	FOR i IN 1..3 LOOP
		BEGIN
			PERFORM gsst.train('quota_super', 'c');
			RAISE EXCEPTION 'roll the subtransaction back';
		EXCEPTION WHEN raise_exception THEN NULL;
		END;
	END LOOP;
END
$$;
SELECT count(*) AS dictionaries FROM gsst.dictionaries
WHERE family = (SELECT atttypmod FROM pg_attribute
                WHERE attrelid = 'quota_super'::regclass AND attname = 'c');
RESET gsst.max_dictionaries_per_role;

DROP TABLE quota_t, quota_super;
REVOKE CREATE ON SCHEMA public FROM quota_user;
DROP ROLE quota_user;
