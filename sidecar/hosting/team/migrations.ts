// The team store's schema, as numbered migrations applied in order, each in its own transaction, under an advisory
// lock (two members' hosts starting at once do not both migrate). A database a newer Engram migrated is left alone.
//
// Tables: notes (what a member promoted, with provenance), passages (keyword column weighted title > headings > body;
// a vector column with an HNSW index where the `vector` extension exists), an audit log, and the members (which
// database role reads which team and project). Row-level security is on and forced for every table: a member's
// connection sees the rows of their teams and projects only, and writes rows in their own name only.

/** Text search configuration of the keyword column (stemming and stop words). */
export const TEXT_SEARCH = 'english';

export interface Migration {
  version: number;
  what: string;
  sql: string;
}

/** Where applied migrations are recorded (made by the first migrate, before migration 1). */
export const SCHEMA_TABLE = 'create table engram_team_schema (version int primary key, what text not null, applied_at timestamptz not null default now())';

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    what: 'notes, passages, audit log, members, row-level security',
    sql: `
create table engram_team_notes (
  id uuid primary key default gen_random_uuid(),
  team text not null,
  project text not null default '',
  title text not null,
  body text not null,
  frontmatter jsonb not null default '{}'::jsonb,
  author text not null default current_user,
  vault text not null,
  session text,
  source_path text not null,
  source_hash text not null,
  promoted_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  retracted_at timestamptz,
  unique (team, author, vault, source_path)
);
create index engram_team_notes_team on engram_team_notes (team, project) where retracted_at is null;

create table engram_team_passages (
  id bigserial primary key,
  note_id uuid not null references engram_team_notes (id) on delete cascade,
  team text not null,
  project text not null default '',
  ord int not null,
  title text not null,
  heading text not null default '',
  body text not null,
  tsv tsvector generated always as (
    setweight(to_tsvector('${TEXT_SEARCH}', title), 'A') ||
    setweight(to_tsvector('${TEXT_SEARCH}', heading), 'B') ||
    setweight(to_tsvector('${TEXT_SEARCH}', body), 'C')
  ) stored
);
create index engram_team_passages_tsv on engram_team_passages using gin (tsv);
create index engram_team_passages_note on engram_team_passages (note_id);

create table engram_team_audit (
  id bigserial primary key,
  at timestamptz not null default now(),
  actor text not null default current_user,
  team text not null,
  action text not null,
  note_id uuid,
  detail text not null default ''
);

-- Which database role may read which team (and, when project is set, only that project of it).
create table engram_team_members (
  role_name text not null,
  team text not null,
  project text,
  unique (role_name, team, project)
);

create function engram_team_can_read(t text, p text) returns boolean language sql stable as $$
  select exists (select 1 from engram_team_members m
    where m.role_name = current_user and m.team = t and (m.project is null or m.project = p))
$$;

alter table engram_team_notes enable row level security;
alter table engram_team_notes force row level security;
create policy engram_read on engram_team_notes for select using (engram_team_can_read(team, project));
create policy engram_insert on engram_team_notes for insert with check (author = current_user and engram_team_can_read(team, project));
create policy engram_update on engram_team_notes for update using (author = current_user) with check (author = current_user);

alter table engram_team_passages enable row level security;
alter table engram_team_passages force row level security;
create policy engram_read on engram_team_passages for select using (engram_team_can_read(team, project));
create policy engram_write on engram_team_passages for all
  using (exists (select 1 from engram_team_notes n where n.id = engram_team_passages.note_id and n.author = current_user))
  with check (exists (select 1 from engram_team_notes n where n.id = engram_team_passages.note_id and n.author = current_user));

alter table engram_team_audit enable row level security;
alter table engram_team_audit force row level security;
create policy engram_read on engram_team_audit for select using (exists (select 1 from engram_team_members m where m.role_name = current_user and m.team = engram_team_audit.team));
create policy engram_insert on engram_team_audit for insert with check (actor = current_user);

-- Members are database roles granted engram_team_member (and listed above for the teams they read).
do $$ begin
  if not exists (select 1 from pg_roles where rolname = 'engram_team_member') then create role engram_team_member nologin; end if;
end $$;
grant select, insert, update on engram_team_notes to engram_team_member;
grant select, insert, delete on engram_team_passages to engram_team_member;
grant select, insert on engram_team_audit to engram_team_member;
grant select on engram_team_members, engram_team_schema to engram_team_member;
grant usage on sequence engram_team_passages_id_seq, engram_team_audit_id_seq to engram_team_member;

alter table engram_team_members enable row level security;
alter table engram_team_members force row level security;
create policy engram_read on engram_team_members for select using (role_name = current_user);
`,
  },
  {
    version: 2,
    what: 'keyword search through the GIN index for members: a search function, policies evaluated once per query',
    // Under row-level security PostgreSQL applies a query's own conditions only after the policies unless they are
    // leakproof, and `@@` (ts_match_vq) is not: a member's keyword search read every passage (918 ms at 20,000 notes
    // against 9 ms through the index, bench/team-store). So a member searches through engram_team_search_words, which
    // runs as the tables' owner and applies the same rule the policies do, for the role that logged in (session_user):
    // the teams and projects engram_team_members lists for it (superusers and roles that bypass row security: all).
    // (JIT compiling is off for it: compiling took longer than the query.) The policies that stay are written so they are evaluated once per query, not once per row; a retracted note's
    // passages are deleted (the note itself stays, for its author and the audit), so search needs no join.
    sql: `
alter table engram_team_members no force row level security;
alter table engram_team_passages no force row level security;

drop policy engram_write on engram_team_passages;
create policy engram_insert on engram_team_passages for insert
  with check (exists (select 1 from engram_team_notes n where n.id = engram_team_passages.note_id and n.author = current_user));
create policy engram_delete on engram_team_passages for delete
  using (exists (select 1 from engram_team_notes n where n.id = engram_team_passages.note_id and n.author = current_user));

drop policy engram_read on engram_team_passages;
create policy engram_read on engram_team_passages for select using (
  team = any (array(select m.team from engram_team_members m where m.role_name = current_user and m.project is null))
  or (team || '/' || project) = any (array(select m.team || '/' || m.project from engram_team_members m where m.role_name = current_user and m.project is not null)));
drop policy engram_read on engram_team_notes;
create policy engram_read on engram_team_notes for select using (
  team = any (array(select m.team from engram_team_members m where m.role_name = current_user and m.project is null))
  or (team || '/' || project) = any (array(select m.team || '/' || m.project from engram_team_members m where m.role_name = current_user and m.project is not null)));

delete from engram_team_passages p using engram_team_notes n where n.id = p.note_id and n.retracted_at is not null;

-- What the role that logged in may read: every row (a superuser, a role that bypasses row security), or these teams
-- and team/project pairs.
create function engram_team_readable() returns table (all_rows boolean, teams text[], pairs text[])
language sql stable security definer set search_path from current as $$
  select coalesce((select r.rolsuper or r.rolbypassrls from pg_roles r where r.rolname = session_user), false),
    coalesce(array_agg(m.team) filter (where m.project is null), '{}'),
    coalesce(array_agg(m.team || '/' || m.project) filter (where m.project is not null), '{}')
  from engram_team_members m where m.role_name = session_user
$$;

-- Keyword search: at most \`cap\` passages matching \`q\` (through the GIN index) are ranked, the best \`lim\` returned.
create function engram_team_search_words(q tsquery, proj text, lim int, cap int)
returns table (note_id uuid, pid bigint, rank real)
language sql stable security definer set search_path from current set jit = off as $$
  select c.note_id, c.id, ts_rank(c.tsv, q) as rank
  from (
    select p.id, p.note_id, p.tsv from engram_team_passages p, engram_team_readable() me
    where p.tsv @@ q and (proj is null or p.project = proj)
      and (me.all_rows or p.team = any (me.teams) or (p.team || '/' || p.project) = any (me.pairs))
    limit cap
  ) c
  order by rank desc limit lim
$$;
revoke all on function engram_team_readable(), engram_team_search_words(tsquery, text, int, int) from public;
grant execute on function engram_team_readable(), engram_team_search_words(tsquery, text, int, int) to engram_team_member;
`,
  },
];

