# Shared by the benchmarks: a demo server, a signed-in LIB_HOME, stores
# filled with cached documents and pending writes, and hyperfine helpers.
# Source it; BIN must name the directory with the release binaries.

bench_work=$(mktemp -d /tmp/lib-bench.XXXXXX)
bench_server_pid=""
bench_pg_stop=""
bench_missed=()
bench_cleanup() {
  local status=$?
  [ -n "$bench_server_pid" ] && kill "$bench_server_pid" 2>/dev/null
  [ -n "$bench_pg_stop" ] && eval "$bench_pg_stop" >/dev/null 2>&1
  wait 2>/dev/null
  rm -rf "$bench_work"
  # A missed budget fails the script, whatever ran after the check.
  if [ ${#bench_missed[@]} -gt 0 ]; then
    printf 'budget missed: %s\n' "${bench_missed[@]}" >&2
    exit 1
  fi
  exit "$status"
}
trap bench_cleanup EXIT

# bench_budget NAME FIGURE OP LIMIT: checks FIGURE against the budget
# (OP is <= or >=); a miss is printed now and again when the script ends,
# which then exits 1.
bench_budget() {
  local name=$1 figure=$2 op=$3 limit=$4
  if python3 -c "import sys; f, l = float(sys.argv[1]), float(sys.argv[3]); sys.exit(0 if (f <= l if sys.argv[2] == '<=' else f >= l) else 1)" \
      "$figure" "$op" "$limit"; then
    return 0
  fi
  bench_missed+=("$name: $figure, budget $op $limit")
  echo "BUDGET MISSED: $name: $figure, budget $op $limit"
}

# Starts lib-server --demo on BENCH_DB (default: a SQLite file in the work
# directory; a postgresql:// URI for the PostgreSQL store); sets BENCH_URL.
# Returns non-zero when the server does not start.
bench_start_server() {
  "$BIN/lib-server" --db "${BENCH_DB:-$bench_work/server.sqlite}" --listen 127.0.0.1:0 --demo "$@" \
    > "$bench_work/server.out" 2> "$bench_work/server.err" &
  bench_server_pid=$!
  for _ in $(seq 1 200); do
    [ -s "$bench_work/server.out" ] && break
    kill -0 "$bench_server_pid" 2>/dev/null || { bench_server_pid=""; return 1; }
    sleep 0.05
  done
  BENCH_URL=$(sed -n '1s/^listening on //p' "$bench_work/server.out")
  [ -n "$BENCH_URL" ]
}

bench_stop_server() {
  [ -n "$bench_server_pid" ] || return 0
  kill "$bench_server_pid" 2>/dev/null; wait "$bench_server_pid" 2>/dev/null || true
  bench_server_pid=""
}

# Starts a private PostgreSQL cluster on a free loopback port (as `nobody`
# when run as root: PostgreSQL refuses root) with its default durability
# (fsync on, synchronous commit); sets BENCH_PG_URL. Non-zero when
# PostgreSQL is not installed.
bench_start_postgres() {
  local bin dir port as=()
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$bin" ] && [ -x "$bin/initdb" ] || return 1
  dir=$(mktemp -d /tmp/lib-bench-pg.XXXXXX)
  if [ "$(id -u)" = 0 ]; then chown nobody "$dir"; as=(runuser -u nobody --); fi
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "${as[@]}" "$bin/initdb" -D "$dir/data" -U lib -A trust > "$dir/initdb.log" 2>&1 || return 1
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir" start > /dev/null || return 1
  bench_pg_stop="${as[*]} $bin/pg_ctl -D $dir/data -m fast stop; rm -rf $dir"
  "${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U lib lib || return 1
  BENCH_PG_URL="postgresql://lib@127.0.0.1:$port/lib"
}

# bench_server_books DB N: a lib-server SQLite database at DB (made and
# migrated by the server) with N generated books, their ids as wide as N
# (g-00001 to g-20000), put in with the server's own tables' SQL: N PUTs
# would take minutes. The 20 demo books come with the server's --demo.
bench_server_books() {
  local db=$1 books=$2
  BENCH_DB="$db" bench_start_server && bench_stop_server
  sqlite3 "$db" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $books)
INSERT INTO books (id, version, etag, document)
  SELECT printf('g-%0${#books}d', i), 1, printf('"1-g%0${#books}d"', i),
         json_object('id', printf('g-%0${#books}d', i), 'title', 'Generated volume ' || i, 'author', 'Author ' || (i % 100),
                     'year', 1900 + i % 120, 'tags', json_array('generated'))
  FROM n;
INSERT INTO changes (book_id, deleted, at) SELECT id, 0, 0 FROM books WHERE id LIKE 'g-%' ORDER BY id;
SQL
}

# bench_home DIR: a LIB_HOME signed in as alice on the bench server.
bench_home() {
  mkdir -p "$1"
  printf 'alice-demo\n' | LIB_HOME="$1" "$BIN/lib" -q login "$BENCH_URL" --user alice --password-stdin
}

# bench_fill HOME DOCS PENDING: DOCS cached documents and PENDING pending writes (title changes) in alice's store.
bench_fill() {
  local store
  store=$(ls -d "$1"/data/accounts/*/store.sqlite)
  sqlite3 "$store" <<SQL
PRAGMA synchronous=OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
INSERT OR REPLACE INTO documents (path, body, etag, fetched_at, validated_at)
SELECT 'books/b-' || i, '{"id":"b-' || i || '","title":"Book ' || i || '","author":"Someone","year":1965,"copies":3,"tags":["sf"]}',
       '"1-' || i || '"', strftime('%s','now'), strftime('%s','now') FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $3)
INSERT INTO outbox (path, method, changes, base_body, base_etag, if_match, idempotency_key, created_at, updated_at)
SELECT 'books/b-' || i, 'PUT', '{"set":{"title":"Edited ' || i || '"},"remove":[]}',
       '{"id":"b-' || i || '","title":"Book ' || i || '","author":"Someone","year":1965,"copies":3,"tags":["sf"]}',
       '"1-' || i || '"', '"1-' || i || '"', 'bench-' || i, strftime('%s','now'), strftime('%s','now') FROM n;
COMMIT;
SQL
  # sqlite3 changed the outbox behind lib's back: the prompt file lib wrote
  # at login is stale, and lib writes a missing one at its next command.
  rm -f "$(dirname "$store")/prompt"
}

# A 50-file git repository, the reference for commands run in shell prompts.
bench_git_repo() {
  local repo="$bench_work/git-repo"
  mkdir -p "$repo"
  git -C "$repo" init -q
  for i in $(seq 1 50); do echo "file $i" > "$repo/f$i.txt"; done
  git -C "$repo" add -A
  git -C "$repo" -c user.email=bench@lib.invalid -c user.name=bench commit -qm init
  echo "$repo"
}

# bench_hyperfine ARGS...: hyperfine on one CPU (the last), it and every
# command it measures. Left to the scheduler on a 2-core machine, the
# measured processes land on either core, beside whatever else runs there,
# and two commands measured one after the other see different mixes: the
# same binaries measured 1.02, 1.51, 1.22 and 1.06 times git status in four
# runs a minute apart, and 1.02 to 1.16 pinned.
bench_hyperfine() {
  local cpu
  cpu=$(( $(nproc) - 1 ))
  if command -v taskset >/dev/null && [ "$cpu" -gt 0 ]; then
    taskset -c "$cpu" hyperfine "$@"
  else
    hyperfine "$@"
  fi
}

# bench_rounds OUT ROUNDS HYPERFINE_OPTIONS... -- NAME COMMAND [NAME COMMAND...]:
# hyperfine in ROUNDS short runs of every command, their order reversed
# every other round, written to OUT as one hyperfine export (each
# command's times pooled, its mean and median over them) plus each
# round's median ("round_medians"). This machine switches between a fast
# and a slow state for a second or more at a time, git and lib alike (1.4
# and 2.0 ms for git status): one long run per command compared one's
# fast state with the other's slow one, and the same binaries measured
# 1.40, 1.26 and 1.04 × git in three runs in a row.
bench_rounds() {
  local out=$1 rounds=$2 round i options=() commands=()
  shift 2
  while [ "$1" != "--" ]; do options+=("$1"); shift; done
  shift
  commands=("$@")
  for round in $(seq 1 "$rounds"); do
    local args=()
    if [ $((round % 2)) = 1 ]; then
      for ((i = 0; i < ${#commands[@]}; i += 2)); do args+=(-n "${commands[i]}" "${commands[i + 1]}"); done
    else
      for ((i = ${#commands[@]} - 2; i >= 0; i -= 2)); do args+=(-n "${commands[i]}" "${commands[i + 1]}"); done
    fi
    bench_hyperfine "${options[@]}" --export-json "$out.$round" "${args[@]}" >/dev/null
  done
  python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
pooled = {}
for round in range(1, rounds + 1):
    for result in json.load(open(f"{out}.{round}"))["results"]:
        entry = pooled.setdefault(result["command"], {"command": result["command"], "times": [], "round_medians": []})
        entry["times"] += result["times"]
        entry["round_medians"].append(result["median"])
for entry in pooled.values():
    entry["mean"], entry["median"] = statistics.mean(entry["times"]), statistics.median(entry["times"])
json.dump({"results": list(pooled.values())}, open(out, "w"))
PY
}

# bench_round_ratio JSON A B: the median over bench_rounds' rounds of A's
# median / B's median, two decimals: the budgets' figure.
bench_round_ratio() {
  python3 - "$@" <<'PY'
import json, statistics, sys
results = {r["command"]: r["round_medians"] for r in json.load(open(sys.argv[1]))["results"]}
print(f"{statistics.median(a / b for a, b in zip(results[sys.argv[2]], results[sys.argv[3]])):.2f}")
PY
}

# bench_mean JSON NAME: the mean seconds of the named command in hyperfine's export.
bench_mean() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([r["mean"] for r in d["results"] if r["command"]==sys.argv[2]][0])' "$1" "$2"
}

# bench_ratio A B: A / B, two decimals.
bench_ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }

# bench_median JSON NAME: the median seconds. On a shared machine a few
# preempted runs move the mean by whole milliseconds; the median is the
# typical run, and the budgets are checked on it.
bench_median() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([r["median"] for r in d["results"] if r["command"]==sys.argv[2]][0])' "$1" "$2"
}

# bench_instructions CMD...: the instructions CMD executes, in millions
# (valgrind's callgrind): the figure that machine noise does not move.
# valgrind 3.19 cannot read the DWARF of Swift's release builds, so lib and
# lib-online are measured as copies without debug information.
bench_instructions() {
  local program=$1; shift
  if [ "$(dirname "$program")" = "$BIN" ]; then
    mkdir -p "$bench_work/nodebug"
    for name in lib lib-online; do
      [ -e "$BIN/$name" ] || continue
      # A program that is not ELF (a wrapper script) is measured as it is.
      [ -e "$bench_work/nodebug/$name" ] || strip --strip-debug -o "$bench_work/nodebug/$name" "$BIN/$name" 2>/dev/null \
        || cp "$BIN/$name" "$bench_work/nodebug/$name"
    done
    program=$bench_work/nodebug/$(basename "$program")
  fi
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$program" "$@" 2>&1 >/dev/null \
    | sed -n 's/.*Collected : //p' | python3 -c 'import sys; print(f"{int(sys.stdin.read())/1e6:.3f}")'
}

# bench_against_git LABEL "LIB ARGS" BUDGET SMALL_HOME LARGE_HOME REPO:
# times `lib LIB ARGS` in both homes against git status in REPO (one
# hyperfine run per home, each with git as its reference, so that LIB_HOME
# is set without an `env` process in the measured command), and prints the
# times, the ratio to git with the large store, and the growth (budget 1.2).
bench_against_git() {
  local label=$1 args=$2 budget=$3 small=$4 large=$5 repo=$6 home
  for home in small large; do
    local dir=$small; [ $home = large ] && dir=$large
    LIB_HOME="$dir" bench_rounds "$bench_work/$home.json" 10 -N --warmup 5 --runs 30 -- \
      git "git -C $repo status --porcelain" lib "$BIN/lib $args"
  done
  local git_small small_t git_large large_t
  git_small=$(bench_mean "$bench_work/small.json" git); small_t=$(bench_mean "$bench_work/small.json" lib)
  git_large=$(bench_mean "$bench_work/large.json" git); large_t=$(bench_mean "$bench_work/large.json" lib)
  ms() { python3 -c "print(f'{float(\"$1\")*1000:.2f}')"; }
  echo "$label, 1k documents / 10 pending:    lib $(ms "$small_t") ms, git $(ms "$git_small") ms"
  echo "$label, 100k documents / 10k pending: lib $(ms "$large_t") ms, git $(ms "$git_large") ms"
  local git_small_m small_m git_large_m large_m
  git_small_m=$(bench_median "$bench_work/small.json" git); small_m=$(bench_median "$bench_work/small.json" lib)
  git_large_m=$(bench_median "$bench_work/large.json" git); large_m=$(bench_median "$bench_work/large.json" lib)
  local ratio growth
  # Growth: lib's ratio to git with the large store over its ratio with
  # the small one (git's repository is the same in both runs), so that the
  # machine's state during each run cancels out.
  ratio=$(bench_round_ratio "$bench_work/large.json" lib git)
  growth=$(bench_ratio "$ratio" "$(bench_round_ratio "$bench_work/small.json" lib git)")
  echo "$label ratio vs git status (100k/10k): $ratio median of 10 rounds, $(bench_ratio "$large_m" "$git_large_m") pooled median, $(bench_ratio "$large_t" "$git_large") mean (budget $budget)"
  echo "$label growth 1k/10 -> 100k/10k: $growth in ratio to git, $(bench_ratio "$large_m" "$small_m") pooled median (budget 1.2)"
  bench_budget "$label, median ratio to git status --porcelain (100k documents / 10k pending)" "$ratio" "<=" "$budget"
  bench_budget "$label, median growth from 1k/10 to 100k/10k" "$growth" "<=" 1.2
  local lib_i git_i
  # shellcheck disable=SC2086
  lib_i=$(LIB_HOME="$large" bench_instructions "$BIN/lib" $args)
  git_i=$(bench_instructions "$(command -v git)" -C "$repo" status --porcelain)
  echo "$label instructions (callgrind, 100k/10k): lib ${lib_i} M, git ${git_i} M, ratio $(bench_ratio "$lib_i" "$git_i")"
}
