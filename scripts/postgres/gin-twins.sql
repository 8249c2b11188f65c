-- FerretDB 1.24 on PostgreSQL pushes an equality filter down as `_jsonb->'field' @> value`, but builds every index
-- as a btree on `(_jsonb->'field')`, which cannot serve `@>` (FerretDB issue #4646): each such read is a sequential
-- scan. This event trigger gives the leading field of every index FerretDB creates a GIN twin on the same expression,
-- so those filters become index scans. Installed by scripts/services.js into the `ferretdb` database; idempotent.
-- The twins are built without GIN's pending list (`fastupdate = off`): with it, every search also scans the list of
-- entries not yet merged into the index, which grows to 4 MB between vacuums and makes a 25-row look-up take 5 ms.
CREATE OR REPLACE FUNCTION gateway_gin_twins() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE
  command record;
  first_key text;
  twin text;
BEGIN
  FOR command IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' LOOP
    CONTINUE WHEN command.object_identity LIKE '%._ferretdb_%' OR command.object_identity LIKE '%.gin\_%';
    first_key := pg_get_indexdef(command.objid, 1, true);
    CONTINUE WHEN first_key NOT LIKE '(_jsonb -> %';
    -- One twin per table and field, however many indexes start with that field.
    twin := 'gin_' || md5((SELECT indrelid::regclass::text FROM pg_index WHERE indexrelid = command.objid) || first_key);
    CONTINUE WHEN EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = twin AND n.nspname = command.schema_name);
    EXECUTE format('CREATE INDEX %I ON %s USING gin (%s jsonb_path_ops) WITH (fastupdate = off)', twin,
      (SELECT indrelid::regclass::text FROM pg_index WHERE indexrelid = command.objid), first_key);
  END LOOP;
END $$;

DROP EVENT TRIGGER IF EXISTS gateway_gin_twins;
CREATE EVENT TRIGGER gateway_gin_twins ON ddl_command_end WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION gateway_gin_twins();

-- Twins made before `fastupdate = off`: merge their pending lists and stop keeping one.
DO $$
DECLARE
  twin regclass;
BEGIN
  FOR twin IN SELECT c.oid::regclass FROM pg_class c JOIN pg_am a ON a.oid = c.relam
      WHERE c.relkind = 'i' AND a.amname = 'gin' AND c.relname LIKE 'gin\_%'
        AND NOT coalesce(c.reloptions @> ARRAY['fastupdate=off'], false) LOOP
    EXECUTE format('ALTER INDEX %s SET (fastupdate = off)', twin);
    PERFORM gin_clean_pending_list(twin);
  END LOOP;
END $$;
