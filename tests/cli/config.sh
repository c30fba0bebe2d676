#!/bin/sh
# config.sh - `gpurent config` and the order flags > environment > file >
# built-in default, through the commands that take the settings.
NAME=config
. "$(dirname "$0")/lib/common.sh"

CF="$XDG_CONFIG_HOME/gpurent/config.yaml"
W="$ROOT/examples/lora-7b.yaml"
money_line() { "$G" plan "$W" "$@" 2>"$T/money_err" | sed -n 2p; }
# quiet NAME CMD...: exit 0, nothing on stderr
quiet() {
	name=$1; shift
	run "$@"
	[ "$rc" = 0 ] && [ ! -s "$T/err" ] && ok || bad "$name: exit $rc: $(head -3 "$T/err")"
}

# no file: built-in defaults, and nothing is created by reading
expect_ok path-default "^$T/.config/gpurent/config.yaml\$" "$G" config path
expect_ok list-empty "currency +USD +\\(default\\)" "$G" config list
[ ! -e "$CF" ] && ok || bad "config list created the file"
run "$G" config get access
[ "$rc" = 1 ] && [ ! -s "$T/out" ] && ok || bad "get of an unset key: exit $rc, '$(cat "$T/out")'"
case $(money_line) in *"money in USD"*) ok ;; *) bad "default is not USD: $(money_line)" ;; esac

# the issue's acceptance: config set currency CNY makes every later answer CNY
quiet set-currency "$G" config set currency CNY
[ -f "$CF" ] && grep -qx "currency: CNY" "$CF" && ok || bad "the file lacks currency: CNY: $(cat "$CF" 2>&1)"
case $(money_line) in *"money in CNY"*"CNY from $CF:1"*) ok ;; *) bad "plan after set: $(money_line)" ;; esac
"$G" plan "$W" --json >plan.json && grep -q '"currency": *"CNY"' plan.json && ok || bad "plan --json is not in CNY"
"$G" offers gpu=A100 --limit 3 --json >offers.json 2>&1 && grep -q '"currency": *"CNY"' offers.json && ok || bad "offers is not in CNY: $(head -c 300 offers.json)"
expect_ok list-file "currency +CNY +\\(file: $CF:1\\)" "$G" config list
expect_ok get "^CNY\$" "$G" config get currency
# flags beat the file, the environment beats the file
case $(money_line --currency EUR) in *"money in EUR"*) ok ;; *) bad "--currency EUR lost to the file" ;; esac
case $(GPURENT_CURRENCY=EUR money_line) in *"money in EUR"*"EUR from GPURENT_CURRENCY"*) ok ;; *) bad "GPURENT_CURRENCY lost to the file" ;; esac
GPURENT_CURRENCY=EUR "$G" config list >list.txt && grep -Eq "currency +EUR +\\(environment: GPURENT_CURRENCY\\)" list.txt && ok || bad "list with env: $(cat list.txt)"
# ledger add records what was paid: its --currency is not the display one,
# so a bare amount still needs its currency
expect_err ledger-add 2 "--cost: expected an amount with its currency" "$G" ledger --ledger l.db add --cost 10 --duration 1h

# a rate with its date and source, shown beside it
quiet set-rate "$G" config set rate CNY=7.12
quiet set-date "$G" config set rate_date 2026-11-30
quiet set-source "$G" config set rate_source "Bank of China, central parity"
case $(money_line) in *"1 USD = 7.12 CNY, from $CF:2, 2026-11-30, Bank of China, central parity"*) ok ;;
*) bad "the rate line: $(money_line)" ;; esac
case $(money_line --rate CNY=7) in *"1 USD = 7 CNY, from --rate"*) ok ;; *) bad "--rate did not win: $(money_line --rate CNY=7)" ;; esac

# lists: several values or commas; the plan's --access from the file
quiet set-access "$G" config set access SJTU-HPC KFUPM-JRCAI
grep -qx "access: \\[SJTU-HPC, KFUPM-JRCAI\\]" "$CF" && ok || bad "access line: $(grep access "$CF")"
"$G" plan "$W" >plan.txt 2>&1
grep -q "needs a membership you did not name" plan.txt && bad "--access from the file was not applied" || ok
quiet set-access-commas "$G" config set access "SJTU-HPC, PKU"
expect_ok get-access "^SJTU-HPC,PKU\$" "$G" config get access