/**
 * Vector search, as keyword search (migration 2): through the HNSW index whatever the member's rights, the same rule
 * applied. HNSW's default candidate list (40) finds about 5 of the true 10 nearest of 5,000 random vectors, 200 about
 * 9.3, 400 about 9.9 (bench/team-store).
 */
export function nearestFunction(): string {
  return `
create or replace function engram_team_nearest(v vector, proj text, lim int)
returns table (note_id uuid, pid bigint, distance float8)
language sql stable security definer set search_path from current set hnsw.ef_search = 400 set jit = off as $$
  select p.note_id, p.id, p.embedding <=> v
  from engram_team_passages p, engram_team_readable() me
  where p.embedding is not null and (proj is null or p.project = proj)
    and (me.all_rows or p.team = any (me.teams) or (p.team || '/' || p.project) = any (me.pairs))
  order by p.embedding <=> v limit lim
$$;
revoke all on function engram_team_nearest(vector, text, int) from public;
grant execute on function engram_team_nearest(vector, text, int) to engram_team_member;
`;
}

/** The vector step: applied where the `vector` extension can be created, retried at each start until it can. */
export function vectorMigration(dimensions: number): string {
  return `
create extension if not exists vector;
alter table engram_team_passages add column if not exists embedding vector(${dimensions});
create index if not exists engram_team_passages_hnsw on engram_team_passages using hnsw (embedding vector_cosine_ops);
${nearestFunction()}
`;
}
