#!/bin/sh
# tests/cli/ledger.sh - `gpurent ledger` on the real binary ($GPURENT) in a
# fresh temp dir: manual entries, list/show/summary/export, currencies kept
# apart, CSV/JSON round trips, one-line errors, corrupted and foreign files,
# an older schema, writers at once, the docs. Prints "ledger: N passed, M failed".
NAME=ledger
. "$(dirname "$0")/lib/common.sh"

# Never touch the real ledger; dates in UTC so that day/week/month are fixed.
export HOME="$T/home" TZ=UTC
unset XDG_DATA_HOME GPURENT_LEDGER
mkdir -p "$HOME"
L=$T/l.db
HAVE_SQLITE=0
command -v sqlite3 >/dev/null 2>&1 && HAVE_SQLITE=1

# --- help, docs
run "$G" help ledger; cp "$T/out" "$T/h1"
run "$G" ledger --help; cp "$T/out" "$T/h2"
cmp -s "$T/h1" "$T/h2" && [ -s "$T/h1" ] && ok || bad "help ledger != ledger --help"
expect_ok help-lists '^  ledger ' "$G" help
grep -q "gpurent ledger" "$ROOT/README.md" && grep -q '^\\fBledger\\fR' "$ROOT/docs/gpurent.1" \
	&& ok || bad "ledger missing from README.md or the COMMANDS of docs/gpurent.1"
for sub in add list show summary export; do
	grep -q "ledger $sub" "$ROOT/docs/ledger.md" && ok || bad "docs/ledger.md lacks 'ledger $sub'"
done

# --- where the ledger is: --ledger > GPURENT_LEDGER > XDG_DATA_HOME > HOME
expect_ok path-home "^$HOME/.local/share/gpurent/ledger.db\$" "$G" ledger path
expect_ok path-xdg "^$T/xdg/gpurent/ledger.db\$" env XDG_DATA_HOME="$T/xdg" "$G" ledger path
expect_ok path-env "^$T/env.db\$" env XDG_DATA_HOME="$T/xdg" GPURENT_LEDGER="$T/env.db" "$G" ledger path
expect_ok path-flag "^$T/flag.db\$" env GPURENT_LEDGER="$T/env.db" "$G" ledger --ledger "$T/flag.db" path
expect_ok default-add 'run 1 recorded' env XDG_DATA_HOME="$T/xdg" "$G" ledger add --cost 1USD
[ "$(stat -c %a "$T/xdg/gpurent/ledger.db" 2>/dev/null)" = 600 ] && ok \
	|| bad "a new ledger is created private (0600): $(ls -l "$T/xdg/gpurent" 2>&1)"
expect_ok env-add 'in '"$T"'/env.db' env GPURENT_LEDGER="$T/env.db" "$G" ledger add --cost 2USD
[ ! -e "$HOME/.local/share/gpurent/ledger.db" ] && ok || bad "the env and XDG runs wrote under HOME"

# --- manual entries: the seed's example, a computed cost, another currency
expect_ok add-seed '^run 1 recorded: 12\.50 CNY, 2\.00 h, in ' \
	"$G" ledger add --ledger "$L" --cost 12.5 --currency CNY --duration 2h --gpu RTX4090 \
	--price 1.88 --tag lora --problems 'OOM at bs 8' --start 2024-03-05T14:00
expect_ok add-computed '^run 2 recorded: 2\.82 CNY, 1\.50 h \(1\.88 CNY/h x duration\)' \
	"$G" ledger add --ledger="$L" --price 1.88CNY --duration 90m --gpu 'NVIDIA GeForce RTX 4090' \
	--start '2024-03-06 09:00:00+08:00' --tag lora --tag 7b --billing per-second
PROBLEMS='NCCL timeout, then "CUDA error: out of memory"
retried at bs 4; 显存不足'
expect_ok add-usd '^run 3 recorded: 40\.00 USD' \
	"$G" ledger --ledger "$L" add --cost '$40' --start 2024-04-01T00:00Z --end 2024-04-01T10:00Z \
	--gpu 4090 --gpus 2 --command 'python train.py --bs 8' --problems "$PROBLEMS" --host box-7 \
	--notes 'spot, reclaimed once'
expect_ok add-unix 'run 4 recorded: 0\.50 USD' \
	"$G" ledger add --ledger "$L" --cost 0.5USD --start 1712275200 --duration 30m --gpu H100-SXM5