# the framework for estimates, the box's preset and price for run
quiet set-fw "$G" config set framework torchtune
"$G" estimate --model llama-3.1-8b --task lora --micro-batch 2 --seq 2048 >est.txt 2>&1
"$G" estimate --model llama-3.1-8b --task lora --micro-batch 2 --seq 2048 --framework torchtune >est-flag.txt 2>&1
grep -q "one chunk's fp32 log-softmax" est.txt && cmp -s est.txt est-flag.txt && ok ||
	bad "estimate did not take framework torchtune: $(grep -i loss est.txt | head -3)"
quiet set-preset "$G" config set preset runpod
quiet set-price "$G" config set price 1.88CNY
"$G" run --dry-run --no-ledger --log-dir logs -- true >run.txt 2>&1
grep -qi "runpod" run.txt && ok || bad "run did not take preset runpod: $(head -5 run.txt)"

# comments and the other settings survive set and unset
printf '# my defaults\n' | cat - "$CF" >cf.new && mv cf.new "$CF"
quiet unset "$G" config unset rate_source
grep -qx "# my defaults" "$CF" && ok || bad "unset lost the comment"
grep -q "rate_source" "$CF" && bad "unset left rate_source" || ok
grep -qx "currency: CNY" "$CF" && ok || bad "unset lost currency"
quiet unset-again "$G" config unset rate_source
quiet set-twice "$G" config set currency EUR
[ "$(grep -c '^currency:' "$CF")" = 1 ] && grep -qx "currency: EUR" "$CF" && ok || bad "set twice: $(cat "$CF")"
# values YAML would misread are quoted, and read back the same
quiet set-quoted "$G" config set rate_source "no: a 'test' #1"
expect_ok get-quoted "^no: a 'test' #1\$" "$G" config get rate_source

# bad input: one line, exit 2, the file unchanged
cp "$CF" before.yaml
expect_err bad-set 2 "currency: expected a currency code" "$G" config set currency X1
expect_err bad-key 2 "'curency': not a setting (did you mean 'currency'?)" "$G" config set curency CNY
expect_err bad-date 2 "rate_date: expected a date YYYY-MM-DD" "$G" config set rate_date 30/11/2026
expect_err one-value 2 "currency: expected one value, got 2" "$G" config set currency CNY EUR
expect_err bad-ctl 2 "expected text without control characters" "$G" config set rate_source "$(printf 'a\033[31m')"
cmp -s before.yaml "$CF" && ok || bad "a refused set changed the file"
# a bad value in the file: FILE:LINE: key: expected, exit 2, for the commands that use it
printf 'currency: CNY\nframework: torchtun\n' >"$CF"
expect_err file-bad-fw 2 "$CF:2: framework: expected one of the frameworks of 'gpurent help estimate' (did you mean 'torchtune'?), got 'torchtun'" \
	"$G" estimate --model llama-3.1-8b
expect_ok file-bad-unrelated "A100" "$G" gpus A100
printf 'currency: CNY\nfoo: 1\n' >"$CF"
expect_err file-bad-key 2 "$CF:2: foo: not a setting" "$G" plan "$W"
printf 'currency: [CNY, EUR]\n' >"$CF"
expect_err file-list 2 "$CF:1: currency: expected one value, not a list" "$G" plan "$W"
printf 'currency: CNY\ncurrency: EUR\n' >"$CF"
expect_err file-twice 2 "$CF:2: currency: given twice (line 1)" "$G" plan "$W"
printf 'currency: {a: b}\n' >"$CF"
expect_err file-map 2 "$CF:1: currency: expected a value or a list of values, not a mapping" "$G" plan "$W"
printf 'currency: "CNY\n' >"$CF"
expect_err file-syntax 2 "$CF:" "$G" plan "$W"
printf 'price: abc\n' >"$CF"
expect_err file-price 2 "$CF:1: price: expected a price per hour" "$G" run --dry-run --no-ledger -- true
printf 'currency: CNY\n' >"$CF"
GPURENT_CURRENCY=1 "$G" plan "$W" >/dev/null 2>err.txt; rc=$?
[ "$rc" = 2 ] && grep -q "^gpurent plan: GPURENT_CURRENCY: expected a currency code" err.txt && ok || bad "bad env: $rc $(cat err.txt)"
# one {...} mapping is read, and refused for editing (its settings share a line)
printf '{currency: CNY, access: [PKU]}\n' >"$CF"
expect_ok flow-read "^CNY\$" "$G" config get currency
expect_err flow-set 2 "written as one {...} mapping" "$G" config set currency EUR
grep -qx '{currency: CNY, access: \[PKU\]}' "$CF" && ok || bad "a refused set changed the flow file"
# a folded value keeps the settings after it
printf 'rate_source: >-\n  Bank of\n  China\ncurrency: CNY\n' >"$CF"
quiet set-after-folded "$G" config set rate_source BOC
grep -qx "currency: CNY" "$CF" && grep -qx "rate_source: BOC" "$CF" && ok || bad "set after a folded value: $(cat "$CF")"
# an empty file and a file of comments are empty configs
: >"$CF"
expect_ok empty-file "currency +USD +\\(default\\)" "$G" config list
printf '# nothing\n' >"$CF"
expect_ok comment-file "currency +USD" "$G" config list
# a config file that is a directory, or unreadable
rm -f "$CF"; mkdir "$CF"
run "$G" plan "$W"
[ "$rc" = 2 ] && grep -q "$CF" "$T/err" && ok || bad "a directory as config: exit $rc $(cat "$T/err")"
rmdir "$CF"
# GPURENT_CONFIG names another file
printf 'currency: EUR\n' >other.yaml
GPURENT_CONFIG=$T/other.yaml "$G" config list >list.txt && grep -Eq "currency +EUR +\\(file: $T/other.yaml:1\\)" list.txt && ok || bad "GPURENT_CONFIG: $(cat list.txt)"

