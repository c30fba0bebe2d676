#!/bin/sh
# tests/cli/i18n.sh - the zh_CN messages (issue 17 items 1-2): the catalog
# translates every message of the sources; under LANG=zh_CN.UTF-8 each
# command's help and a representative error are Chinese with no English
# sentence left; JSON and CSV are the same bytes as in the C locale.
# Prints "i18n: N passed, M failed" (or one SKIP line).
NAME=i18n
. "$(dirname "$0")/lib/common.sh"
unset LANGUAGE LC_MESSAGES LC_ALL

for t in msgfmt msgcmp xgettext; do
	command -v $t >/dev/null 2>&1 || { echo "$NAME: SKIP: no $t (apt-get install gettext)"; exit 0; }
done
# locale -a spells it zh_CN.utf8; localedef -i zh_CN -f UTF-8 zh_CN.UTF-8 makes it
locale -a 2>/dev/null | grep -qix 'zh_CN\.utf-\{0,1\}8' ||
	{ echo "$NAME: SKIP: no zh_CN.UTF-8 locale (apt-get install locales; localedef -i zh_CN -f UTF-8 zh_CN.UTF-8)"; exit 0; }
LOC=$(cd "$(dirname "$G")" && pwd)/locale
[ -f "$LOC/zh_CN/LC_MESSAGES/gpurent.mo" ] ||
	{ echo "$NAME: FAIL: $LOC/zh_CN/LC_MESSAGES/gpurent.mo not built (make)"; exit 1; }
export GPURENT_LOCALEDIR="$LOC"
zh() { LANG=zh_CN.UTF-8 "$@"; }
en() { LANG=C "$@"; }

# --- the catalog: every message translated, none fuzzy, none stale ---
st=$(msgfmt --check --statistics -o /dev/null "$ROOT/po/zh_CN.po" 2>&1)
case $st in
*untranslated* | *fuzzy*) bad "msgfmt --statistics: $st" ;;
*" translated message"*) ok ;;
*) bad "msgfmt --check: $st" ;;
esac
# every _() / N_() / Q_() of today's sources is in the catalog, translated
(cd "$ROOT" && xgettext --keyword=_ --keyword=N_ --keyword=CE_ --keyword=HW_ --keyword=Q_:1,2 --from-code=UTF-8 \
	-o "$T/now.pot" src/*.c src/*/*.c) && ok || bad "xgettext failed"
msgcmp "$ROOT/po/zh_CN.po" "$T/now.pot" 2>"$T/cmp" && ok ||
	bad "po/zh_CN.po lacks messages of the sources (make po-update, then translate): $(head -5 "$T/cmp")"
# the .mo is this catalog's (make rebuilt it)
msgunfmt "$LOC/zh_CN/LC_MESSAGES/gpurent.mo" 2>/dev/null | grep -c '^msgid ' >"$T/n_mo"
[ "$(cat "$T/n_mo")" -eq "$(grep -c '^msgid ' "$ROOT/po/zh_CN.po")" ] && ok ||
	bad "the .mo holds $(cat "$T/n_mo") messages, po/zh_CN.po $(grep -c '^msgid ' "$ROOT/po/zh_CN.po")"