# --- list and show
expect_ok list-all '^ +4  2024-04-05 00:00 +0\.50  1x H100 ' "$G" ledger list --ledger "$L"
[ "$(grep -c '^ *[0-9]' "$T/out")" -eq 4 ] && ok || bad "list shows 4 runs"
sed -n 2p "$T/out" | grep -q '^ *4 ' && sed -n 5p "$T/out" | grep -q '^ *1 ' && ok || bad "list: newest first"
grep -q '2x RTX4090 .*40\.00 USD' "$T/out" && ok || bad "list: '4090' is stored as RTX4090: $(cat "$T/out")"
expect_ok list-limit '^ +4 ' "$G" ledger list --ledger "$L" --limit 1
[ "$(grep -c '^ *[0-9]' "$T/out")" -eq 1 ] && ok || bad "--limit 1"
expect_ok show-1 '^problems +OOM at bs 8$' "$G" ledger show 1 --ledger "$L"
grep -q '^price  *1\.88 CNY/h$' "$T/out" && grep -q '^start  *2024-03-05 14:00:00 +0000 (1709647200)$' "$T/out" \
	&& grep -q '^tags  *lora$' "$T/out" && grep -q '^gpu  *RTX4090 x 1$' "$T/out" && ok \
	|| bad "show 1: $(cat "$T/out")"
expect_ok show-2 '^start +2024-03-06 01:00:00 \+0000' "$G" ledger show 2 --ledger "$L"
grep -q '^tags  *lora,7b$' "$T/out" && grep -q '(per-second)' "$T/out" && grep -q 'RTX4090' "$T/out" \
	&& ok || bad "show 2: tags, billing, the NVML name normalised: $(cat "$T/out")"

# --- summaries: sums, and each currency apart
expect_ok summary-month '^2024-03 +CNY +2 +3\.50 +3\.50 +15\.32$' "$G" ledger summary --ledger "$L"
grep -Eq '^2024-04 +USD +2 +10\.50 +20\.50 +40\.50$' "$T/out" && ok || bad "summary: April in USD: $(cat "$T/out")"
grep -Eq '^total +CNY +2 +3\.50 +3\.50 +15\.32$' "$T/out" && grep -Eq '^total +USD +2 +10\.50 +20\.50 +40\.50$' "$T/out" \
	&& ok || bad "summary totals per currency: $(cat "$T/out")"
grep -q 'none is converted' "$T/out" && ok || bad "summary says currencies are not converted"
grep -Eq '55\.8|[^0-9]55\.' "$T/out" && bad "CNY and USD were added together" || ok
expect_ok summary-tag '^lora +CNY +2 +3\.50' "$G" ledger summary --ledger "$L" --by tag
grep -Eq '^\(untagged\) +USD +2 ' "$T/out" && grep -Eq '^7b +CNY +1 ' "$T/out" && ok || bad "by tag: $(cat "$T/out")"
expect_ok summary-gpu '^RTX4090 +CNY +2 ' "$G" ledger summary --ledger "$L" --by gpu
grep -Eq '^RTX4090 +USD +1 +10\.00 +20\.00 +40\.00$' "$T/out" && grep -Eq '^H100 +USD +1 ' "$T/out" \
	&& ok || bad "by gpu: $(cat "$T/out")"
expect_ok summary-week '^2024-W10 +CNY +2 ' "$G" ledger summary --ledger "$L" --by week
expect_ok summary-day '^2024-03-06 +CNY +1 ' "$G" ledger summary --ledger "$L" --by day
if need_py "summary --json"; then
	run "$G" ledger summary --ledger "$L" --by month --json
	python3 -c "
import json; d = json.load(open('$T/out'))
assert d['schema'] == 'gpurent.ledger-summary/1' and d['by'] == 'month'
g = {(x['key'], x['currency']): x for x in d['groups']}
assert set(g) == {('2024-03', 'CNY'), ('2024-04', 'USD')}, g
assert abs(g['2024-03', 'CNY']['cost'] - (12.5 + 1.88 * 1.5)) < 1e-9
assert g['2024-04', 'USD']['runs'] == 2 and abs(g['2024-04', 'USD']['gpu_hours'] - 20.5) < 1e-9
t = {x['currency']: x for x in d['totals']}
assert abs(t['USD']['cost'] - 40.5) < 1e-9 and abs(t['CNY']['hours'] - 3.5) < 1e-9
" && ok || bad "summary --json"
fi

