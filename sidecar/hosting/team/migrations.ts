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
  {
    version: 3,
    what: 'search in one round trip: words, tiers, vectors, fusion and snippets in one server function',
    // A search was four round trips (the query's words and their frequencies, a tier of words, the next tier, the
    // snippets), each waiting its turn for a CPU on a loaded server: p95 160 ms at a million notes against 12.7 ms of
    // work on the server (docs/team.md "Figures"). engram_team_search does all of it where the data is, under the same
    // rule as migration 2's functions (the teams and projects engram_team_members lists for the role that logged in):
    // - the query's words, stemmed, each with its share of passages from the planner's statistics of the keyword
    //   column (ANALYZE keeps the most common words; a word they do not list is rarer than any they do);
    // - all the words first (the GIN index reads the rarest word's list and skips through the others'); when that
    //   finds fewer than lim notes, one of the two rarest words with any other; then any of the rarest words, as many
    //   as are expected to match about cap passages together. Each tier ranks at most cap passages (ts_rank);
    // - the nearest passages by meaning when a vector is given and the store has vectors (engram_team_nearest);
    // - the two lists joined by reciprocal rank (k = 60, src/core/team/recall.ts fuseRanked), a note once, its best
    //   passage; the top lim with their notes and a snippet of the passage around the query's words.
    // Each statement is planned for its own values (plan_cache_mode): a generic plan would not know a tier's words.
    // The statistics are read as the tables' owner: pg_stats hides a table under row-level security from a role the
    // policies apply to, so a member's client read no frequencies, took every word for rare, and its last tier ORed
    // every word of the query, common ones included. (As the superuser, the bench's 200 queries at a million notes
    // give the same ten notes in the same order as the client's four round trips did.)
    sql: `
drop function engram_team_search_words(tsquery, text, int, int);

-- Rows inserted go straight into the keyword index, not a pending list every search reads whole (up to 4 MB: 499
-- pages after a million notes were loaded, read by each search, even one that matches nothing). Promotions are few and
-- sent in the background; searches are many and a person waits on them.
alter index engram_team_passages_tsv set (fastupdate = off);
select gin_clean_pending_list('engram_team_passages_tsv'::regclass);

-- A lexeme as a one-word tsquery (no stemming: it is stemmed already).
create function engram_team_lexeme(l text) returns tsquery language sql immutable strict as $$
  select ('''' || replace(replace(l, '\\', '\\\\'), '''', '''''') || '''')::tsquery
$$;

create function engram_team_search(words text, vec text, proj text, lim int, cap int)
returns table (note_id uuid, pid bigint, score float8, why text[], team text, project text, title text, author text, heading text, snippet text, promoted_at timestamptz)
language plpgsql stable security definer set search_path from current set jit = off set plan_cache_mode = force_custom_plan as $fn$
#variable_conflict use_column
declare
  lex text[];
  elems text[];
  freqs real[];
  nrows float8;
  floor_share float8;
  rare text[];
  shares float8[];
  n int;
  tiers tsquery[];
  tq tsquery;
  q_or tsquery;
  q_rest tsquery;
  q_any tsquery;
  expected float8;
  per_tier int := greatest(lim, 1) * 5;
  me record;
  r record;
  kw_notes uuid[] := '{}';
  kw_pids bigint[] := '{}';
  vec_notes uuid[] := '{}';
  vec_pids bigint[] := '{}';
begin
  select * into me from engram_team_readable();
  lex := (tsvector_to_array(to_tsvector('${TEXT_SEARCH}', left(coalesce(words, ''), 2000))))[1:32];
  n := coalesce(cardinality(lex), 0);
  if n > 0 then
    select s.most_common_elems::text::text[], s.most_common_elem_freqs into elems, freqs
      from pg_stats s where s.schemaname = current_schema() and s.tablename = 'engram_team_passages' and s.attname = 'tsv';
    select greatest(c.reltuples, 0) into nrows from pg_class c where c.oid = 'engram_team_passages'::regclass;
    floor_share := coalesce((select min(f) from unnest(freqs[1:cardinality(elems)]) f) / 2, 0);
    select array_agg(x.l order by x.share, x.o), array_agg(x.share order by x.share, x.o) into rare, shares
      from (select u.l, u.o, coalesce(e.f, floor_share) as share
            from unnest(lex) with ordinality u(l, o) left join unnest(elems, freqs[1:cardinality(elems)]) e(el, f) on e.el = u.l) x;
    q_or := engram_team_lexeme(rare[1]);
    tq := engram_team_lexeme(rare[1]);
    for i in 2..n loop
      q_or := q_or || engram_team_lexeme(rare[i]);
      tq := tq && engram_team_lexeme(rare[i]);
    end loop;
    tiers := array[tq];
    if n > 2 then
      -- The rarest word with any other, or the second rarest with any other.
      tq := null;
      for a in 1..2 loop
        q_rest := null;
        for i in 1..n loop
          continue when i = a;
          q_rest := case when q_rest is null then engram_team_lexeme(rare[i]) else q_rest || engram_team_lexeme(rare[i]) end;
        end loop;
        tq := case when tq is null then engram_team_lexeme(rare[a]) && q_rest else tq || (engram_team_lexeme(rare[a]) && q_rest) end;
      end loop;
      tiers := tiers || tq;
    end if;
    if n > 1 then
      q_any := engram_team_lexeme(rare[1]);
      expected := shares[1] * nrows;
      for i in 2..n loop
        expected := expected + shares[i] * nrows;
        exit when expected > cap;
        q_any := q_any || engram_team_lexeme(rare[i]);
      end loop;
      tiers := tiers || q_any;
    end if;
    foreach tq in array tiers loop
      exit when cardinality(kw_notes) >= lim;
      for r in
        select c.note_id as nid, c.id as pid from (
          select p.id, p.note_id, p.tsv from engram_team_passages p
          where p.tsv @@ tq and (proj is null or p.project = proj)
            and (me.all_rows or p.team = any (me.teams) or (p.team || '/' || p.project) = any (me.pairs))
          limit cap
        ) c
        order by ts_rank(c.tsv, tq) desc limit per_tier
      loop
        if not (r.nid = any (kw_notes)) then
          kw_notes := kw_notes || r.nid;
          kw_pids := kw_pids || r.pid;
        end if;
      end loop;
    end loop;
  end if;
  if vec is not null and to_regproc('engram_team_nearest') is not null then
    -- Dynamic: the vector type exists only where pgvector does.
    for r in execute 'select x.note_id as nid, x.pid from engram_team_nearest($1::vector, $2, $3) x' using vec, proj, per_tier loop
      if not (r.nid = any (vec_notes)) then
        vec_notes := vec_notes || r.nid;
        vec_pids := vec_pids || r.pid;
      end if;
    end loop;
  end if;
  return query
    with k as (
      select x.nid, x.pid, x.ord, 0 as src from unnest(kw_notes, kw_pids) with ordinality x(nid, pid, ord)
      union all
      select y.nid, y.pid, y.ord, 1 from unnest(vec_notes, vec_pids) with ordinality y(nid, pid, ord)
    ), f as (
      select k.nid, (array_agg(k.pid order by k.src))[1] as pid, sum(1.0 / (60 + k.ord))::float8 as score,
        array_agg(case k.src when 0 then 'words' else 'meaning' end order by k.src) as why, min(k.src) as src, min(k.ord) as ord
      from k group by k.nid
      order by score desc, src, ord limit lim
    )
    select f.nid, f.pid, f.score, f.why, nt.team, nt.project, nt.title, nt.author, p.heading,
      case when q_or is null then left(p.body, 200)
        else ts_headline('${TEXT_SEARCH}', p.body, q_or, 'MaxFragments=1, MinWords=8, MaxWords=30, StartSel="", StopSel=""') end,
      nt.promoted_at
    from f join engram_team_passages p on p.id = f.pid join engram_team_notes nt on nt.id = f.nid
    order by f.score desc, f.src, f.ord;
end
$fn$;
revoke all on function engram_team_search(text, text, text, int, int) from public;
grant execute on function engram_team_search(text, text, text, int, int) to engram_team_member;
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