# under a zh_CN locale with no currency set: CNY, with the rate's source
if locale -a 2>/dev/null | grep -qi '^zh_CN\.utf-\?8$'; then
	got=$(LC_MESSAGES=zh_CN.UTF-8 money_line)
	date=$(grep '^CNY,' "$ROOT/data/currencies.csv" | cut -d, -f3)
	case $got in *"CNY"*"data/currencies.csv"*"$date"*"Federal Reserve"*) ok ;; *) bad "zh_CN default, no rate date and source: $got" ;; esac
	# JSON is for scripts: the same bytes as in the C locale (USD)
	LC_MESSAGES=zh_CN.UTF-8 "$G" plan "$W" --json >zh.json
	"$G" plan "$W" --json >c.json
	cmp -s zh.json c.json && grep -q '"currency": *"USD"' c.json && ok || bad "zh_CN plan --json differs from the C locale's"
else
	echo "SKIP config zh_CN: the zh_CN.UTF-8 locale is not installed"
fi
# config-set-invalid-utf8: a value that is not UTF-8 is refused (exit 2),
# the file untouched; a file broken by one is repaired by config unset
mkdir -p "$(dirname "$CF")"
printf 'currency: CNY\n' >"$CF"
expect_err set-bad-utf8 2 "access: expected UTF-8 text, got byte 0x96 at byte 5" "$G" config set access "$(printf 'SJTU\226\337')"
expect_err set-bad-utf8-ff 2 "rate_source: expected UTF-8 text" "$G" config set rate_source "$(printf 'bank\377')"
[ "$(cat "$CF")" = "currency: CNY" ] && ok || bad "a refused value changed the file: $(cat -v "$CF")"
printf 'access: [SJTU\226\337]\ncurrency: CNY\n' >"$CF"
expect_err broken-reported 2 "config.yaml:1: YAML syntax error" "$G" config list
run "$G" config unset access
[ "$rc" -eq 0 ] && [ "$(cat "$CF")" = "currency: CNY" ] && ok || bad "config unset repairs the file: rc $rc $(cat "$T/err") $(cat -v "$CF")"
expect_ok repaired 'currency' "$G" config list
# config-edit-block-eof: a file config set's lines cannot edit without
# changing what it says is refused, the file byte for byte as it was
for f in block-eof.yaml utf16.yaml; do
	cp "$ROOT/tests/data/config/$f" "$CF"
	expect_err "edit-$f" 2 "cannot edit this file line by line" "$G" config set currency USD
	cmp -s "$CF" "$ROOT/tests/data/config/$f" && ok || bad "config set damaged $f"
done
printf 'currency: USD\n\raccess:\r\n- a\r\n- b\r\n' >"$CF"
cp "$CF" lonecr.yaml
run "$G" config set access X
[ "$rc" -eq 2 ] && cmp -s "$CF" lonecr.yaml && ok || bad "lone CR: refused and unchanged: rc $rc $(cat "$T/err")"
rm -f "$CF"
finish