# --- export: CSV and JSON carry the same runs, the text comes back byte for byte
expect_ok export-csv '^id,kind,status,start,end,start_unix' "$G" ledger export --ledger "$L" --csv
cp "$T/out" "$T/runs.csv"
expect_ok export-json '"schema": "gpurent.ledger/1"' "$G" ledger export --ledger "$L" --json
cp "$T/out" "$T/runs.json"
if need_py "export CSV/JSON round trip"; then
	PROBLEMS="$PROBLEMS" python3 -c "
import csv, json, os
rows = list(csv.DictReader(open('$T/runs.csv', newline='', encoding='utf-8')))
runs = json.load(open('$T/runs.json', encoding='utf-8'))['runs']
assert [r['id'] for r in rows] == ['1', '2', '3', '4'] and len(runs) == 4
def num(s): return None if s == '' else float(s)
for r, j in zip(rows, runs):
    assert int(r['id']) == j['id']
    for k in ('kind', 'status', 'command', 'host', 'gpu_type', 'currency', 'billing_mode', 'notes', 'problems'):
        assert (r[k] or None) == j[k], (k, r[k], j[k])
    for k, jk in (('start_unix', 'start_unix_seconds'), ('end_unix', 'end_unix_seconds'), ('cost', 'cost'),
                  ('price_per_hour', 'price_per_hour')):
        assert num(r[k]) == j[jk], (k, r[k], j[jk])
    assert (r['tags'].split(',') if r['tags'] else []) == j['tags']
    assert r['start'] == j['start'] and r['end'] == j['end']
assert rows[2]['problems'] == os.environ['PROBLEMS'], rows[2]['problems']
assert rows[0]['start'] == '2024-03-05T14:00:00Z' and rows[1]['start_unix'] == '1709686800'
assert abs(float(rows[1]['cost']) - 1.88 * 1.5) < 1e-12 and rows[1]['tags'] == 'lora,7b'
assert rows[3]['gpu_type'] == 'H100' and rows[2]['gpu_count'] == '2' and rows[0]['exit_status'] == ''
" && ok || bad "export CSV/JSON round trip"
fi
V=0   # the schema version this gpurent writes
if [ $HAVE_SQLITE = 1 ]; then
	V=$(sqlite3 "$L" 'PRAGMA user_version')
	[ "$V" -ge 2 ] 2>/dev/null && ok || bad "schema version '$V'"
	[ "$(sqlite3 "$L" 'SELECT count(*) FROM runs')" = 4 ] && \
	[ "$(sqlite3 "$L" 'SELECT max(version) FROM gpurent_schema')" = "$V" ] && \
	[ "$(sqlite3 "$L" 'PRAGMA journal_mode')" = wal ] && ok || bad "the database as sqlite3 sees it"
else
	echo "SKIP sqlite3 shell checks: sqlite3 not installed"
fi