# --- the heuristic: an English sentence left in Chinese text ---
# A word is two letters or more, lower case but for the first, and maybe a
# final period
# (so options --x, paths a/b.c, placeholders FILE and acronyms GPU, names
# with digits A100, and field_names are not words); everything that is
# not a word breaks a run, and so do CJK and punctuation (a space does not). Text in '...',
# "..." and `...` (commands, quoted log lines) and URLs are taken out first.
# An example command line (a line that is "gpurent COMMAND ..." after its
# indent, COMMAND one of `gpurent help`'s) is a command, not a sentence.
# Prints each line holding a run of 4 or more words.
CMDS=$(LANG=C "$G" help 2>/dev/null | awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { printf "%s%s", n++ ? "|" : "", $1 }')
[ -n "$CMDS" ] || bad "gpurent help lists no commands"
english() {
	awk -v cmds="^ *gpurent ($CMDS)( |$)" '{
		s = $0
		if (s ~ cmds) next
		gsub(/https?:\/\/[^ ]*/, " | ", s)
		gsub(/\047[^\047]*\047/, " | ", s)
		gsub(/"[^"]*"/, " | ", s)
		gsub(/`[^`]*`/, " | ", s)
		gsub(/[^ A-Za-z0-9_\/=$~@%+.<>*#-]/, " | ", s)   # CJK and punctuation break a run
		n = split(s, w, " "); run = 0
		for (i = 1; i <= n; i++) {
			t = w[i]
			if (t ~ /^([A-Z][a-z]+|[a-z][a-z]+)\.?$/) {
				if (++run >= 4) { print; next }
				if (t ~ /\.$/) run = 0
			} else {
				run = 0
			}
		}
	}'
}
# the heuristic finds what it is for: English sentences, not names or options
printf '%s\n' 'the first step took long' >"$T/h"
[ -n "$(english <"$T/h")" ] && ok || bad "heuristic: missed an English sentence"
printf '%s\n' 'gpurent plans the rented compute' >"$T/h"
[ -n "$(english <"$T/h")" ] && ok || bad "heuristic: missed a sentence that begins with gpurent"
printf '%s\n' '  gpurent config set currency CNY' >"$T/h"
[ -z "$(english <"$T/h")" ] && ok || bad "heuristic: flagged an example command line"
printf '%s\n' '  --step-regex RE      一个扩展正则表达式' 'Hugging Face Trainer、tqdm' \
	'pip install torch --index-url https://x.y/z 安装' "用 'not a real sentence here' 校验" \
	'NVIDIA A100 80GB SXM' 'docs/formulas.md "Calibrated by a probe"' >"$T/h"
[ -z "$(english <"$T/h")" ] && ok || bad "heuristic: flagged names or options: $(english <"$T/h")"
# CJK: the lead bytes of U+4E00..U+9FFF in UTF-8 (grep ranges of characters need a UTF-8 locale)
cjk() { LC_ALL=C grep -q "$(printf '[\344-\351]')" "$1"; }

# help_ok CMD [SED]: `gpurent help CMD` in Chinese with no English
# sentence; the sed script SED takes out the text of src/core tables
# (pending, below) before the check.
help_ok() {
	cmd=$1 strip=${2:-}
	zh "$G" help $cmd >"$T/help" 2>"$T/herr"; hrc=$?
	en "$G" help $cmd >"$T/help.C" 2>/dev/null
	if [ "$hrc" -ne 0 ]; then bad "help $cmd: exit $hrc $(head -2 "$T/herr")"; return; fi
	cjk "$T/help" || { bad "help $cmd: no Chinese"; head -5 "$T/help"; return; }
	sed -e "$strip" "$T/help" | english >"$T/left"
	[ -s "$T/left" ] && { bad "help $cmd: English left:"; sed 's/^/    /' "$T/left" | head -8; return; }
	# the same number of lines, more or less: nothing dropped
	a=$(wc -l <"$T/help") b=$(wc -l <"$T/help.C")
	[ $((a * 3)) -ge $((b * 2)) ] || { bad "help $cmd: $a lines in zh_CN, $b in C"; return; }
	ok
}

# err_ok NAME CODE ZH-PATTERN EN-PATTERN CMD...: one stderr line, exit CODE in
# both locales; Chinese with no English sentence under zh_CN, and the
# English message under C.
err_ok() {
	ename=$1 code=$2 zpat=$3 epat=$4; shift 4
	zh "$@" >"$T/out" 2>"$T/err"; zrc=$?
	en "$@" >"$T/out.C" 2>"$T/err.C"; crc=$?
	[ "$zrc" -eq "$code" ] && [ "$crc" -eq "$code" ] || { bad "$ename: exit $zrc (zh_CN) and $crc (C), expected $code: $(cat "$T/err")"; return; }
	[ "$(wc -l <"$T/err")" -eq 1 ] || { bad "$ename: stderr is not one line: $(cat "$T/err")"; return; }
	grep -Fq -- "$zpat" "$T/err" || { bad "$ename: '$(cat "$T/err")' lacks '$zpat'"; return; }
	grep -Fq -- "$epat" "$T/err.C" || { bad "$ename: C locale: '$(cat "$T/err.C")' lacks '$epat'"; return; }
	cjk "$T/err" || { bad "$ename: no Chinese: $(cat "$T/err")"; return; }
	[ -z "$(english <"$T/err")" ] || { bad "$ename: English left: $(cat "$T/err")"; return; }
	ok
}

help_ok bench
help_ok bill
help_ok ckpt
help_ok completion
help_ok config
help_ok cost
help_ok env
help_ok estimate
help_ok gpus
help_ok ledger
help_ok manifest
help_ok models
help_ok offers
help_ok plan
help_ok probe
help_ok release
help_ok report
help_ok run
help_ok slurm
help_ok verify
help_ok help        # gpurent help help: the usage and every command's summary
# the offer query fields are Chinese (src/core/market/query.c, through msg_tr())
zh "$G" help offers | grep -q '^  gpu_mem  *GB  *每张 GPU 的显存' && ok ||
	bad "help offers: the query fields are not Chinese: $(zh "$G" help offers | grep '^  gpu_mem')"

: >empty.yaml
err_ok "gpus: no match" 1 "没有 GPU 匹配 'zzzz'" "no GPU matches 'zzzz'" "$G" gpus zzzz
err_ok "models: no match" 1 "没有模型匹配 'zzzz'" "no model matches 'zzzz'" "$G" models zzzz
err_ok "estimate: two files" 2 "只需要一个负载文件" "expected one workload file" \
	"$G" estimate empty.yaml empty.yaml
err_ok "cost: sessions" 2 "需要 次数x时长 的形式" "expected COUNTxDURATION" "$G" cost --price 1 --sessions 3
err_ok "ckpt interval: --write" 2 "--write: 必填" "--write: required" "$G" ckpt interval --mtbf 6h
err_ok "ckpt: subcommand" 2 "不是 ckpt 的子命令" "is not a ckpt subcommand" "$G" ckpt intervall
err_ok "bench: --gpu" 2 "需要设备编号或 'all'" "expected a device number or 'all'" "$G" bench --gpu x
err_ok "manifest: two dirs" 2 "只需要一个目录" "expected one directory" "$G" manifest a b
err_ok "verify: three operands" 2 "需要一个 manifest 和一个目录" "expected a manifest and a directory" \
	"$G" verify m d e
err_ok "offers: --json --csv" 2 "只能选一个" "choose one of --json and --csv" "$G" offers --json --csv
err_ok "probe: --steps --for" 2 "只能给一个" "--steps and --for: give one" "$G" probe --steps 5 --for 1m -- true
err_ok "config: not a setting" 2 "没有这个设置项" "not a setting" "$G" config get currencyy
printf 'currency: 12\n' >bad.yaml
err_ok "config: a bad value in the file" 2 "bad.yaml:1: currency: 需要货币代码" \
	"bad.yaml:1: currency: expected a currency code" env GPURENT_CONFIG=bad.yaml "$G" config list
err_ok "env: --dir" 2 "--dir: 需要一个路径" "--dir: expected a path" "$G" env --dir ''
err_ok "release: two actions" 2 "只能给一个释放操作" "give one release action" \
	"$G" release --dry-run --preset autodl --on-release true
err_ok "completion: no shell" 2 "需要 bash、zsh 或 fish（见" "expected bash, zsh or fish (see" "$G" completion
err_ok "completion: shell" 2 "需要 bash、zsh 或 fish" "expected bash, zsh or fish" "$G" completion tcsh
err_ok "unknown option" 2 "未知选项" "unknown option" "$G" gpus --jsonn
err_ok "a bad value" 2 "需要 true 或 false" "expected true or false" "$G" gpus --json=maybe
err_ok "not a command" 2 "不是 gpurent 的命令" "is not a gpurent command" "$G" estimat
# the commands of the third pass (issue 17): plan, run, ledger, bill, slurm, report
err_ok "plan: no tokens" 2 "tokens: 缺少必填字段" "tokens: missing required field" "$G" plan --model llama-2-7b
err_ok "run: --budget" 2 "--budget: 需要 --price" "--budget: needs --price" "$G" run --budget 5 -- true
err_ok "run: a preset" 2 "未知的预设（是不是想写 'autodl'？）" "unknown preset (did you mean 'autodl'?)" \
	"$G" run --preset autodll -- true
err_ok "ledger show: an id" 2 "需要一个运行 ID" "expected a run ID" "$G" ledger show x
err_ok "bill: subcommand" 2 "不是 bill 的子命令" "is not a bill subcommand" "$G" bill frob
err_ok "bill audit: --to" 2 "--to: 需要晚于 --from 的时间" "--to: expected a time after --from" \
	"$G" bill audit --from 2024-02-01 --to 2024-01-01
err_ok "slurm: subcommand" 2 "需要子命令：lint 或 script" "expected a subcommand: lint or script" "$G" slurm
# strerror() is glibc's own catalog: Chinese, not "?????" (LC_CTYPE stays C)
err_ok "slurm lint: no file" 2 "无法打开: 没有那个文件或目录" "cannot open: No such file or directory" \
	"$G" slurm lint "$T/none.sbatch"
err_ok "report: a chart" 2 "--svg: 需要以下之一" "--svg: expected one of" "$G" report --svg pie
err_ok "bill import: no file" 2 "需要 FILE" "expected FILE" "$G" bill import
# the core's own parse errors (_(), src/base/i18n.h): Chinese under zh_CN,
# one line with the same FILE:LINE: FIELD: prefix, exit 2; in the C locale
# the very bytes gpurent printed before the core's messages were marked.
# core_err NAME PREFIX ZH EN-LINE CMD...
core_err() {
	cname=$1 cpre=$2 czh=$3 cen=$4; shift 4
	zh "$@" >/dev/null 2>"$T/cerr"; zrc=$?
	en "$@" >/dev/null 2>"$T/cerr.C"; crc=$?
	[ "$zrc" -eq 2 ] && [ "$crc" -eq 2 ] || { bad "$cname: exit $zrc (zh_CN) and $crc (C), expected 2: $(cat "$T/cerr")"; return; }
	[ "$(wc -l <"$T/cerr")" -eq 1 ] && [ "$(wc -l <"$T/cerr.C")" -eq 1 ] ||
		{ bad "$cname: stderr is not one line: $(cat "$T/cerr" "$T/cerr.C")"; return; }
	[ "$(cat "$T/cerr.C")" = "$cen" ] || { bad "$cname: C locale: '$(cat "$T/cerr.C")', expected '$cen'"; return; }
	case $(cat "$T/cerr") in "$cpre"*) ;; *) bad "$cname: zh_CN: '$(cat "$T/cerr")' does not start with '$cpre'"; return ;; esac
	grep -Fq -- "$czh" "$T/cerr" || { bad "$cname: '$(cat "$T/cerr")' lacks '$czh'"; return; }
	cjk "$T/cerr" || { bad "$cname: no Chinese: $(cat "$T/cerr")"; return; }
	[ -z "$(english <"$T/cerr")" ] || { bad "$cname: English left: $(cat "$T/cerr")"; return; }
	ok
}
printf 'model: llama-2-7b\ntask: lora\nmicro_batch: x\ntokens: 1e8\n' >w.yaml
core_err "core: a workload field" "gpurent estimate: w.yaml:3: micro_batch: " "需要正整数，得到的是 'x'" \
	"gpurent estimate: w.yaml:3: micro_batch: expected a positive whole number, got 'x' (at most 100000000)" \
	"$G" estimate w.yaml
head -2 "$ROOT/tests/data/bills/aws-cur-clean.csv" >bill.csv
echo 'line-2,2024-03-02T08:00:00Z,2024-03-02T09:30:00Z,AmazonEC2,USE1-BoxUsage:g5.xlarge,i-0a,1.5,Hrs,six,USD' >>bill.csv
GPURENT_LEDGER="$T/core-err.db" core_err "core: a bill line" "gpurent bill import: bill.csv:3: lineItem/UnblendedCost: " \
	"需要-1e12 到 1e12 之间的金额，得到的是 'six'" \
	"gpurent bill import: bill.csv:3: lineItem/UnblendedCost: expected an amount between -1e12 and 1e12, got 'six'" \
	"$G" bill import bill.csv
head -2 "$ROOT/tests/data/catalog-zones.csv" >cat.csv
echo '1x_H100_SECURE,H100,1.0,16.0,125.0,H100,US,,-2.99,' >>cat.csv
core_err "core: a catalog row" "gpurent offers: cat.csv:3: Price: " "需要 0 到 1e6 USD 的每小时价格" \
	"gpurent offers: cat.csv:3: Price: expected a price from 0 to 1e6 USD per hour, got '-2.99'" \
	"$G" offers --catalog cat.csv --limit 1
printf 'currency: CNY\ncurrency: USD\n' >twice.yaml
GPURENT_CONFIG=twice.yaml core_err "core: a config value" "gpurent config list: twice.yaml:2: currency: " "给了两次（第 1 行）" \
	"gpurent config list: twice.yaml:2: currency: given twice (line 1)" "$G" config list
printf 'currencyy: CNY\n' >typo.yaml
GPURENT_CONFIG=typo.yaml core_err "core: a config key" "gpurent config list: typo.yaml:1: currencyy: " \
	"不是一个设置项（是不是想写 'currency'？）" \
	"gpurent config list: typo.yaml:1: currencyy: not a setting (did you mean 'currency'?)" "$G" config list

# the human output is Chinese, its table headings line up in columns
zh "$G" gpus >"$T/g" 2>&1 && cjk "$T/g" && ok || bad "gpus: no Chinese heading: $(head -1 "$T/g")"
# padded by terminal columns, not bytes: "别名" is 2 characters, 4 columns,
# so 10 spaces fill its 14-column cell and "显存GB" ends where the rows'
# memory figures end
want="$(printf '%-34s 别名%10s 显存GB' GPU '')"
case $(head -1 "$T/g") in "$want"*) ok ;; *) bad "gpus: heading not padded by columns: $(head -1 "$T/g")" ;; esac
zh "$G" estimate --model llama-2-7b --task lora --gpu A100-80GB --tokens 1e8 >"$T/e" 2>&1 &&
	grep -q '每张 GPU 的显存' "$T/e" && grep -q '全参训练\|LoRA 微调' "$T/e" && ok ||
	bad "estimate: the table is not Chinese: $(head -3 "$T/e")"
english <"$T/e" >"$T/left"; [ -s "$T/left" ] && bad "estimate: English left: $(head -3 "$T/left")" || ok
zh "$G" cost --price 1.88CNY --billing autodl --sessions 2x8h --span 30d >"$T/c" 2>&1 &&
	grep -q '计费方式' "$T/c" && grep -q '最便宜' "$T/c" && ok || bad "cost: not Chinese: $(head -3 "$T/c")"
# human_ok NAME GREP CMD...: the output for people is Chinese (holds GREP)
# with no English sentence left
human_ok() {
	hname=$1 hpat=$2; shift 2
	zh "$@" >"$T/hu" 2>&1
	grep -q -- "$hpat" "$T/hu" || { bad "$hname: lacks '$hpat': $(head -3 "$T/hu")"; return; }
	english <"$T/hu" >"$T/left"
	[ -s "$T/left" ] && { bad "$hname: English left:"; sed 's/^/    /' "$T/left" | head -5; return; }
	ok
}
mkdir -p "$T/home/.aws"
printf '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = x\n' >"$T/home/.aws/credentials"
echo 'ls' >"$T/home/.bash_history"
HOME="$T/home" human_ok "release --dry-run" "第 2/4 步 删除凭证" "$G" release --dry-run --preset autodl
HOME="$T/home" human_ok "env --security" "明文存放着 AWS 访问密钥" "$G" env --security
printf 'currency: CNY\n' >"$T/cur.yaml"
GPURENT_CONFIG="$T/cur.yaml" human_ok "config list" "currency     CNY                      （文件：" "$G" config list

# --- machine-readable output: the same bytes in every locale ---
same() {
	sname=$1; shift
	en "$@" >"$T/m.C" 2>"$T/m.Cerr"; a=$?
	zh "$@" >"$T/m.zh" 2>/dev/null; b=$?
	[ "$a" -eq 0 ] && [ "$b" -eq 0 ] && [ -s "$T/m.C" ] || { bad "$sname: exit $a / $b: $(head -2 "$T/m.Cerr")"; return; }
	cmp -s "$T/m.C" "$T/m.zh" && ok || { bad "$sname: differs between C and zh_CN:"; diff "$T/m.C" "$T/m.zh" | head -6; }
}
same "estimate --json" "$G" estimate --model llama-2-7b --task lora --gpu A100-80GB --tokens 1e8 --json
same "estimate --json (warnings)" "$G" estimate --model llama-2-70b --gpus 2 --gpu RTX4090 --tokens 1e12 --json
same "gpus --json" "$G" gpus --json
same "models --json" "$G" models --json
same "cost --json" "$G" cost --price 1.88CNY --billing autodl --sessions 2x8h --span 30d --json
same "cost --list-billing --json" "$G" cost --list-billing --json
same "ckpt interval --json" "$G" ckpt interval --write 90s --mtbf 6h --work 24h --price 2.1 --json
same "offers --json" "$G" offers --json --limit 0
same "offers --csv" "$G" offers --csv --limit 0
same "offers --csv CNY" "$G" offers --csv --currency CNY
export GPURENT_LEDGER="$T/ledger.db"
"$G" ledger add --cost 12.5CNY --duration 3h --gpu 4090 --notes '一次 LoRA 微调' >/dev/null 2>&1 &&
	"$G" ledger add --price 2.1USD --duration 90m --gpu A100 >/dev/null 2>&1 && ok || bad "ledger add failed"
same "ledger export --csv" "$G" ledger export --csv
same "ledger export --json" "$G" ledger export --json
same "manifest" "$G" manifest "$ROOT/data"
GPURENT_CONFIG="$T/none.yaml" same "config list --json (no currency set)" "$G" config list --json
printf 'currency: CNY\nrate: [CNY=7.12]\nrate_date: 2026-11-30\n' >"$T/cfg.yaml"
GPURENT_CONFIG="$T/cfg.yaml" same "config list --json" "$G" config list --json
# env --json: free bytes and memory move between two runs on a busy box,
# so numbers are masked, those inside the messages too ("22.5 GiB
# available"); every word and string must be the same (a listener that
# comes or goes between the runs: compared twice)
env_same() {
	for try in 1 2; do
		en "$G" env --json --no-python >"$T/env.C" 2>/dev/null
		zh "$G" env --json --no-python >"$T/env.zh" 2>/dev/null
		for f in "$T/env.C" "$T/env.zh"; do
			sed -E 's/(": )-?[0-9][0-9.eE+-]*/\1N/; s/[0-9]+(\.[0-9]+)?/N/g' "$f" >"$f.m"
		done
		[ -s "$T/env.C.m" ] && cmp -s "$T/env.C.m" "$T/env.zh.m" && { ok; return; }
	done
	bad "env --json: differs between C and zh_CN:"; diff "$T/env.C.m" "$T/env.zh.m" | head -6
}
env_same
# the third pass's machine output: JSON, the sbatch script, the SkyPilot task
B=$ROOT/tests/data/bills
"$G" bill import "$B/aws-cur2-stories.csv" >/dev/null 2>&1 && ok || bad "bill import failed"
same "bill list --json" "$G" bill list --json
same "bill audit --json" "$G" bill audit --json
same "plan --json" "$G" plan "$ROOT/examples/lora-7b.yaml" --json
# (under zh_CN with no currency set the money is CNY, so the currency is given)
same "plan --emit sky" "$G" plan "$ROOT/examples/lora-7b.yaml" --emit sky --currency USD
same "plan --emit slurm" "$G" plan "$ROOT/examples/resnet50-imagenet.yaml" --access SJTU-HPC --only campus-hpc --gpu A100 \
	--currency USD --emit slurm -- python train.py
same "slurm script" "$G" slurm script --partition gpu --max-time 2h --time 30m --conda torch --job-name t1 -- python train.py
same "ledger export --csv (a bill too)" "$G" ledger export --csv
# slurm lint: its findings are for people (Chinese), its exit status the same
en "$G" slurm lint "$ROOT/tests/data/slurm/seed004.sbatch" >"$T/lint.C" 2>&1; a=$?
zh "$G" slurm lint "$ROOT/tests/data/slurm/seed004.sbatch" >"$T/lint.zh" 2>&1; b=$?
[ "$a" = "$b" ] && ok || bad "slurm lint: exit $a in C, $b in zh_CN"
human_ok "slurm lint" "是注释，不是指令" "$G" slurm lint "$ROOT/tests/data/slurm/seed004.sbatch"
# the guard speaks Chinese on the terminal (its own lines; CMD's are CMD's)
zh "$G" run --no-ledger --log-dir "$T/glog" --price 1 -- true >/dev/null 2>"$T/guard"
grep -q '守护中：' "$T/guard" && grep -q '^gpurent run: 花费 ' "$T/guard" && ok ||
	bad "run: the guard's lines are not Chinese: $(head -3 "$T/guard")"
# a command that cannot start: the OS layer's words are Chinese too
zh "$G" run --no-ledger --log-dir "$T/glog" -- "$T/no-such-cmd" >/dev/null 2>"$T/guard"
grep -q 'no-such-cmd: 无法运行：' "$T/guard" && ok || bad "run: cannot start, in English: $(grep no-such "$T/guard")"
zh "$G" run --no-ledger --log-dir "$T/glog" -- no-such-cmd-gpurent >/dev/null 2>"$T/guard"
grep -q 'no-such-cmd-gpurent: 找不到命令' "$T/guard" && ok || bad "run: not found, in English: $(grep no-such "$T/guard")"
# --json stays English, the C library's words included (a skipped part's
# reason carries strerror's text)
zh "$G" bench --no-gpu --no-store --disk-size 1MiB --dir "$T/no-such-dir" --json >"$T/bz.json" 2>/dev/null
grep -q 'no-such-dir: No such file or directory' "$T/bz.json" && ! cjk "$T/bz.json" && ok ||
	bad "bench --json under zh_CN: $(grep no-such "$T/bz.json")"
# the program in its build folder reads the catalogs built beside it
if [ "$(dirname "$G")" = "$ROOT/build" ] && [ -d "$ROOT/build/locale" ]; then
	env -u GPURENT_LOCALEDIR LANG=zh_CN.UTF-8 "$G" cost --price 1 --sessions 1h >"$T/c2" 2>&1 && cjk "$T/c2" && ok ||
		bad "build/gpurent without GPURENT_LOCALEDIR: not Chinese: $(head -1 "$T/c2")"
fi
# the human output of the third pass's commands is Chinese
human_ok "ledger list" "命令 / 问题" "$G" ledger list
human_ok "ledger summary" "卡时" "$G" ledger summary
human_ok "bill audit" "发现的问题" "$G" bill audit
human_ok "plan" "排除" "$G" plan "$ROOT/examples/lora-7b.yaml"
# report: the page's headings are Chinese, its numbers those of the C page
# (under zh_CN the plan's money is CNY unless a currency is given: docs/report.md "Currencies")
en "$G" report "$ROOT/examples/lora-7b.yaml" --out "$T/r.C.html" >/dev/null 2>&1 &&
	zh "$G" report "$ROOT/examples/lora-7b.yaml" --currency USD --out "$T/r.zh.html" >/dev/null 2>&1 && ok || bad "report failed"
grep -q '<html lang="zh-CN">' "$T/r.zh.html" && grep -q '<html lang="en">' "$T/r.C.html" && ok ||
	bad "report: the page's lang is not zh-CN in zh_CN and en in C"
grep -o '<h2[^>]*>[^<]*</h2>' "$T/r.zh.html" >"$T/h2"
[ -s "$T/h2" ] && cjk "$T/h2" && [ -z "$(sed 's/<[^>]*>//g' "$T/h2" | english)" ] && ok ||
	bad "report: headings not Chinese: $(head -3 "$T/h2")"
# every number of a table cell and of a bar's value, in order
nums() { grep -o '<td class="n">[^<]*</td>\|class="v"[^>]*>[^<]*<' "$1" | sed 's/<[^>]*>//g; s/.*>//; s/<$//'; }
nums "$T/r.C.html" >"$T/n.C"; nums "$T/r.zh.html" >"$T/n.zh"
[ -s "$T/n.C" ] && cmp -s "$T/n.C" "$T/n.zh" && ok || { bad "report: the numbers differ between C and zh_CN:"; diff "$T/n.C" "$T/n.zh" | head -4; }
# bench measures (its figures differ run to run): its words must not
en "$G" bench --no-gpu --no-store --disk-size 1MiB --dir "$T" --json >"$T/b.C" 2>&1
zh "$G" bench --no-gpu --no-store --disk-size 1MiB --dir "$T" --json >"$T/b.zh" 2>&1
grep -E '"(test|label|unit|note)"' "$T/b.C" >"$T/bw.C"; grep -E '"(test|label|unit|note)"' "$T/b.zh" >"$T/bw.zh"
[ -s "$T/bw.C" ] && cmp -s "$T/bw.C" "$T/bw.zh" && ok || { bad "bench --json: words differ:"; diff "$T/bw.C" "$T/bw.zh" | head -6; }

finish
