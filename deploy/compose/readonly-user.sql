-- The read-only user the service connects as, like a mirror node's mirror_api: it may read every
-- table of schema public, including those that `seed` creates later (default privileges).
create role mirror_api login password 'mirror_api_pass';
grant connect on database mirror_node to mirror_api;
grant usage on schema public to mirror_api;
alter default privileges for role postgres in schema public grant select on tables to mirror_api;