# --- bad input: one line naming the flag, exit 2, nothing written
for c in \
	'--cost abc|--cost: ' \
	'--cost 3|--cost: expected an amount with its currency' \
	'--cost 3USD --currency CNY|--cost: in USD but --currency is CNY' \
	'--cost 3CNY --price 1USD|--price: in USD but the cost is in CNY' \
	'--cost 3USD --currency X1|--currency: expected a currency code' \
	'--cost 3USD --duration 2x|--duration: ' \
	'--cost 3USD --start 2024-13-01|--start: expected unix seconds or ISO 8601' \
	'--cost 3USD --start 2024-02-30T10:00|--start: expected' \
	'--cost 3USD --start yesterday|--start: expected' \
	'--cost 3USD --gpus -1|--gpus: ' \
	'--cost 3USD --end 2024-01-01|--end: needs --start' \
	'--cost 3USD --start 2024-01-02 --end 2024-01-01|--end: expected a time after --start' \
	'--cost 3USD --start 2024-01-01 --end 2024-01-02 --duration 1h|--end: give --end or --duration' \
	'--price 2USD|--cost: expected what the run cost (--price alone needs' \
	'--duration 1h|--cost: expected what the run cost' \
	'--cost 3USD --costs 4|--costs: unknown option' \
	'--cost|--cost: expected a value'; do
	args=${c%%|*} want=${c#*|}
	# shellcheck disable=SC2086
	expect_err "add $args" 2 "gpurent ledger add: $want" "$G" ledger add --ledger "$L" $args
done
# the kind and status worded for the reader (the stored words are JSON's: zh_CN showed "guard，finished")
expect_ok show-words '^run 1 \(added by hand, finished\)$' "$G" ledger show 1 --ledger "$L"
expect_err show-noid 2 'gpurent ledger show: expected a run ID' "$G" ledger show --ledger "$L"
expect_err show-x 2 'x: expected a run ID' "$G" ledger show x --ledger "$L"
expect_err summary-by 2 "--by: expected one of day, week, month, tag, gpu, got 'year'" "$G" ledger summary --by year --ledger "$L"
expect_err export-none 2 'expected one of --csv or --json' "$G" ledger export --ledger "$L"
expect_err export-both 2 'expected one of --csv or --json' "$G" ledger export --csv --json --ledger "$L"
expect_err list-limit 2 'gpurent ledger list: --limit: ' "$G" ledger list --limit -1 --ledger "$L"
expect_err list-extra 2 "'extra': unexpected argument" "$G" ledger list extra --ledger "$L"
expect_err unknown-sub 2 "'frob' is not a ledger subcommand" "$G" ledger frob
expect_err no-ledger-value 2 '--ledger: expected a value' "$G" ledger --ledger
expect_err empty-ledger 2 "--ledger: expected a file path, got ''" "$G" ledger list --ledger=
expect_ok still-4 '^ +4 ' "$G" ledger list --ledger "$L" --limit 0
[ "$(grep -c '^ *[0-9]' "$T/out")" -eq 4 ] && ok || bad "bad input wrote nothing"

# --- runtime failures: one line, exit 1, the file left as it was
expect_err show-missing 1 "$L: no run 99 in the ledger" "$G" ledger show 99 --ledger "$L"
head -c 16384 /dev/urandom >"$T/random.db"
cp "$T/random.db" "$T/random.orig"
for sub in list 'add --cost 1USD' 'summary' 'export --csv' 'show 1'; do
	# shellcheck disable=SC2086
	expect_err "random $sub" 1 "$T/random.db: not a gpurent ledger: the file is not a SQLite database" \
		"$G" ledger $sub --ledger "$T/random.db"
done
cmp -s "$T/random.db" "$T/random.orig" && [ ! -e "$T/random.db-wal" ] && ok || bad "the random file was changed"
printf 'cost 12.5 CNY\n' >"$T/notes.txt"
expect_err text-file 1 'not a gpurent ledger' "$G" ledger list --ledger "$T/notes.txt"
mkdir "$T/adir"
expect_err directory 1 "$T/adir: is a directory" "$G" ledger list --ledger "$T/adir"
expect_err device 1 "/dev/null: not a regular file" "$G" ledger list --ledger /dev/null
if [ $HAVE_SQLITE = 1 ]; then
	sqlite3 "$T/places.sqlite" "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);
		INSERT INTO moz_places (url) VALUES ('https://example.org');"
	cp "$T/places.sqlite" "$T/places.orig"
	expect_err foreign 1 "$T/places.sqlite: not a gpurent ledger: a SQLite database of another application (tables: moz_places)" \
		"$G" ledger add --cost 1USD --ledger "$T/places.sqlite"
	cmp -s "$T/places.sqlite" "$T/places.orig" && ok || bad "the foreign database was changed"
	# a ledger written by a newer gpurent
	cp "$L" "$T/newer.db"
	sqlite3 "$T/newer.db" 'PRAGMA user_version = 99'
	expect_err newer 1 "written by a newer gpurent (ledger schema v99; this one reads up to v$V)" \
		"$G" ledger list --ledger "$T/newer.db"

	# --- an older schema (v1, as the first gpurent wrote it) is migrated, data kept
	sqlite3 "$T/v1.db" "PRAGMA application_id = 1196446284;
		CREATE TABLE gpurent_schema (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL,
		  description TEXT NOT NULL);
		CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,
		  status TEXT NOT NULL, started_at REAL NOT NULL, ended_at REAL,
		  command TEXT, host TEXT, gpu_type TEXT, gpu_count INTEGER,
		  price_per_hour REAL, currency TEXT, billing_mode TEXT, cost REAL,
		  exit_status INTEGER, restarts INTEGER, stop_reason TEXT, log_path TEXT,
		  tags TEXT, notes TEXT);
		INSERT INTO gpurent_schema VALUES (1, 1700000000, 'runs');
		INSERT INTO runs VALUES (3, 'guard', 'finished', 1700000000, 1700007200, 'python a.py',
		  'box', 'RTX4090', 1, 1.88, 'CNY', 'per-second', 3.76, 0, 0, 'exit', '/l/3.log',
		  'lora,7b', 'old run');
		PRAGMA user_version = 1;"
	expect_ok v1-show '^tags +lora,7b$' "$G" ledger show 3 --ledger "$T/v1.db"
	grep -q '^cost  *3\.76 CNY$' "$T/out" && grep -q '^stop reason  *exit$' "$T/out" \
		&& grep -q '^exit status  *0$' "$T/out" && ok || bad "v1 run after migration: $(cat "$T/out")"
	[ "$(sqlite3 "$T/v1.db" 'PRAGMA user_version')" = "$V" ] && \
	[ "$(sqlite3 "$T/v1.db" 'SELECT group_concat(version) FROM gpurent_schema')" = "$(seq -s, 1 "$V")" ] \
		&& ok || bad "v1 ledger migrated to v$V"
	expect_ok v1-add '^run 4 recorded' "$G" ledger add --cost 1USD --ledger "$T/v1.db"

	# 1500 guarded runs under NVML's name for the card: one group in summary --by gpu
	cp "$L" "$T/many.db"
	sqlite3 "$T/many.db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
		INSERT INTO runs (kind, status, started_at, ended_at, gpu_type, gpu_count, cost, currency,
		  recorded_at) SELECT 'guard', 'finished', 1717200000 + i * 60, 1717200000 + i * 60 + 36,
		  'NVIDIA GeForce RTX 4090', 1, 0.01, 'USD', 1717200000 FROM n;"
	expect_ok many-gpu '^RTX4090 +USD +1501 +25\.00 +35\.00 +55\.00$' "$G" ledger summary --by gpu --ledger "$T/many.db"
else
	echo "SKIP foreign, newer and v1 databases: sqlite3 not installed"
fi

# --- writers at once: 8 processes x 6 entries, none lost
i=0
while [ $i -lt 8 ]; do
	( j=0; while [ $j -lt 6 ]; do
		"$G" ledger add --ledger "$T/busy.db" --cost "0.0$i"USD --command "w$i e$j" --tag "w$i" >/dev/null 2>>"$T/busy.err"
		j=$((j + 1)); done ) &
	i=$((i + 1))
done
wait
[ ! -s "$T/busy.err" ] && ok || bad "concurrent adds failed: $(head -3 "$T/busy.err")"
run "$G" ledger list --ledger "$T/busy.db" --limit 0 --json
if need_py "8 writers x 6: every entry once"; then
	python3 -c "
import json; runs = json.load(open('$T/out'))['runs']
assert sorted(r['command'] for r in runs) == sorted('w%d e%d' % (i, j) for i in range(8) for j in range(6))
assert len({r['id'] for r in runs}) == 48" && ok || bad "8 writers x 6: every entry once"
else
	[ "$(grep -c '"command": "w' "$T/out")" -eq 48 ] && ok || bad "8 writers x 6 entries"
fi

# --- ledger-add-writes-into-corrupt-db: a damaged ledger is refused by every
# command on open (PRAGMA quick_check), never written further
D=$T/damaged.db
"$G" ledger --ledger "$D" add --cost 12.5 --currency CNY --duration 2h --gpu RTX4090 >/dev/null 2>&1 || bad "damaged: first add"
# page 5 of a fresh ledger is the runs table: break its first cell pointer
printf '\377\000\377\023\377\000\377\023\377\000\377\023\377\000\377\023' |
	dd of="$D" bs=1 seek=$((4 * 4096 + 8)) conv=notrunc 2>/dev/null
cp "$D" "$T/damaged.copy"
for c in "add --cost 1 --currency USD" "list" "show 1" "summary" "export --csv" "export --json"; do
	run "$G" ledger --ledger "$D" $c
	if [ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "damaged.db: the ledger is corrupted (" "$T/err" \
		&& [ ! -s "$T/out" ]; then ok; else bad "damaged ledger, '$c': rc $rc $(cat "$T/err" "$T/out")"; fi
done
cmp -s "$D" "$T/damaged.copy" && [ ! -s "$D-wal" ] && ok || bad "a damaged ledger was written"

# --- ledger-cost-unbounded: money at most 1e12, times at most 1e11 s; a sum
# never prints inf, nan, - or -0.00 for the rows there are
B=$T/big.db
expect_err cost-huge 2 "--cost: expected an amount of at most 1e12, got '1.7e308'" \
	"$G" ledger --ledger "$B" add --cost 1.7e308 --currency USD
expect_err price-huge 2 '--price: expected an amount of at most 1e12' \
	"$G" ledger --ledger "$B" add --price 1e13 --currency USD --duration 1h --cost 1
expect_ok cost-max '^run 1 recorded: 1000000000000\.00 USD' "$G" ledger --ledger "$B" add --cost 1e12 --currency USD --duration 1h
expect_ok cost-max2 '^run 2 recorded' "$G" ledger --ledger "$B" add --cost 1e12 --currency USD --duration 1h
expect_ok cost-zero '^run 3 recorded: 0\.00 USD' "$G" ledger --ledger "$B" add --cost 0 --currency USD
expect_ok sum-max '^total +USD +3 +2\.00 +[0-9.]+ +2000000000000\.00$' "$G" ledger --ledger "$B" summary
if grep -Eq 'inf|nan| -$|-0\.00' "$T/out"; then bad "summary prints inf/nan/-: $(cat "$T/out")"; else ok; fi
if need_py "stored 1.7e308 costs"; then
	# rows stored by hand (or an older gpurent) beyond the bounds: counted without a cost
	python3 -c "import sqlite3; c = sqlite3.connect('$B'); c.execute('UPDATE runs SET cost = 1.7e308 WHERE id < 3'); c.commit()"
	run "$G" ledger --ledger "$B" summary --json
	python3 -c "
import json; d = json.load(open('$T/out'))
t = [g for g in d['totals'] if g['currency'] == 'USD'][0]
assert t['cost'] == 0 and t['runs_without_cost'] == 2 and t['runs'] == 3, t" \
		&& ok || bad "stored 1.7e308 costs are summed as without a cost: $(cat "$T/out")"
	run "$G" ledger --ledger "$B" summary
	if grep -Eq 'inf|nan| -$' "$T/out"; then bad "summary of stored 1.7e308: $(cat "$T/out")"; else ok; fi
fi

# --- terminal-escape-injection: stored fields with ESC, BEL, OSC titles,
# newlines and invalid UTF-8 are escaped in list, show and summary
E=$T/esc.db
"$G" ledger --ledger "$E" add --cost 1 --currency USD --tag "$(printf 'x\033]0;pwned\007')" --tag "$(printf 't\033[2J')" \
	--host "$(printf 'h\033]0;title\007')" --gpu "$(printf 'A100\033[2J')" \
	--problems "$(printf 'OOM\033[31mRED\nline2 \377 \302\233 \344\270\255')" --notes "$(printf 'n\033c')" >/dev/null 2>&1 \
	|| bad "esc: add"
for c in "list" "show 1" "summary --by tag" "summary --by gpu"; do
	run "$G" ledger --ledger "$E" $c
	if [ "$rc" -eq 0 ] && tr -d '\033\007' <"$T/out" | cmp -s - "$T/out"; then ok
	else bad "ledger $c writes ESC/BEL raw: rc $rc $(cat -v "$T/out")"; fi
done
run "$G" ledger --ledger "$E" show 1
grep -Fq 'host          h\x1b]0;title\x07' "$T/out" && grep -Fq "$(printf 'OOM\\x1b[31mRED\\nline2 \\xff \\xc2\\x9b \344\270\255')" "$T/out" \
	&& ok || bad "show escapes visibly, keeps UTF-8: $(cat -v "$T/out")"
run "$G" ledger --ledger "$E" summary --by tag
grep -Fq 't\x1b[2J' "$T/out" && ok || bad "summary --by tag escapes the key: $(cat -v "$T/out")"
run "$G" ledger --ledger "$E" export --csv
if need_py "export --csv quotes the newline"; then
	python3 -c "
import csv, io
rows = list(csv.reader(io.open('$T/out', newline='', encoding='latin-1')))
assert len(rows) == 2 and len(rows[0]) == len(rows[1]), rows
assert any(f.startswith('OOM\x1b[31mRED\nline2') for f in rows[1]), rows" && ok || bad "export --csv quotes the newline: $(cat -v "$T/out")"
	run "$G" ledger --ledger "$E" export --json
	python3 -c "
import json; d = json.load(open('$T/out', encoding='utf-8'))
assert d['runs'][0]['problems'] == 'OOM\x1b[31mRED\nline2 \ufffd \x9b \u4e2d', d['runs'][0]['problems']" \
		&& ok || bad "export --json is valid UTF-8: $(cat -v "$T/out")"
fi

# --- ledger probes: what `gpurent probe` recorded (rows written here with
# python's sqlite3: the probe command is not needed to test the listing)
P=$T/probes.db
expect_ok probes-empty '^no probes recorded in ' "$G" ledger --ledger "$P" probes
[ -e "$P" ] && ok || bad "ledger probes did not create the ledger as list does"
grep -q '^  ledger probes' "$T/h1" && ok || bad "help ledger lacks 'ledger probes'"
expect_err probes-operand 2 '' "$G" ledger --ledger "$P" probes 3
expect_err probes-limit 2 '--limit' "$G" ledger --ledger "$P" probes --limit -1
if need_py "ledger probes"; then
	python3 - "$P" <<'PY' && ok || bad "could not write probe rows"
import sqlite3, sys, calendar
db = sqlite3.connect(sys.argv[1])
def probe(at, gpu, count, digest, model, peak, mfu, rate, diag, samples=0):
    db.execute("INSERT INTO probes (taken_at, host, gpu, gpu_count, workload_digest, model, steps, warmup, "
               "steady_step_seconds, peak_memory_bytes, memory_growth_bytes_per_step, units_per_step, "
               "units_per_second, units_are_samples, mfu, util_median, cpu_median, diagnoses, command, "
               "recorded_at) VALUES (?, 'box', ?, ?, ?, ?, 40, 3, 0.5, ?, 0, 4096, ?, ?, ?, 97, 40, ?, "
               "'python train.py --x \"a b\"', ?)", (at, gpu, count, digest, model, peak, rate, samples,
                                                     mfu, diag, at))
t = calendar.timegm((2026, 11, 20, 12, 0, 0))
probe(t, "NVIDIA H100 80GB HBM3", 2, "00000000000000ff", "llama-2-7b", 61.5e9, 0.31, 12000, "warmup,mem_growing")
probe(t + 60, None, None, None, "resnet-50", None, None, 800, None, samples=1)
probe(t - 60, "NVIDIA L4", 1, "0123456789abcdef", "gpt2", 9e9, 0.2, 3000, "data_starved")
db.commit()
PY
	run "$G" ledger --ledger "$P" probes
	[ "$rc" -eq 0 ] && [ "$(sed -n 2p "$T/out" | awk '{print $1}')$(sed -n 3p "$T/out" | awk '{print $1}')$(sed -n 4p "$T/out" | awk '{print $1}')" = 213 ] \
		&& ok || bad "probes: not newest first: $(cat "$T/out")"
	grep -q '2x NVIDIA H100' "$T/out" && grep -q 'warmup,mem_growing' "$T/out" && grep -q '61.50 GB' "$T/out" &&
		grep -q '31%' "$T/out" && grep -q '800 smp/s' "$T/out" && ok || bad "probes table: $(cat "$T/out")"
	sed -n 2p "$T/out" | grep -q ' -  -$' && ok || bad "probes: unknown figures are not '-': $(sed -n 2p "$T/out")"
	run "$G" ledger --ledger "$P" probes --limit 1
	[ "$(wc -l <"$T/out")" = 2 ] && ok || bad "probes --limit 1: $(cat "$T/out")"
	run "$G" ledger --ledger "$P" probes --json
	python3 - "$T/out" <<'PY' && ok || bad "ledger probes --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpurent.ledger-probes/1", d
p = d["probes"]
assert [x["id"] for x in p] == [2, 1, 3], p
a = p[1]
assert a["gpu"] == "NVIDIA H100 80GB HBM3" and a["gpu_count"] == 2 and a["workload_digest"] == "00000000000000ff"
assert a["diagnoses"] == ["warmup", "mem_growing"] and a["taken"] == "2026-11-20T12:00:00Z", a
assert a["peak_memory_bytes"] == 61.5e9 and a["mfu_fraction"] == 0.31 and a["unit"] == "token", a
assert a["command"] == 'python train.py --x "a b"'
b = p[0]
assert b["gpu"] is None and b["gpu_count"] is None and b["mfu_fraction"] is None and b["diagnoses"] == []
assert b["unit"] == "sample" and b["peak_memory_bytes"] is None
for x in p:
    for k, v in x.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            assert k.endswith(("_seconds", "_bytes", "_per_step", "_per_second", "_fraction", "_percent", "_steps")) \
                or k in ("id", "gpu_count", "steps"), k
PY
	if [ "$HAVE_SQLITE" = 1 ]; then
		# a v3 ledger (before probes) gains the table, its runs kept
		cp "$P" "$T/v3.db"
		"$G" ledger --ledger "$T/v3.db" add --cost 2 --currency USD --duration 1h >/dev/null 2>&1
		V=$(sqlite3 "$T/v3.db" 'PRAGMA user_version')
		sqlite3 "$T/v3.db" "DROP TABLE probes; DROP TABLE IF EXISTS bill_items; DROP TABLE IF EXISTS releases; DROP TABLE IF EXISTS slurm_attempts; DELETE FROM gpurent_schema WHERE version >= 4; PRAGMA user_version = 3;"
		expect_ok probes-v3 '^no probes recorded' "$G" ledger --ledger "$T/v3.db" probes
		[ "$(sqlite3 "$T/v3.db" 'PRAGMA user_version')" = "$V" ] && [ "$(sqlite3 "$T/v3.db" 'SELECT count(*) FROM runs')" = 1 ] \
			&& ok || bad "v3 -> v4: $(sqlite3 "$T/v3.db" 'PRAGMA user_version')"
	fi
fi

# --- ledger import --csv: all or nothing, checked as `ledger add` is, and
# imports at once store each run once (issue 26, item 5: ledger-import-partial,
# ledger-import-race)
IH='id,kind,status,start,end,start_unix,end_unix,hours,command,host,gpu_type,gpu_count,price_per_hour,currency,billing_mode,cost,exit_status,restarts,idle_seconds,stop_reason,log_path,tags,notes,problems,recorded_at_unix'
IR1='1,manual,finished,,,1709632800,1709640000,2,python a.py,h1,A100,1,,USD,,5,,,,,,x,,,'
IR2='2,manual,finished,,,1709640000,1709650000,2,python b.py,h1,A100,1,,USD,,5,,,,,,y,,,'
LONGTAG=TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT
printf '%s\n%s\n%s\n' "$IH" "$IR1" "2,manual,finished,,,1709640000,1709650000,2,python b.py,h1,A100,1,,USD,,5,,,,,,$LONGTAG,,," >imp_tag.csv
printf '%s\n%s\n%s\n' 'start,end,cost,currency,tags' '2024-03-05T10:00:00Z,,1,USD,good' \
	'1969-12-31T23:00:00Z,,1,USD,bad' >imp_1969.csv
for f in "imp_tag:3: tags: expected tags of at most 63" "imp_1969:3: start: expected unix seconds between 0"; do
	IL=$T/imp-${f%%:*}.db
	expect_err "import ${f%%:*} refused" 2 "${f%%:*}.csv:${f#*:}" \
		"$G" ledger --ledger "$IL" import --csv "${f%%:*}.csv"
	expect_ok "import ${f%%:*} stored nothing" '^no runs recorded' "$G" ledger --ledger "$IL" list
done
# the same check as `ledger add`: a tag it refuses is refused by import with its words
run "$G" ledger --ledger "$T/imp-add.db" add --cost 1USD --tag "$LONGTAG"
ADDERR=$(sed 's/^gpurent ledger add: //' "$T/err")
expect_err "import refuses what add refuses" 2 "imp_tag.csv:3: $ADDERR" \
	"$G" ledger --ledger "$T/imp-tag2.db" import --csv imp_tag.csv
# three imports of one file at once, 100 times, on a fresh ledger (created
# by none of them before, or by a read first): each run stored once
printf '%s\n%s\n%s\n' "$IH" "$IR1" "$IR2" >imp_race.csv
RL=$T/race.db dup=0 failed=0
for k in $(seq 1 100); do
	rm -f "$RL" "$RL-wal" "$RL-shm"
	[ $((k % 2)) = 0 ] && "$G" ledger --ledger "$RL" list >/dev/null
	"$G" ledger --ledger "$RL" import --csv imp_race.csv >/dev/null 2>"$T/race1" & p1=$!
	"$G" ledger --ledger "$RL" import --csv imp_race.csv >/dev/null 2>"$T/race2" & p2=$!
	"$G" ledger --ledger "$RL" import --csv imp_race.csv >/dev/null 2>"$T/race3" & p3=$!
	for p in $p1 $p2 $p3; do wait $p || failed=$((failed + 1)); done
	n=$("$G" ledger --ledger "$RL" export --csv | wc -l)
	[ "$n" = 3 ] || { dup=$((dup + 1)); [ "$dup" = 1 ] && "$G" ledger --ledger "$RL" list --limit 0 >"$T/race-list"; }
done
[ "$dup" = 0 ] && [ "$failed" = 0 ] && ok || bad "import race: runs stored more than once in $dup/100 trials, $failed imports failed: $(cat "$T/race-list" "$T/race1" 2>/dev/null | head -5)"

finish
